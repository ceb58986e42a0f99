//! Checking a signed sign-in token (JWT) against configured public keys.
//!
//! Everything but the signature is checked here, in pure Rust (so natively unit-tested): [`check`] parses
//! the token, picks the key, checks the algorithm and every claim, and hands back a [`SignatureCheck`] for
//! the runtime's WebCrypto ([`super::webcrypto`], native code, where the RSA and elliptic-curve maths of a
//! pure-Rust backend would cost the Worker a megabyte of WASM). [`Unverified::finish`] then gives the
//! answer. `jsonwebtoken` (no crypto backend) still reads JWK sets and headers. What is acceptable:
//!
//! - the key is the configured JWK whose `kid` the token names (or the only key, when the set has one and
//!   the token names none);
//! - the algorithm comes from that key, never from the token's header: an RSA key verifies RS256, a P-256
//!   key ES256, an Ed25519 key EdDSA. A token whose header says anything else (`none`, `HS256` "signed" with
//!   the public key, another key's algorithm) is refused. Symmetric (`oct`) keys are never accepted;
//! - `iss` and `aud` must be the configured ones (a string, or an array holding it), `exp` and `sub` must
//!   be present, and `exp` and `nbf` are checked with [`LEEWAY_SECONDS`] of clock skew; an `iat`
//!   (optional) later than now past that skew is refused too ([`super::claims`]);
//! - the header's `crit` may name only `b64`, and `b64` may not be `false` (RFC 7797 payloads are refused);
//! - `sub` may not be `user`, the name of the client token's single user.
//!
//! The claims give the [`Principal`]: `sub` and the roles of `mnote.workspaces` (unknown role names give no
//! role in that workspace).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, JwkSet, KeyAlgorithm};
use jsonwebtoken::{Algorithm, Header, decode_header};
use pageai_core::policy::{Grants, Role};

use super::Principal;
use super::claims;
pub use super::claims::{Expected, LEEWAY_SECONDS};

/// The longest `sub` accepted (it becomes the audit's actor).
const MAX_USER_ID_CHARS: usize = 200;

/// Why a token was refused: for the log, never for the caller (who gets `mnote_unauthorized`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not a JWT, or its header is unreadable (this includes `alg: none`, which no key verifies).
    Malformed(String),
    /// No configured key has the token's `kid` (or it names none and the set has several).
    UnknownKey(Option<String>),
    /// The header's algorithm is not the one of the key.
    WrongAlgorithm {
        /// The token's header says this.
        header: String,
        /// The key verifies this.
        key: String,
    },
    /// The signature, a claim check (issuer, audience, expiry, not-before) or the claims' shape failed.
    Rejected(String),
}

/// The algorithm a configured key verifies, or `None` for a key that is never used: symmetric keys, other
/// curves, and keys whose own `alg` disagrees with their type.
pub fn algorithm_of(jwk: &Jwk) -> Option<Algorithm> {
    let by_type = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => Algorithm::RS256,
        AlgorithmParameters::EllipticCurve(ec) if ec.curve == EllipticCurve::P256 => Algorithm::ES256,
        AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => Algorithm::EdDSA,
        _ => return None,
    };
    let named = match jwk.common.key_algorithm {
        None => return Some(by_type),
        Some(KeyAlgorithm::RS256) => Algorithm::RS256,
        Some(KeyAlgorithm::ES256) => Algorithm::ES256,
        Some(KeyAlgorithm::EdDSA) => Algorithm::EdDSA,
        Some(_) => return None,
    };
    (named == by_type).then_some(by_type)
}

/// The `kid` a token's header names, without checking anything else (to pick a key, or refresh the set).
pub fn key_id(token: &str) -> Result<Option<String>, Refusal> {
    decode_header(token).map(|header| header.kid).map_err(|e| Refusal::Malformed(e.to_string()))
}

/// The key of `keys` that `kid` picks.
pub fn pick<'a>(keys: &'a JwkSet, kid: Option<&str>) -> Option<&'a Jwk> {
    match kid {
        Some(kid) => keys.find(kid),
        None => match keys.keys.as_slice() {
            [only] => Some(only),
            _ => None,
        },
    }
}

/// What a valid token says: who, and until when (its `exp`, seconds since the epoch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The user and their roles.
    pub principal: Principal,
    /// The token's expiry: a session made from it ends then at the latest.
    pub expires_at: u64,
}

/// A public key, decoded from its JWK, in the form WebCrypto imports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PublicKey {
    /// RS256: the modulus and exponent, big-endian.
    Rsa {
        /// `n`.
        n: Vec<u8>,
        /// `e`.
        e: Vec<u8>,
    },
    /// ES256: the uncompressed SEC1 point (`0x04 ‖ x ‖ y`).
    P256(Vec<u8>),
    /// EdDSA: the 32-byte Ed25519 public key.
    Ed25519(Vec<u8>),
}

