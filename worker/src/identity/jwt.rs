//! Checking a signed sign-in token (JWT) against configured public keys.
//!
//! The signature is checked by `jsonwebtoken` (its pure-Rust backend); this module only picks the key and
//! states what is acceptable:
//!
//! - the key is the configured JWK whose `kid` the token names (or the only key, when the set has one and
//!   the token names none);
//! - the algorithm comes from that key, never from the token's header: an RSA key verifies RS256, a P-256
//!   key ES256, an Ed25519 key EdDSA. A token whose header says anything else (`none`, `HS256` "signed" with
//!   the public key, another key's algorithm) is refused. Symmetric (`oct`) keys are never accepted;
//! - `iss` and `aud` must be the configured ones, `exp` and `sub` must be present, and `exp` and `nbf` are
//!   checked with [`LEEWAY_SECONDS`] of clock skew; an `iat` (optional) later than now past that skew is
//!   refused too;
//! - `sub` may not be `user`, the name of the client token's single user.
//!
//! The claims give the [`Principal`]: `sub` and the roles of `mnote.workspaces` (unknown role names give no
//! role in that workspace).

use std::collections::BTreeMap;

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, JwkSet, KeyAlgorithm};
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use pageai_core::policy::{Grants, Role};
use serde::Deserialize;

use super::Principal;

/// Clock skew allowed on `exp` and `nbf`.
pub const LEEWAY_SECONDS: u64 = 30;

/// The longest `sub` accepted (it becomes the audit's actor).
const MAX_USER_ID_CHARS: usize = 200;

/// What a token must say besides its signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected {
    /// The issuer (`iss`).
    pub issuer: String,
    /// The audience (`aud`).
    pub audience: String,
}

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

#[derive(Deserialize)]
struct Claims {
    sub: String,
    exp: u64,
    #[serde(default)]
    iat: Option<u64>,
    #[serde(default)]
    mnote: MnoteClaim,
}

#[derive(Default, Deserialize)]
struct MnoteClaim {
    #[serde(default)]
    workspaces: BTreeMap<String, String>,
    #[serde(default)]
    epochs: BTreeMap<String, u64>,
}

/// What a valid token says: who, and until when (its `exp`, seconds since the epoch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// The user and their roles.
    pub principal: Principal,
    /// The token's expiry: a session made from it ends then at the latest.
    pub expires_at: u64,
}

/// Checks `token` against `keys` and answers who it names, until when.
pub fn verify(token: &str, keys: &JwkSet, expected: &Expected) -> Result<Verified, Refusal> {
    let header = decode_header(token).map_err(|e| Refusal::Malformed(e.to_string()))?;
    let jwk = pick(keys, header.kid.as_deref()).ok_or_else(|| Refusal::UnknownKey(header.kid.clone()))?;
    let algorithm = algorithm_of(jwk).ok_or_else(|| Refusal::UnknownKey(header.kid.clone()))?;
    if header.alg != algorithm {
        return Err(Refusal::WrongAlgorithm { header: format!("{:?}", header.alg), key: format!("{algorithm:?}") });
    }
    let key = DecodingKey::from_jwk(jwk).map_err(|e| Refusal::Rejected(format!("key: {e}")))?;
    let mut validation = Validation::new(algorithm);
    validation.leeway = LEEWAY_SECONDS;
    validation.validate_nbf = true;
    validation.set_issuer(&[&expected.issuer]);
    validation.set_audience(&[&expected.audience]);
    validation.set_required_spec_claims(&["exp", "sub", "iss", "aud"]);
    let claims = decode::<Claims>(token, &key, &validation).map_err(|e| Refusal::Rejected(e.to_string()))?.claims;
    // A token issued later than now (past the skew) comes from a wrong clock or a forger's: refused, as
    // `nbf` in the future is.
    if let Some(iat) = claims.iat
        && iat > jsonwebtoken::get_current_timestamp().saturating_add(LEEWAY_SECONDS)
    {
        return Err(Refusal::Rejected("iat is in the future".into()));
    }
    let expires_at = claims.exp;
    Ok(Verified { principal: principal_of(claims)?, expires_at })
}

fn principal_of(claims: Claims) -> Result<Principal, Refusal> {
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
