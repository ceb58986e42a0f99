//! How ids and keys are spelled: one alphabet, one encoding, the prefix and length of each kind, and how an
//! id that names something (a review session its document, a Hermes session its document and owner) is read
//! back. Everything here; the adapters only bring the random bytes.
//!
//! Core has no randomness of its own (it must stay deterministic), so the caller passes the random bytes:
//! the Worker and the WASM package read them from `getrandom`. Each byte becomes one character of
//! RFC 4648 base32, lowercase, as SPEC §2 asks for block ids (`b_` followed by 10 characters).
//!
//! | what | form | random characters |
//! |---|---|---|
//! | block id | `b_…` | [`BLOCK_ID_CHARS`] (10, SPEC §2) |
//! | context, tool call, run, edit, MCP session, trace and request ids ([`Kind`]) | `{prefix}…` | [`ID_CHARS`] (16) |
//! | idempotency key | `idem_…` | [`KEY_CHARS`] (20) |
//! | sign-in nonce | `…` | 12 |
//! | review session id ([`review`]) | `rs.{documentId}.…` | [`ID_CHARS`] |
//! | Hermes session id ([`hermes`]) | `mnote_{documentId}_{owner tag}-…` | [`hermes::RANDOM_CHARS`] (12) |
//!
//! ```
//! use pageai_core::ids::{self, Kind};
//!
//! assert_eq!(ids::block_id(&[0, 1, 25, 26, 31, 32, 33, 255, 224, 7]), "b_abz27ab7ah");
//! assert_eq!(ids::mint("ctx_", &[1; ids::ID_CHARS]), "ctx_bbbbbbbbbbbbbbbb");
//! assert_eq!(ids::id(Kind::Run, &[2; ids::ID_CHARS]), "run_cccccccccccccccc");
//! ```

pub mod hermes;
pub mod review;

use alloc::string::String;

/// RFC 4648 base32, lowercase.
pub const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// Random characters of a block id (SPEC §2).
pub const BLOCK_ID_CHARS: usize = 10;

/// Random characters of every other id: 80 bits.
pub const ID_CHARS: usize = 16;

/// Random characters of an idempotency key: 100 bits, one key per intended write.
pub const KEY_CHARS: usize = 20;

/// The most random characters any [`Kind`] takes: a buffer this long fits every kind.
pub const MAX_CHARS: usize = KEY_CHARS;

/// What every block id starts with.
pub const BLOCK_ID_PREFIX: &str = "b_";

/// The longest client-supplied trace id (or tool call id, or run id) that is echoed back.
pub const MAX_TRACE_ID_LEN: usize = 128;

/// The kinds of id minted as a prefix and random characters, each with its prefix and length: the one
/// table of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A block, `b_` (SPEC §2).
    Block,
    /// A frozen context snapshot, `ctx_`.
    Context,
    /// One tool call, `call_`.
    ToolCall,
    /// A tool call that came through MCP, `mcp_`.
    McpToolCall,
    /// An MCP session (`Mcp-Session-Id`), `mcp_`.
    McpSession,
    /// A run of tool calls, `run_`.
    Run,
    /// A person's edit of the page, `edit_`.
    Edit,
    /// An idempotency key, `idem_`: one per intended write.
    IdempotencyKey,
    /// A trace id, `tr_`, when the caller sent none.
    Trace,
    /// One HTTP request, `req_`: unlike a trace id, a caller never chooses it.
    Request,
    /// The nonce that makes each sign-in cookie unique: no prefix.
    SignInNonce,
}

impl Kind {
    /// What an id of this kind starts with.
    pub const fn prefix(self) -> &'static str {
        match self {
            Kind::Block => BLOCK_ID_PREFIX,
            Kind::Context => "ctx_",
            Kind::ToolCall => "call_",
            Kind::McpToolCall | Kind::McpSession => "mcp_",
            Kind::Run => "run_",
            Kind::Edit => "edit_",
            Kind::IdempotencyKey => "idem_",
            Kind::Trace => "tr_",
            Kind::Request => "req_",
            Kind::SignInNonce => "",
        }
    }

    /// How many random bytes (one character each) an id of this kind takes.
    pub const fn chars(self) -> usize {
        match self {
            Kind::Block => BLOCK_ID_CHARS,
            Kind::IdempotencyKey => KEY_CHARS,
            Kind::SignInNonce => 12,
            Kind::Context
            | Kind::ToolCall
            | Kind::McpToolCall
            | Kind::McpSession
            | Kind::Run
            | Kind::Edit
            | Kind::Trace
            | Kind::Request => ID_CHARS,
        }
    }
}

