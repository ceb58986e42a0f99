//! The derived readers (`#[derive(Read)]`, `pageai_core::json::Read`) against serde's derive on what the
//! wire shapes of `main.rs` do not cover: enums given every way serde takes them, every integer width, floats,
//! maps, short name lists, every rename rule, defaults, `transparent`, `rename` and `skip`.

use super::*;

#[test]
fn derived_readers_agree_on_enums_names_and_numbers() {
    // What `#[derive(Read)]` writes beyond the wire shapes of `main.rs`: struct variants, a unit variant given as
    // an object, the wordings of a short list of names, every integer width, floats, boxes and maps.
    #[derive(Debug, serde::Deserialize, Read, Serialize)]
    #[serde(rename_all = "snake_case", rename_all_fields = "camelCase", deny_unknown_fields)]
    enum E {
        Unit,
        TwoWords,
        Struct {
            a_b: u8,
            #[serde(default)]
            c: Option<String>,
        },
    }
    #[derive(Debug, serde::Deserialize, Read, Serialize)]
    #[serde(deny_unknown_fields)]
    struct One {
        only: bool,
    }
    #[derive(Debug, serde::Deserialize, Read, Serialize)]
    #[serde(deny_unknown_fields)]
    struct Two {
        a: u16,
        b: u32,
    }
    #[derive(Debug, serde::Deserialize, Read, Serialize)]
    #[serde(deny_unknown_fields)]
    struct Nothing {}
    #[derive(Debug, serde::Deserialize, Read, Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Holder {
        e: Vec<E>,
        m: std::collections::BTreeMap<String, Option<u16>>,
        #[serde(default)]
        big_n: i64,
        f: Option<f64>,
        x: Option<Box<usize>>,
        one: Option<One>,
        two: Option<Two>,
        nothing: Option<Nothing>,
        #[serde(default)]
        small: Vec<u8>,
    }
    let cases = [
        json!({"e": ["unit", "two_words", {"struct": {"aB": 1}}], "m": {"k": null, "l": 3}, "bigN": -4, "f": 1.5}),
        json!({"e": [{"unit": null}], "m": {}, "f": 2, "x": 7}),
        json!({"e": [{"unit": 3}], "m": {}}),
        json!({"e": [{"two_words": {}}], "m": {}}),
        json!({"e": ["struct"], "m": {}}),
        json!({"e": [{"struct": 1}], "m": {}}),
        json!({"e": [{"struct": {"aB": 1, "d": 1}}], "m": {}}),
        json!({"e": [{"struct": {"c": "x"}}], "m": {}}),
        json!({"e": [{"struct": {"aB": 300}}], "m": {}}),
        json!({"e": [{"nope": 1}], "m": {}}),
        json!({"e": [{"unit": null, "struct": {}}], "m": {}}),
        json!({"e": [4], "m": {}}),
        json!({"e": [], "m": {"a/b~c": 70000}}),
        json!({"e": [], "m": {"a": -1}}),
        json!({"e": [], "m": [], "bigN": 1.5}),
        json!({"e": [], "m": {}, "bigN": 18446744073709551615u64}),
        json!({"e": [], "m": {}, "f": "1"}),
        json!({"e": [], "m": {}, "x": -3}),
        json!({"e": [], "m": {}, "one": {"only": true, "other": 1}}),
        json!({"e": [], "m": {}, "one": {}}),
        json!({"e": [], "m": {}, "two": {"a": 1, "b": 2, "c": 3}}),
        json!({"e": [], "m": {}, "two": {"a": 70000, "b": 5000000000u64}}),
        json!({"e": [], "m": {}, "two": {"b": -1}}),
        json!({"e": [], "m": {}, "nothing": {"z": 1}}),
        json!({"e": [], "m": {}, "nothing": "x"}),
        json!({"e": [], "m": {}, "small": [1, 256, true]}),
        json!({"e": [], "m": {}, "small": "x", "zz": 1}),
        json!({"m": {}}),
        json!({}),
        json!(null),
    ];
    for case in cases {
        assert_eq!(core_answer::<Holder>(&case), oracle_answer::<Holder>(&case), "{case}");
    }
}