/// What is left to check once everything else passed: `signature` over `message` by `key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureCheck {
    /// The key's algorithm (the header's agrees).
    pub algorithm: Algorithm,
    /// The key.
    pub key: PublicKey,
    /// The signed text: `header.payload`, as in the token.
    pub message: String,
    /// The signature's bytes (JWS form: `r ‖ s` for ECDSA).
    pub signature: Vec<u8>,
}

/// A token whose key and header checked out; the signature is still to be checked.
#[derive(Debug)]
pub struct Unverified {
    /// The check for WebCrypto.
    pub signature: SignatureCheck,
    claims: Result<Verified, Refusal>,
}

impl Unverified {
    /// The answer once the signature was checked: a bad signature is refused before any claim is looked at,
    /// as `jsonwebtoken` did.
    pub fn finish(self, signature_valid: bool) -> Result<Verified, Refusal> {
        match signature_valid {
            true => self.claims,
            false => Err(Refusal::Rejected("InvalidSignature".into())),
        }
    }
}

/// Checks everything of `token` against `keys` but its signature, at `now` (Unix seconds).
pub fn check(token: &str, keys: &JwkSet, expected: &Expected, now: u64) -> Result<Unverified, Refusal> {
    let header = decode_header(token).map_err(|e| Refusal::Malformed(e.to_string()))?;
    let jwk = pick(keys, header.kid.as_deref()).ok_or_else(|| Refusal::UnknownKey(header.kid.clone()))?;
    let algorithm = algorithm_of(jwk).ok_or_else(|| Refusal::UnknownKey(header.kid.clone()))?;
    if header.alg != algorithm {
        return Err(Refusal::WrongAlgorithm { header: format!("{:?}", header.alg), key: format!("{algorithm:?}") });
    }
    let key = public_key(jwk).map_err(|e| Refusal::Rejected(format!("key: {e}")))?;
    let (message, encoded_signature) =
        token.rsplit_once('.').ok_or_else(|| Refusal::Rejected("InvalidToken".into()))?;
    let payload =
        message.rsplit_once('.').map(|(_, payload)| payload).ok_or_else(|| Refusal::Rejected("InvalidToken".into()))?;
    check_extensions(&header)?;
    let signature = b64(encoded_signature).map_err(Refusal::Rejected)?;
    let claims = b64(payload).and_then(|json| claims::check(&json, expected, now)).map_err(Refusal::Rejected);
    let claims = claims.and_then(|claims| {
        let expires_at = claims.exp;
        Ok(Verified { principal: principal_of(claims)?, expires_at })
    });
    Ok(Unverified { signature: SignatureCheck { algorithm, key, message: message.to_string(), signature }, claims })
}

/// The header rules of a JWS beyond its algorithm (RFC 7515 §4.1.11, RFC 7797): no unencoded payload, and
/// no critical extension but `b64`, named once.
fn check_extensions(header: &Header) -> Result<(), Refusal> {
    let invalid = || Refusal::Rejected("InvalidToken".into());
    let b64 = header.extras.get::<bool>("b64").map_err(|_| invalid())?;
    if b64 == Some(false) {
        return Err(invalid());
    }
    match &header.crit {
        Some(crit) if crit.len() != 1 || crit.iter().any(|c| c != "b64") || b64.is_none() => Err(invalid()),
        _ => Ok(()),
    }
}

fn public_key(jwk: &Jwk) -> Result<PublicKey, String> {
    match &jwk.algorithm {
        AlgorithmParameters::RSA(rsa) => Ok(PublicKey::Rsa { n: b64(&rsa.n)?, e: b64(&rsa.e)? }),
        AlgorithmParameters::EllipticCurve(ec) => {
            let mut point = vec![0x04];
            point.extend(b64(&ec.x)?);
            point.extend(b64(&ec.y)?);
            Ok(PublicKey::P256(point))
        }
        AlgorithmParameters::OctetKeyPair(okp) => Ok(PublicKey::Ed25519(b64(&okp.x)?)),
        // `algorithm_of` gives no algorithm for the others (symmetric keys, unknown types).
        _ => Err("UnsupportedAlgorithm".into()),
    }
}

fn b64(text: &str) -> Result<Vec<u8>, String> {
    URL_SAFE_NO_PAD.decode(text).map_err(|e| format!("Base64({e})"))
}

fn principal_of(claims: claims::Claims) -> Result<Principal, Refusal> {
    let user = claims.sub;
    if user.is_empty() || user.chars().count() > MAX_USER_ID_CHARS || user.chars().any(char::is_control) {
        return Err(Refusal::Rejected("sub is empty, too long or has control characters".into()));
    }
    // The client token's single user is named `user`; a signed token of that name would be taken for it
    // (its Hermes sessions, its rights in `ws_local`), so the name is reserved.
    if user == super::LOCAL_USER {
        return Err(Refusal::Rejected(format!("sub {user:?} is reserved for the client token's user")));
    }
    let roles = claims.mnote.workspaces.iter().filter_map(|(ws, role)| Role::parse(role).map(|r| (ws.as_str(), r)));
    Ok(Principal { user, workspaces: Grants::from_pairs(roles), epochs: claims.mnote.epochs })
}

#[cfg(test)]
#[path = "jwt_tests.rs"]
mod tests;
