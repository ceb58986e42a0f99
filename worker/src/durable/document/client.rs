//! The front Worker's handle on one document's object.

use pageai_core::Error;
use serde::de::DeserializeOwned;
use worker::{Env, Headers, Method, Request, RequestInit, Response};

use super::command::DocumentCommand;
use super::live::Resume;
use crate::config::DOCUMENTS_BINDING;
use crate::durable::{LIVE_SEQ_HEADER, ObjectAnswer, ROWS_WRITTEN_HEADER};
use crate::error::{Failure, OrInternal, TRACE_HEADER};
use crate::identity::Principal;

/// A document object's answer, decoded, with the rows the command wrote.
#[derive(Debug)]
pub struct Answered<T> {
    /// The answer.
    pub value: T,
    /// Rows written, as the object reported them ([`ROWS_WRITTEN_HEADER`]).
    pub rows_written: Option<String>,
    /// The live channel's position before the command ran, as the object reported it ([`LIVE_SEQ_HEADER`]).
    pub live_seq: Option<String>,
}

impl<T> Answered<T> {
    /// `response` with the object's [`ROWS_WRITTEN_HEADER`] passed on ([`pass_rows`]).
    pub fn pass_rows(&self, response: Response, trace_id: &str) -> Result<Response, Error> {
        pass_rows(self.rows_written.as_deref(), response, trace_id)
    }

    /// `response` (a read's answer) with the object's [`LIVE_SEQ_HEADER`] passed on, when it sent one.
    pub fn pass_live_seq(&self, mut response: Response, trace_id: &str) -> Result<Response, Error> {
        if let Some(seq) = &self.live_seq {
            response.headers_mut().set(LIVE_SEQ_HEADER, seq).or_internal("set live seq header", trace_id)?;
        }
        Ok(response)
    }
}

/// `response` with a document object's [`ROWS_WRITTEN_HEADER`] passed on, so a client (the bench) sees
/// what the command cost in storage.
pub fn pass_rows(rows_written: Option<&str>, mut response: Response, trace_id: &str) -> Result<Response, Error> {
    if let Some(rows) = rows_written {
        response.headers_mut().set(ROWS_WRITTEN_HEADER, rows).or_internal("set rows header", trace_id)?;
    }
    Ok(response)
}

/// The handle.
#[derive(Debug)]
pub struct DocumentClient {
    stub: worker::Stub,
    /// The person the commands are for, as the object reads it ([`super::access::CALLER_HEADER`]).
    caller: Option<String>,
}

impl DocumentClient {
    /// The object of `document_id` (created by the runtime on first use).
    pub fn new(env: &Env, document_id: &str, trace_id: &str) -> Result<Self, Error> {
        let namespace = env.durable_object(DOCUMENTS_BINDING).or_internal("bind DOCUMENTS", trace_id)?;
        let id = namespace.id_from_name(document_id).or_internal("derive object id", trace_id)?;
        let stub = id.get_stub().or_internal("get object stub", trace_id)?;
        Ok(DocumentClient { stub, caller: None })
    }

    /// The same handle, sending its commands for `principal`: the object checks their role in the
    /// document's workspace before it runs one ([`super::access`]).
    pub fn acting_for(mut self, principal: &Principal, trace_id: &str) -> Result<Self, Error> {
        self.caller = Some(serde_json::to_string(principal).or_internal("encode the caller", trace_id)?);
        Ok(self)
    }

    /// Sends `command` and returns the object's JSON answer as text, with the rows it wrote. A coded error
    /// from the object comes back as [`Failure::Relayed`], ready to return to the client (with its own
    /// rows header).
    pub async fn call_raw(&self, command: &DocumentCommand, trace_id: &str) -> Result<Answered<String>, Failure> {
        let ObjectAnswer { json, rows_written, live_seq } =
            crate::durable::call_object_as(&self.stub, "document", command, self.caller.as_deref(), trace_id).await?;
        Ok(Answered { value: json, rows_written, live_seq })
    }

    /// Sends `command` and decodes the answer as `T`, with the rows it wrote.
    pub async fn call<T: DeserializeOwned>(
        &self,
        command: &DocumentCommand,
        trace_id: &str,
    ) -> Result<Answered<T>, Failure> {
        let Answered { value, rows_written, live_seq } = self.call_raw(command, trace_id).await?;
        let value = serde_json::from_str(&value).or_internal("decode document object answer", trace_id)?;
        Ok(Answered { value, rows_written, live_seq })
    }

    /// Sends `command` and returns the object's JSON answer as text.
    pub async fn send_raw(&self, command: &DocumentCommand, trace_id: &str) -> Result<String, Failure> {
        Ok(self.call_raw(command, trace_id).await?.value)
    }

    /// Sends `command` and decodes the answer as `T`.
    pub async fn send<T: DeserializeOwned>(&self, command: &DocumentCommand, trace_id: &str) -> Result<T, Failure> {
        Ok(self.call(command, trace_id).await?.value)
    }

    /// Hands a live upgrade to the object; answers its `101` with the socket (or its coded error).
    pub async fn live(
        &self,
        document_id: &str,
        resume: &Resume,
        signed_in: &SignedIn,
        trace_id: &str,
    ) -> Result<Response, Failure> {
        let mut url = worker::Url::parse("https://document.internal/live").or_internal("build live url", trace_id)?;
        {
            let mut query = url.query_pairs_mut();
            query.append_pair("documentId", document_id);
            if let Some(after) = resume.after {
                query.append_pair("after", &after.to_string());
            }
            if let Some(revision) = resume.revision {
                query.append_pair("revision", &revision.to_string());
            }
            query.append_pair(super::live::SCHEMA_PARAM, resume.version.schema());
            if let Some(until) = signed_in.until {
                query.append_pair(super::live::UNTIL_PARAM, &until.to_string());
            }
            if let Some(session) = &signed_in.session {
                query.append_pair(super::live::SESSION_PARAM, session);
            }
        }
        let headers = Headers::new();
        headers.set("upgrade", "websocket").or_internal("set upgrade header", trace_id)?;
        headers.set(TRACE_HEADER, trace_id).or_internal("set trace header", trace_id)?;
        if let Some(caller) = &self.caller {
            headers.set(super::access::CALLER_HEADER, caller).or_internal("set caller header", trace_id)?;
        }
        let mut init = RequestInit::new();
        init.with_method(Method::Get).with_headers(headers);
        let request = Request::new_with_init(url.as_str(), &init).or_internal("build live request", trace_id)?;
        let response = self.stub.fetch_with_request(request).await.or_internal("open the live channel", trace_id)?;
        match response.status_code() {
            101 => Ok(response),
            _ => Err(Failure::Relayed(response)),
        }
    }
}

/// The sign-in a live socket is opened under: when it ends, and the cookie session that a logout ends.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SignedIn {
    /// The cookie's expiry or the signed token's `exp` (Unix seconds); `None` for the client token.
    pub until: Option<u64>,
    /// The cookie's session nonce.
    pub session: Option<String>,
}
