//! SQLite in a Durable Object: the one way a document's storage writes ([`Sql`], which counts the rows
//! each statement wrote) and all-or-nothing groups of statements ([`atomically`]).
//!
//! Writers (the page store's row writes, the tables's flushes) see only the [`Sql`] trait, so the page
//! store is unit-tested natively on a real SQLite (`memory`, tests only) with the same statements the
//! object runs. [`ObjectSql`] is the Durable Object's: it adds up what the runtime reports as written
//! (`cursor.rowsWritten`, which counts index entries too), so a command can say what it cost.
//!
//! SQLite-backed objects refuse `BEGIN`/`COMMIT` in `sql.exec`; the runtime's way to group statements is
//! `storage.transactionSync(callback)`, which rolls back everything the callback did when it throws.
//! worker 0.8.7 has no binding for it, so [`ObjectSql`] calls it through `js_sys` with a scoped closure:
//! the closure only borrows the caller's work, which is fine because `transactionSync` returns before we
//! do.

use std::cell::Cell;
use std::rc::Rc;

use js_sys::{Function, Reflect};
use wasm_bindgen::closure::ScopedClosure;
use wasm_bindgen::{JsCast, JsValue};
pub use worker::SqlStorageValue as SqlValue;
use worker::{SqlStorage, Storage};

/// A connection to run statements on.
pub trait Sql {
    /// Runs one statement to its end, counting the rows it wrote.
    fn run(&self, query: &str, args: Vec<SqlValue>) -> worker::Result<()>;
    /// Runs a query and answers its rows, each its columns in the query's order.
    fn rows(&self, query: &str, args: Vec<SqlValue>) -> worker::Result<Vec<Vec<SqlValue>>>;
    /// Runs `work` inside one transaction: every statement it runs is committed, or none. Call it through
    /// [`atomically`]. The error carries the first failure's message, for the log line.
    fn transaction(&self, work: &mut dyn FnMut(&dyn Sql) -> worker::Result<()>) -> Result<(), String>;
}

/// Runs `work` inside one transaction of `sql` ([`Sql::transaction`]).
pub fn atomically<S: Sql + ?Sized>(sql: &S, work: impl FnOnce(&dyn Sql) -> worker::Result<()>) -> Result<(), String> {
    let mut work = Some(work);
    sql.transaction(&mut |sql| match work.take() {
        Some(work) => work(sql),
        None => Err(worker::Error::from("transaction callback ran twice")),
    })
}

/// A Durable Object's SQL storage, adding up the rows its statements write.
#[derive(Debug, Clone)]
pub struct ObjectSql {
    storage: Rc<Storage>,
    sql: SqlStorage,
    written: Rc<Cell<u64>>,
}

impl ObjectSql {
    /// The object's storage, with a fresh count.
    pub fn new(storage: Storage) -> Self {
        let sql = storage.sql();
        ObjectSql { storage: Rc::new(storage), sql, written: Rc::default() }
    }

    /// The runtime's handle, for typed reads (`cursor.to_array`); those write nothing.
    pub fn raw(&self) -> &SqlStorage {
        &self.sql
    }

    /// Rows written since the last [`ObjectSql::take_rows_written`] (or since the object woke).
    pub fn take_rows_written(&self) -> u64 {
        self.written.replace(0)
    }
}

impl Sql for ObjectSql {
    fn run(&self, query: &str, args: Vec<SqlValue>) -> worker::Result<()> {
        let cursor = self.sql.exec(query, args)?;
        // Stepping the cursor to its end makes sure the statement has finished before its count is read.
        for row in cursor.raw() {
            row?;
        }
        let written = u64::try_from(cursor.rows_written()).unwrap_or(u64::MAX);
        self.written.set(self.written.get().saturating_add(written));
        Ok(())
    }

    fn rows(&self, query: &str, args: Vec<SqlValue>) -> worker::Result<Vec<Vec<SqlValue>>> {
        self.sql.exec(query, args)?.raw().collect()
    }

    fn transaction(&self, work: &mut dyn FnMut(&dyn Sql) -> worker::Result<()>) -> Result<(), String> {
        let raw: &JsValue = self.storage.as_raw().as_ref();
        let transaction_sync: Function = Reflect::get(raw, &JsValue::from_str("transactionSync"))
            .map_err(|e| format!("storage.transactionSync is unavailable: {e:?}"))?
            .dyn_into()
            .map_err(|_| "storage.transactionSync is not a function".to_string())?;
        let mut failure: Option<String> = None;
        let mut callback = || -> Result<JsValue, JsValue> {
            match work(self) {
                Ok(()) => Ok(JsValue::UNDEFINED),
                Err(e) => {
                    // Throwing is what makes transactionSync roll back; the message is kept for the log.
                    let message = e.to_string();
                    let thrown = JsValue::from_str(&message);
                    failure = Some(message);
                    Err(thrown)
                }
            }
        };
        let closure = ScopedClosure::<dyn FnMut() -> Result<JsValue, JsValue>>::borrow_mut(&mut callback);
        let called = transaction_sync.call1(raw, closure.as_ref());
        drop(closure);
        match (called, failure) {
            (Ok(_), None) => Ok(()),
            (_, Some(message)) => Err(message),
            (Err(e), None) => Err(format!("transaction failed: {e:?}")),
        }
    }
}

