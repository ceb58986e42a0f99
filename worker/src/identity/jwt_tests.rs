#![allow(clippy::unwrap_used, clippy::indexing_slicing, reason = "a failed expectation is the test's report")]
//! Key selection, the claim checks and the refusals that need no signature: the algorithm always comes from
//! the key. (Signatures are WebCrypto's: signed tokens of every kind are checked end to end, against keys
//! made by the test: tests/e2e/identity.test.mjs.)

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

/// The tests' clock.
const NOW: u64 = 1_800_000_000;

/// What the Worker answers when the signature is `signature_valid`.
fn verify_as(token: &str, keys: &JwkSet, expected: &Expected, signature_valid: bool) -> Result<Verified, Refusal> {
    check(token, keys, expected, NOW).and_then(|unverified| unverified.finish(signature_valid))
}

/// A token of made-up bytes: its signature never checks out.
fn verify(token: &str, keys: &JwkSet, expected: &Expected) -> Result<Verified, Refusal> {
    verify_as(token, keys, expected, false)
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
    let claims: claims::Claims = serde_json::from_value(json!({
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
    let bare: claims::Claims = serde_json::from_value(json!({"sub": "u", "exp": 1})).unwrap();
    assert!(principal_of(bare).unwrap().workspaces.is_empty());
    let control: claims::Claims = serde_json::from_value(json!({"sub": "a\nb", "exp": 1})).unwrap();
    assert!(principal_of(control).is_err());
}

fn valid_claims() -> Value {
    json!({"sub": "u", "iss": "https://id.test", "aud": "mnote-pageai", "exp": NOW + 600, "iat": NOW})
}

/// What a token with `claims` (and a valid signature) is answered.
fn with_claims(claims: Value) -> Result<Verified, Refusal> {
    verify_as(&token(json!({"alg": "ES256", "kid": "e"}), claims), &set(&[("ec", "e", None)]), &expected(), true)
}

fn refused(claims: Value) -> String {
    match with_claims(claims) {
        Err(Refusal::Rejected(why)) => why,
        other => format!("not refused: {other:?}"),
    }
}

#[test]
fn the_signature_check_names_the_keys_algorithm_and_the_signed_text() {
    let header = json!({"alg": "ES256", "kid": "e"});
    let text = token(header, valid_claims());
    let unverified = check(&text, &set(&[("ec", "e", None)]), &expected(), NOW).unwrap();
    let check = &unverified.signature;
    assert_eq!(check.algorithm, Algorithm::ES256);
    assert_eq!(Some(check.message.as_str()), text.rsplit_once('.').map(|(m, _)| m));
    assert_eq!(check.signature, b"not-a-signature");
    assert!(matches!(&check.key, PublicKey::P256(point) if point.len() == 65 && point[0] == 4));
    let rsa = check_with(&set(&[("rsa", "r", None)]), "RS256", "r");
    assert!(matches!(rsa, PublicKey::Rsa { ref e, .. } if e == &[1, 0, 1]));
    assert!(matches!(check_with(&set(&[("ed", "d", None)]), "EdDSA", "d"), PublicKey::Ed25519(ref x) if x.len() == 32));
}

fn check_with(keys: &JwkSet, alg: &str, kid: &str) -> PublicKey {
    check(&token(json!({"alg": alg, "kid": kid}), valid_claims()), keys, &expected(), NOW).unwrap().signature.key
}

#[test]
fn a_valid_signature_with_valid_claims_gives_the_user_until_exp() {
    let verified = with_claims(valid_claims()).unwrap();
    assert_eq!((verified.principal.user.as_str(), verified.expires_at), ("u", NOW + 600));
    let listed = json!({"sub": "u", "iss": ["x", "https://id.test"], "aud": ["mnote-pageai", "y"], "exp": NOW});
    assert!(with_claims(listed).is_ok(), "iss and aud may be arrays holding the expected one");
    let fraction = json!({"sub": "u", "iss": "https://id.test", "aud": "mnote-pageai", "exp": NOW, "nbf": 1.5});
    assert!(with_claims(fraction).is_ok(), "a numeric date may have a fraction");
}

#[test]
fn each_claim_check_refuses() {
    let with = |name: &str, value: Value| {
        let mut claims = valid_claims();
        claims[name] = value;
        refused(claims)
    };
    let without = |name: &str| {
        let mut claims = valid_claims();
        claims.as_object_mut().unwrap().remove(name);
        refused(claims)
    };
    // `exp` and `sub` are also fields of the claims read (as `jsonwebtoken` read them first).
    for claim in ["exp", "sub", "iss", "aud"] {
        let why = without(claim);
        assert!(why.contains("MissingRequiredClaim") || why.contains("missing field"), "{claim}: {why}");
    }
    assert_eq!(with("exp", json!(NOW - LEEWAY_SECONDS - 1)), "ExpiredSignature");
    assert_eq!(with("nbf", json!(NOW + LEEWAY_SECONDS + 1)), "ImmatureSignature");
    assert!(with("nbf", json!("soon")).contains("nbf"));
    assert_eq!(with("iss", json!("https://other.test")), "InvalidIssuer");
    assert_eq!(with("aud", json!(["other"])), "InvalidAudience");
    assert_eq!(with("aud", json!([])), "InvalidAudience");
    assert!(with("aud", json!(7)).contains("MissingRequiredClaim"), "an aud of another type is no aud");
    assert_eq!(with("iat", json!(NOW + LEEWAY_SECONDS + 1)), "iat is in the future");
    assert!(!with("exp", json!(-1)).starts_with("not refused"), "a negative exp is not a date");
}

#[test]
fn claims_within_the_skew_pass() {
    let mut claims = valid_claims();
    claims["exp"] = json!(NOW - LEEWAY_SECONDS);
    claims["nbf"] = json!(NOW + LEEWAY_SECONDS);
    claims["iat"] = json!(NOW + LEEWAY_SECONDS);
    assert!(with_claims(claims).is_ok());
}

#[test]
fn a_bad_signature_is_refused_before_the_claims_are_read() {
    let expired = json!({"sub": "u", "iss": "https://id.test", "aud": "mnote-pageai", "exp": 1});
    let answer = verify(&token(json!({"alg": "ES256", "kid": "e"}), expired), &set(&[("ec", "e", None)]), &expected());
    assert_eq!(answer.err(), Some(Refusal::Rejected("InvalidSignature".into())));
}

#[test]
fn a_claim_named_twice_or_a_payload_of_another_shape_is_refused() {
    let keys = set(&[("ec", "e", None)]);
    let part = |text: &str| URL_SAFE_NO_PAD.encode(text);
    let header = part(r#"{"alg":"ES256","kid":"e"}"#);
    for payload in [
        r#"{"sub":"u","sub":"v","iss":"https://id.test","aud":"mnote-pageai","exp":4000000000}"#,
        r#"{"sub":"u","iss":"https://id.test","aud":"mnote-pageai","aud":"x","exp":4000000000}"#,
        r#"["sub"]"#,
        "not json",
    ] {
        let token = format!("{header}.{}.{}", part(payload), part("sig"));
        assert!(matches!(verify_as(&token, &keys, &expected(), true), Err(Refusal::Rejected(_))), "{payload}");
    }
}

#[test]
fn critical_extensions_other_than_b64_and_unencoded_payloads_are_refused() {
    let header = |extra: Value| {
        let mut header = json!({"alg": "ES256", "kid": "e"});
        for (k, v) in extra.as_object().unwrap() {
            header[k] = v.clone();
        }
        header
    };
    let keys = set(&[("ec", "e", None)]);
    let answer = |extra: Value| verify_as(&token(header(extra), valid_claims()), &keys, &expected(), true);
    assert!(answer(json!({"crit": ["b64"], "b64": true})).is_ok());
    for extra in [
        json!({"b64": false}),
        json!({"b64": "yes"}),
        json!({"crit": []}),
        json!({"crit": ["exp"]}),
        json!({"crit": ["b64"]}),
        json!({"crit": ["b64", "b64"], "b64": true}),
    ] {
        assert_eq!(answer(extra.clone()).err(), Some(Refusal::Rejected("InvalidToken".into())), "{extra}");
    }
}

#[test]
fn a_key_that_is_not_base64url_is_refused() {
    let keys: JwkSet =
        serde_json::from_value(json!({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "d", "x": "not base64!"}]}))
            .unwrap();
    let answer = verify_as(&token(json!({"alg": "EdDSA", "kid": "d"}), valid_claims()), &keys, &expected(), true);
    assert!(matches!(answer, Err(Refusal::Rejected(ref why)) if why.starts_with("key:")), "{answer:?}");
}