#[test]
fn derived_readers_follow_every_rename_rule_and_field_attribute() {
    // serde's rename rules, on fields and on variants, and the field attributes `#[derive(Read)]` reads.
    macro_rules! rule {
        ($name:ident, $enum:ident, $rule:literal) => {
            #[derive(Debug, serde::Deserialize, Read, Serialize)]
            #[serde(rename_all = $rule, deny_unknown_fields)]
            struct $name {
                two_words: Option<u8>,
                #[serde(default)]
                r#type: Option<$enum>,
            }
            #[derive(Debug, serde::Deserialize, Read, Serialize)]
            #[serde(rename_all = $rule)]
            enum $enum {
                TwoWords,
                One,
            }
        };
    }
    rule!(Lower, LowerE, "lowercase");
    rule!(Upper, UpperE, "UPPERCASE");
    rule!(Pascal, PascalE, "PascalCase");
    rule!(Camel, CamelE, "camelCase");
    rule!(Snake, SnakeE, "snake_case");
    rule!(Screaming, ScreamingE, "SCREAMING_SNAKE_CASE");
    rule!(Kebab, KebabE, "kebab-case");
    rule!(ScreamingKebab, ScreamingKebabE, "SCREAMING-KEBAB-CASE");

    fn seven() -> u8 {
        7
    }
    fn null_as_seven<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
        Ok(<Option<u8> as serde::Deserialize>::deserialize(d)?.unwrap_or_else(seven))
    }
    #[derive(Debug, Default, PartialEq, serde::Deserialize, Read, Serialize)]
    #[serde(transparent)]
    struct Ids(Vec<String>);
    #[derive(Debug, serde::Deserialize, Read, Serialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Fields {
        #[serde(default = "seven")]
        by_path: u8,
        #[serde(default = "seven", deserialize_with = "null_as_seven")]
        #[read(null_as_default)]
        null_as_path: u8,
        #[serde(rename = "renamed")]
        ids: Ids,
        #[serde(skip)]
        skipped: Option<u8>,
        #[serde(default)]
        by_default: Ids,
    }
    let names = ["two_words", "twoWords", "TwoWords", "TWO_WORDS", "two-words", "TWO-WORDS", "twowords", "TWOWORDS"];
    let types = ["two_words", "twoWords", "TwoWords", "TWO_WORDS", "two-words", "TWO-WORDS", "twowords", "TWOWORDS"];
    let kinds = ["type", "Type", "TYPE"];
    for name in names {
        for (kind, ty) in kinds.iter().zip(types.iter().cycle().skip(names.len() / 2)) {
            for case in [json!({name: 3}), json!({name: 3, *kind: *ty}), json!({*kind: "one"}), json!({*kind: "One"})] {
                assert_eq!(core_answer::<Lower>(&case), oracle_answer::<Lower>(&case), "{case}");
                assert_eq!(core_answer::<Upper>(&case), oracle_answer::<Upper>(&case), "{case}");
                assert_eq!(core_answer::<Pascal>(&case), oracle_answer::<Pascal>(&case), "{case}");
                assert_eq!(core_answer::<Camel>(&case), oracle_answer::<Camel>(&case), "{case}");
                assert_eq!(core_answer::<Snake>(&case), oracle_answer::<Snake>(&case), "{case}");
                assert_eq!(core_answer::<Screaming>(&case), oracle_answer::<Screaming>(&case), "{case}");
                assert_eq!(core_answer::<Kebab>(&case), oracle_answer::<Kebab>(&case), "{case}");
                assert_eq!(core_answer::<ScreamingKebab>(&case), oracle_answer::<ScreamingKebab>(&case), "{case}");
            }
        }
    }
    for ty in types {
        for enumeration in [json!(ty), json!({ty: null})] {
            let case = json!({"type": enumeration});
            assert_eq!(core_answer::<Snake>(&case), oracle_answer::<Snake>(&case), "{case}");
            assert_eq!(core_answer::<Kebab>(&case), oracle_answer::<Kebab>(&case), "{case}");
        }
    }
    let cases = [
        json!({"renamed": ["a"]}),
        json!({"renamed": ["a"], "byPath": 1, "nullAsPath": null, "byDefault": ["b"]}),
        json!({"renamed": ["a"], "nullAsPath": 2}),
        json!({"renamed": "a"}),
        json!({"ids": ["a"]}),
        json!({"renamed": ["a"], "skipped": 1}),
        json!({"renamed": ["a"], "byPath": null}),
        json!({"renamed": ["a"], "byDefault": null}),
        json!({}),
    ];
    for case in cases {
        assert_eq!(core_answer::<Fields>(&case), oracle_answer::<Fields>(&case), "{case}");
    }
    #[derive(Debug, serde::Deserialize, Read, Serialize)]
    #[serde(default, deny_unknown_fields)]
    struct AllDefault {
        a: u8,
        b: Option<String>,
        #[serde(default = "seven")]
        c: u8,
    }
    impl Default for AllDefault {
        fn default() -> Self {
            AllDefault { a: 3, b: Some("b".into()), c: 4 }
        }
    }
    for case in [json!({}), json!({"a": 1}), json!({"b": null}), json!({"c": null}), json!({"d": 1}), json!(1)] {
        assert_eq!(core_answer::<AllDefault>(&case), oracle_answer::<AllDefault>(&case), "{case}");
    }
    // A skipped field is never read: its default.
    let read = from_value_ref::<Fields>(&json!({"renamed": []})).map(|fields| fields.skipped);
    assert_eq!(read.ok(), Some(None));
}