/// The value of an `INTEGER` column, or an error naming it.
pub fn integer(value: Option<&SqlValue>, column: &str) -> Result<i64, String> {
    match value {
        Some(SqlValue::Integer(i)) => Ok(*i),
        other => Err(format!("column {column} is not an integer: {other:?}")),
    }
}

/// The value of a `TEXT` column, or an error naming it.
pub fn text(value: Option<SqlValue>, column: &str) -> Result<String, String> {
    match value {
        Some(SqlValue::String(s)) => Ok(s),
        other => Err(format!("column {column} is not text: {other:?}")),
    }
}

/// SQLite in memory behind [`Sql`], for native tests of what the object writes.
#[cfg(test)]
#[allow(clippy::expect_used, reason = "a test database that cannot open is the test's report")]
pub mod memory {
    use super::{Sql, SqlValue};
    use rusqlite::types::{Value, ValueRef};

    /// One in-memory database; counts rows changed, as SQLite reports them (`changes()`, which leaves out
    /// index entries the runtime's count includes).
    pub struct Memory {
        /// The connection, for a test's own statements.
        pub db: rusqlite::Connection,
        written: std::cell::Cell<u64>,
    }

    impl Memory {
        /// A new, empty database.
        pub fn open() -> Self {
            let db = rusqlite::Connection::open_in_memory().expect("open an in-memory SQLite");
            Memory { db, written: std::cell::Cell::new(0) }
        }

        /// Rows changed since the last call.
        pub fn take_rows_written(&self) -> u64 {
            self.written.replace(0)
        }
    }

    fn bind(args: Vec<SqlValue>) -> Vec<Value> {
        args.into_iter()
            .map(|v| match v {
                SqlValue::Null => Value::Null,
                SqlValue::Boolean(b) => Value::Integer(i64::from(b)),
                SqlValue::Integer(i) => Value::Integer(i),
                SqlValue::Float(f) => Value::Real(f),
                SqlValue::String(s) => Value::Text(s),
                SqlValue::Blob(b) => Value::Blob(b),
            })
            .collect()
    }

    fn failed(e: rusqlite::Error) -> worker::Error {
        worker::Error::from(e.to_string())
    }

    impl Sql for Memory {
        fn run(&self, query: &str, args: Vec<SqlValue>) -> worker::Result<()> {
            let changed = self.db.execute(query, rusqlite::params_from_iter(bind(args))).map_err(failed)?;
            self.written.set(self.written.get() + changed as u64);
            Ok(())
        }

        fn rows(&self, query: &str, args: Vec<SqlValue>) -> worker::Result<Vec<Vec<SqlValue>>> {
            let mut statement = self.db.prepare(query).map_err(failed)?;
            let columns = statement.column_count();
            let mut rows = statement.query(rusqlite::params_from_iter(bind(args))).map_err(failed)?;
            let mut out = Vec::new();
            while let Some(row) = rows.next().map_err(failed)? {
                let mut values = Vec::with_capacity(columns);
                for i in 0..columns {
                    values.push(match row.get_ref(i).map_err(failed)? {
                        ValueRef::Null => SqlValue::Null,
                        ValueRef::Integer(i) => SqlValue::Integer(i),
                        ValueRef::Real(f) => SqlValue::Float(f),
                        ValueRef::Text(t) => SqlValue::String(String::from_utf8_lossy(t).into_owned()),
                        ValueRef::Blob(b) => SqlValue::Blob(b.to_vec()),
                    });
                }
                out.push(values);
            }
            Ok(out)
        }

        fn transaction(&self, work: &mut dyn FnMut(&dyn Sql) -> worker::Result<()>) -> Result<(), String> {
            self.db.execute_batch("BEGIN").map_err(|e| e.to_string())?;
            match work(self) {
                Ok(()) => self.db.execute_batch("COMMIT").map_err(|e| e.to_string()),
                Err(e) => {
                    self.db.execute_batch("ROLLBACK").map_err(|e| e.to_string())?;
                    Err(e.to_string())
                }
            }
        }
    }
}
