#![allow(clippy::unwrap_used, clippy::indexing_slicing, reason = "a failed expectation is the test's report")]
//! Key selection and the refusals that need no signature: the algorithm always comes from the key.
//! (Signed tokens of every kind are checked end to end, against keys made by the test: tests/e2e/identity.test.mjs.)

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

use super::*;

fn keys() -> Value {
    serde_json::from_str(r#"{"ec":{"kty":"EC","x":"IB3bRYNrX41shO31In2WT0eYvF-ONvloWzLqFcP3JoM","y":"66A5ggTm6XREmZTM3NmeZLAODBo2rS18ga_r-8C1hdo","crv":"P-256"},"rsa":{"kty":"RSA","n":"ugeG2VwpdMNuFD0nNroupusQbUNPlTm6cywW_CCLxGg39h9V71ysdAo4xZIVeWDvscEOAW9VACWITOL9cnAEqktEJJkuUwqG94ytZUOfg2NINpSnY_TT8jRNopuqMVywJgabEMyvN99MRbHqgyrUBGlqtXQYsWAF614g263F7VpDMfodPuZAGLp-cfHwOaU0EgMDBK0lWF_F67_3PCJN5T2mHZvnw7RZ99Le_RkBdOIGVxLcsnb1SOGz9bibwbHiElPujug87rzM4hVJjwXHLbjzS-BXLGrvt4A32TXkMFB4rFQwqmTTdxbOsb8I9CcIVsucRJjGqGN5zxodZUHk9Q","e":"AQAB"},"ed":{"crv":"Ed25519","x":"iNb4jGhhtcXVximnUcZUtdpYmw4nSGih7TUPTEILxg0","kty":"OKP"}}"#).unwrap()
}

fn set(entries: &[(&str, &str, Option<&str>)]) -> JwkSet {
    let all = keys();
    let keys: Vec<Value> = entries
        .iter()
        .map(|(which, kid, alg)| {
            let mut key = all[*which].clone();
            key["kid"] = json!(kid);
            if let Some(alg) = alg {
                key["alg"] = json!(alg);
            }
            key
        })
        .collect();
    serde_json::from_value(json!({ "keys": keys })).unwrap()
}

fn token(header: Value, claims: Value) -> String {
    let part = |v: &Value| URL_SAFE_NO_PAD.encode(serde_json::to_vec(v).unwrap());
    format!("{}.{}.{}", part(&header), part(&claims), URL_SAFE_NO_PAD.encode(b"not-a-signature"))
}

fn expected() -> Expected {
    Expected { issuer: "https://id.test".into(), audience: "mnote-pageai".into() }
}

#[test]
fn the_algorithm_is_the_keys() {
    let keys = set(&[("ec", "e", None), ("rsa", "r", None), ("ed", "d", None), ("rsa", "x", Some("ES256"))]);
    let alg = |kid: &str| keys.find(kid).and_then(algorithm_of);
    assert_eq!(alg("e"), Some(Algorithm::ES256));
    assert_eq!(alg("r"), Some(Algorithm::RS256));
    assert_eq!(alg("d"), Some(Algorithm::EdDSA));
    assert_eq!(alg("x"), None, "a key whose alg disagrees with its type is never used");
    let oct: JwkSet = serde_json::from_value(json!({"keys": [{"kty": "oct", "kid": "h", "k": "c2VjcmV0"}]})).unwrap();
    assert_eq!(oct.find("h").and_then(algorithm_of), None, "symmetric keys are never accepted");
}

#[test]
fn a_header_algorithm_other_than_the_keys_is_refused() {
    let keys = set(&[("ec", "e", None)]);
    let claims = json!({"sub": "u", "iss": "https://id.test", "aud": "mnote-pageai", "exp": 4_000_000_000u64});
    for alg in ["HS256", "RS256", "EdDSA"] {
        let refused = verify(&token(json!({"alg": alg, "kid": "e"}), claims.clone()), &keys, &expected());
        assert!(matches!(refused, Err(Refusal::WrongAlgorithm { .. })), "{alg}: {refused:?}");
    }
    let none = verify(&token(json!({"alg": "none", "kid": "e"}), claims.clone()), &keys, &expected());
    assert!(matches!(none, Err(Refusal::Malformed(_))), "{none:?}");
    let forged = verify(&token(json!({"alg": "ES256", "kid": "e"}), claims), &keys, &expected());
    assert!(matches!(forged, Err(Refusal::Rejected(_))), "{forged:?}");
}

#[test]
fn keys_are_picked_by_kid_or_as_the_only_one() {
    let two = set(&[("ec", "a", None), ("ed", "b", None)]);
    assert!(pick(&two, Some("b")).is_some());
    assert!(pick(&two, Some("c")).is_none());
    assert!(pick(&two, None).is_none(), "with several keys the token must name one");
    assert!(pick(&set(&[("ec", "a", None)]), None).is_some());
    let claims = json!({"sub": "u"});
    let unknown = verify(&token(json!({"alg": "ES256", "kid": "c"}), claims), &two, &expected());
    assert_eq!(unknown.err(), Some(Refusal::UnknownKey(Some("c".into()))));
}

#[test]
fn claims_give_the_user_and_known_roles() {
    let claims: Claims = serde_json::from_value(json!({
        "sub": "user_ana",
        "exp": 1,
        "mnote": {"workspaces": {"ws_a": "editor", "ws_b": "owner", "ws_c": "admin"}}
    }))
    .unwrap();
    let who = principal_of(claims).unwrap();
    assert_eq!(who.user, "user_ana");
    assert_eq!(who.role_in("ws_a"), Some(Role::Editor));
    assert_eq!(who.role_in("ws_b"), Some(Role::Owner));
    assert_eq!(who.role_in("ws_c"), None, "an unknown role name grants nothing");
    let bare: Claims = serde_json::from_value(json!({"sub": "u", "exp": 1})).unwrap();
    assert!(principal_of(bare).unwrap().workspaces.is_empty());
    let control: Claims = serde_json::from_value(json!({"sub": "a\nb", "exp": 1})).unwrap();
    assert!(principal_of(control).is_err());
}