/// `prefix` followed by one base32 character per byte of `random`.
pub fn mint(prefix: &str, random: &[u8]) -> String {
    let mut id = String::with_capacity(prefix.len() + random.len());
    id.push_str(prefix);
    // 256 is a multiple of 32, so the low five bits of a uniform byte are uniform.
    id.extend(random.iter().filter_map(|b| ALPHABET.get(usize::from(b & 31))).map(|&c| char::from(c)));
    id
}

/// An id of `kind`: its prefix and one character for each of the first [`Kind::chars`] bytes of `random`
/// (the caller draws that many).
pub fn id(kind: Kind, random: &[u8]) -> String {
    mint(kind.prefix(), random.get(..kind.chars()).unwrap_or(random))
}

/// The id a trace or a request gets when the platform has no randomness: its prefix and `unavailable`, so
/// logs still say what it is.
pub fn unavailable(kind: Kind) -> String {
    let mut id = String::from(kind.prefix());
    id.push_str("unavailable");
    id
}

/// A block id, `b_` and [`BLOCK_ID_CHARS`] characters.
pub fn block_id(random: &[u8; BLOCK_ID_CHARS]) -> String {
    mint(BLOCK_ID_PREFIX, random)
}

/// Whether a client-supplied id (trace id, tool call id, run id) is a plain, bounded token: 1 to
/// [`MAX_TRACE_ID_LEN`] characters of A-Z, a-z, 0-9, `_`, `-`, `.` and `:`. Such an id is echoed in a
/// response header and in logs, so anything that could smuggle header syntax or flood a log line is refused.
pub fn is_sane_trace_id(id: &str) -> bool {
    (1..=MAX_TRACE_ID_LEN).contains(&id.len())
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

/// Whether `text` is 1 to `max` characters of A-Z, a-z, 0-9, `_` and `-`.
fn is_plain(text: &str, max: usize) -> bool {
    (1..=max).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_is_one_character_of_the_alphabet() {
        let id = mint("x_", &[0, 31, 32, 255]);
        assert_eq!(id, "x_a7a7");
        let all: alloc::vec::Vec<u8> = (0..=255).collect();
        assert!(mint("", &all).bytes().all(|b| ALPHABET.contains(&b)));
    }

    #[test]
    fn block_ids_are_valid_block_ids() {
        let id = block_id(&[255; BLOCK_ID_CHARS]);
        assert_eq!(id.len(), 2 + BLOCK_ID_CHARS);
        assert!(crate::page::validate_block_id(&id).is_ok());
        assert_eq!(id, self::id(Kind::Block, &[255; BLOCK_ID_CHARS]));
    }

    #[test]
    fn each_kind_has_its_prefix_and_length() {
        let random = [0u8; 32];
        let spelled = [
            (Kind::Block, "b_aaaaaaaaaa"),
            (Kind::Context, "ctx_aaaaaaaaaaaaaaaa"),
            (Kind::ToolCall, "call_aaaaaaaaaaaaaaaa"),
            (Kind::McpToolCall, "mcp_aaaaaaaaaaaaaaaa"),
            (Kind::McpSession, "mcp_aaaaaaaaaaaaaaaa"),
            (Kind::Run, "run_aaaaaaaaaaaaaaaa"),
            (Kind::Edit, "edit_aaaaaaaaaaaaaaaa"),
            (Kind::IdempotencyKey, "idem_aaaaaaaaaaaaaaaaaaaa"),
            (Kind::Trace, "tr_aaaaaaaaaaaaaaaa"),
            (Kind::Request, "req_aaaaaaaaaaaaaaaa"),
            (Kind::SignInNonce, "aaaaaaaaaaaa"),
        ];
        for (kind, want) in spelled {
            assert_eq!(id(kind, &random), want, "{kind:?}");
            assert!(kind.chars() <= MAX_CHARS, "{kind:?}");
        }
        assert_eq!(unavailable(Kind::Trace), "tr_unavailable");
        assert_eq!(unavailable(Kind::Request), "req_unavailable");
    }

    #[test]
    fn trace_ids_are_kept_only_when_sane() {
        assert!(is_sane_trace_id("req-42.a:b_c"));
        assert!(is_sane_trace_id(&"a".repeat(MAX_TRACE_ID_LEN)));
        for hostile in ["", "a b", "x\r\nset-cookie: y", &"a".repeat(129)] {
            assert!(!is_sane_trace_id(hostile), "{hostile:?}");
        }
    }
}
