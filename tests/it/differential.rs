//! Differential tests: the compiled validator (`toolsmith_core::validate::Validator`) must agree with
//! a full JSON Schema 2020-12 validator (the `jsonschema` crate, formats asserted) on every
//! keyword the schema generator emits, on edge values, and on pseudo-random instances against
//! the schemas of real `#[tool]` declarations.
//!
//! Where the two disagree on purpose, the case is listed in [`DELIBERATE`] with the reason.

use crate::common;

use common::instances::{instance_for, XorShift};
use serde_json::{json, Value};
use toolsmith_core::validate::Validator;

/// The reference verdict.
fn reference(schema: &Value, instance: &Value) -> bool {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("jsonschema rejects the schema {schema}: {e}"))
        .is_valid(instance)
}

/// Our verdict.
fn ours(schema: &Value, instance: &Value) -> bool {
    Validator::new(schema)
        .unwrap_or_else(|e| panic!("Validator::new rejects the schema {schema}: {e}"))
        .is_valid(instance)
}

/// Known, deliberate disagreements: (schema, instance, our verdict, why).
const DELIBERATE: &[(&str, &str, bool, &str)] = &[
    (
        r#"{"format":"email"}"#,
        r#""Ada <ada@example.com>""#,
        false,
        "a display name with an address in angle brackets is a header `name-addr` (RFC 5322), not \
         an RFC 5321 Mailbox, which is what format `email` means in JSON Schema 2020-12; the \
         `email_address` crate under jsonschema accepts display text by default",
    ),
    (
        r#"{"format":"hostname"}"#,
        r#""XN--bcher-kva.example""#,
        true,
        "host names are case-insensitive, the IDNA ACE prefix included (RFC 5890 section 2.3.2.1); \
         jsonschema only recognizes a lowercase `xn--`. We decode the Punycode of an A-label in \
         any case and check the Unicode label",
    ),
    (
        r#"{"pattern":"\\bb"}"#,
        r#""éb""#,
        true,
        "ECMA-262 defines `\\b` by its `\\w`, which is [A-Za-z0-9_] (without the `i` flag): `é` is \
         not a word character, so there is a boundary before `b`. jsonschema treats `\\w` as ASCII \
         but `\\b` as Unicode-aware, which is inconsistent",
    ),
];

fn deliberate(schema: &Value, instance: &Value) -> Option<bool> {
    DELIBERATE.iter().find_map(|(s, i, verdict, _)| {
        let s: Value = serde_json::from_str(s).ok()?;
        let i: Value = serde_json::from_str(i).ok()?;
        (s == *schema && i == *instance).then_some(*verdict)
    })
}

/// Checks a table of schemas × instances; panics listing every disagreement.
fn check_table(table: &[(Value, Vec<Value>)]) {
    let mut disagreements = Vec::new();
    for (schema, instances) in table {
        let (mut valid, mut invalid) = (0, 0);
        for x in instances {
            let expected = reference(schema, x);
            if expected {
                valid += 1;
            } else {
                invalid += 1;
            }
            let got = ours(schema, x);
            match deliberate(schema, x) {
                Some(verdict) => assert_eq!(
                    got, verdict,
                    "the deliberate deviation for {schema} / {x} no longer holds"
                ),
                None if got != expected => disagreements.push(format!(
                    "schema {schema}\n  instance {x}\n  jsonschema: {expected}, ours: {got}"
                )),
                None => {}
            }
        }
        // Each row proves both directions.
        assert!(
            valid > 0 && invalid > 0,
            "the row for {schema} needs valid and invalid instances ({valid} valid, {invalid} invalid)"
        );
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreement(s):\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

fn row(schema: Value, instances: &[Value]) -> (Value, Vec<Value>) {
    (schema, instances.to_vec())
}

/// A value serde_json can only hold as a float (beyond u64).
fn big(text: &str) -> Value {
    serde_json::from_str(text).expect("a JSON number")
}

#[test]
fn types() {
    let any = [
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(-0.0),
        json!(1.0),
        json!(1.5),
        json!(-7),
        json!(u64::MAX),
        json!(i64::MIN),
        big("1e300"),
        big("100000000000000000000"),
        json!(""),
        json!("1"),
        json!([]),
        json!([1]),
        json!({}),
        json!({"a": 1}),
    ];
    check_table(&[
        row(json!({"type": "null"}), &any),
        row(json!({"type": "boolean"}), &any),
        row(json!({"type": "integer"}), &any),
        row(json!({"type": "number"}), &any),
        row(json!({"type": "string"}), &any),
        row(json!({"type": "array"}), &any),
        row(json!({"type": "object"}), &any),
        row(json!({"type": ["string", "null"]}), &any),
        row(json!({"type": ["integer", "boolean"]}), &any),
    ]);
}

#[test]
fn enum_and_const() {
    check_table(&[
        row(
            json!({"enum": ["a", 1, null, [1, 2], {"k": true}, false]}),
            &[
                json!("a"),
                json!(1),
                json!(1.0),
                json!(null),
                json!([1, 2]),
                json!([1.0, 2]),
                json!([2, 1]),
                json!({"k": true}),
                json!({"k": 1}),
                json!(false),
                json!(0),
                json!(true),
                json!("A"),
                json!(""),
            ],
        ),
        row(
            json!({"const": {"a": [1, {"b": 2}], "c": "x"}}),
            &[
                json!({"c": "x", "a": [1, {"b": 2}]}),
                json!({"a": [1.0, {"b": 2.0}], "c": "x"}),
                json!({"a": [1, {"b": 2}]}),
                json!({"a": [1, {"b": 2}], "c": "x", "d": null}),
            ],
        ),
        row(
            json!({"const": 0}),
            &[json!(0), json!(-0.0), json!(0.0), json!(false), json!(null)],
        ),
        row(
            json!({"const": false}),
            &[json!(false), json!(0), json!(null), json!("false")],
        ),
        row(
            json!({"type": "string", "enum": ["é", "e\u{301}"]}),
            &[json!("é"), json!("e\u{301}"), json!("e")],
        ),
    ]);
}

#[test]
fn string_lengths() {
    let strings = [
        json!(""),
        json!("a"),
        json!("ab"),
        json!("abc"),
        json!("é"),
        json!("éé"),
        json!("e\u{301}"),
        json!("🙂"),
        json!("🙂🙂"),
        json!("🙂🙂🙂"),
        json!("👩‍👩‍👧"),
        json!("\u{0}"),
        json!(12),
        json!(null),
    ];
    check_table(&[
        row(json!({"minLength": 2}), &strings),
        row(json!({"maxLength": 2}), &strings),
        row(
            json!({"type": "string", "minLength": 1, "maxLength": 1}),
            &strings,
        ),
        row(json!({"type": "string", "maxLength": 0}), &strings),
        row(json!({"type": "string", "minLength": 5}), &strings),
    ]);
}

#[test]
fn patterns() {
    let strings = [
        json!(""),
        json!("abc"),
        json!("ABC"),
        json!("TNT-12"),
        json!("tnt-12"),
        json!("TNT-12 "),
        json!("xTNT-12"),
        json!("123"),
        json!("١٢٣"),
        json!("é"),
        json!("a b"),
        json!("a\nb"),
        json!("a_b"),
        json!("🙂"),
        json!("éb"),
        json!("\u{feff}"),
        json!("\u{85}"),
        json!("\u{a0}"),
        json!("a-b"),
        json!(42),
    ];
    check_table(&[
        row(json!({"pattern": "^[A-Z]{3}-[0-9]+$"}), &strings),
        row(json!({"pattern": "b"}), &strings),
        row(json!({"pattern": "^\\d+$"}), &strings),
        row(json!({"pattern": "^\\w+$"}), &strings),
        row(json!({"pattern": "^[^\\d]+$"}), &strings),
        row(json!({"pattern": "\\s"}), &strings),
        row(json!({"pattern": "^.$"}), &strings),
        row(json!({"pattern": "^\\p{L}+$"}), &strings),
        row(json!({"pattern": "^(?:a|b)+$"}), &strings),
        row(json!({"pattern": "^$"}), &strings),
        row(json!({"pattern": "\\bb"}), &strings),
        row(json!({"pattern": "^[\\w-]+$"}), &strings),
        row(json!({"pattern": "^[\\W]+$"}), &strings),
        row(json!({"pattern": "^\\S+$"}), &strings),
        row(json!({"pattern": "^\\\\d$"}), &[json!("\\d"), json!("1")]),
    ]);
}

#[test]
fn formats() {
    check_table(&[
        row(
            json!({"format": "date-time"}),
            &[
                json!("2026-11-30T12:00:00Z"),
                json!("2026-11-30t12:00:00z"),
                json!("2026-11-30T12:00:00.123+01:00"),
                json!("2026-11-30T12:00:00-23:59"),
                json!("2026-11-30 12:00:00Z"),
                json!("2026-11-30T12:00:00"),
                json!("2026-11-30T24:00:00Z"),
                json!("2026-02-29T12:00:00Z"),
                json!("2024-02-29T12:00:00Z"),
                json!("2026-13-01T12:00:00Z"),
                json!("2026-11-30T12:00Z"),
                json!("2026-11-30T12:00:00.Z"),
                json!("2026-11-30T12:00:00+0100"),
                json!("1998-12-31T23:59:60Z"),
                json!("1998-12-31T15:59:60-08:00"),
                json!(""),
                json!(20261130),
            ],
        ),
        row(
            json!({"format": "date"}),
            &[
                json!("2026-11-30"),
                json!("2000-02-29"),
                json!("1900-02-29"),
                json!("2026-04-31"),
                json!("2026-1-30"),
                json!("26-11-30"),
                json!("2026/11/30"),
                json!("2026-11-30T00:00:00Z"),
                json!("٢٠٢٦-11-30"),
                json!("0000-01-01"),
                json!(""),
                json!(null),
            ],
        ),
        row(
            json!({"format": "time"}),
            &[
                json!("12:00:00Z"),
                json!("12:00:00.5+05:30"),
                json!("23:59:59z"),
                json!("12:00:00"),
                json!("12:00Z"),
                json!("25:00:00Z"),
                json!("12:60:00Z"),
                json!("12:00:00+24:00"),
                json!("23:59:60Z"),
                json!("12:00:60Z"),
                json!("15:59:60-08:00"),
                json!("00:29:60+00:30"),
                json!("23:59:60+01:00"),
                json!("12:00:00 Z"),
                json!(""),
            ],
        ),
        row(
            json!({"format": "email"}),
            &[
                json!("ada@example.com"),
                json!("first.last+tag@sub.example.org"),
                json!("ada@localhost"),
                json!("ada@"),
                json!("@example.com"),
                json!("ada"),
                json!("a da@example.com"),
                json!("ada@exam ple.com"),
                json!("ada@@example.com"),
                json!(".ada@example.com"),
                json!("ada.@example.com"),
                json!("a..da@example.com"),
                json!("ada@-example.com"),
                json!("ada@example.com."),
                json!("\"ada lovelace\"@example.com"),
                json!("\"a\\\"b\"@example.com"),
                json!("\"\"@example.com"),
                json!("ada@[192.0.2.1]"),
                json!("ada@[IPv6:2001:db8::1]"),
                json!("ada@[300.0.0.1]"),
                json!("Ada <ada@example.com>"),
                json!("jöhn@example.com"),
                json!("ada@exämple.com"),
                json!("!#$%&'*+-/=?^_`{|}~@example.com"),
                json!(format!("{}@example.com", "a".repeat(64))),
                json!(format!("{}@example.com", "a".repeat(65))),
                json!("ada@ab--cd.com"),
                json!(""),
                json!(5),
            ],
        ),
        row(
            json!({"format": "uuid"}),
            &[
                json!("123e4567-e89b-12d3-a456-426614174000"),
                json!("123E4567-E89B-12D3-A456-426614174000"),
                json!("00000000-0000-0000-0000-000000000000"),
                json!("123e4567e89b12d3a456426614174000"),
                json!("123e4567-e89b-12d3-a456-42661417400"),
                json!("123e4567-e89b-12d3-a456-4266141740000"),
                json!("g23e4567-e89b-12d3-a456-426614174000"),
                json!("{123e4567-e89b-12d3-a456-426614174000}"),
                json!(""),
            ],
        ),
        row(
            json!({"format": "ipv4"}),
            &[
                json!("192.0.2.1"),
                json!("0.0.0.0"),
                json!("255.255.255.255"),
                json!("256.0.0.1"),
                json!("1.2.3"),
                json!("1.2.3.4.5"),
                json!("01.2.3.4"),
                json!("1.2.3.4 "),
                json!("::1"),
                json!("١.2.3.4"),
                json!(""),
            ],
        ),
        row(
            json!({"format": "ipv6"}),
            &[
                json!("2001:db8::1"),
                json!("::1"),
                json!("::"),
                json!("::ffff:192.0.2.1"),
                json!("1:2:3:4:5:6:7:8"),
                json!("1:2:3:4:5:6:7:8:9"),
                json!("1::2::3"),
                json!("12345::1"),
                json!("fe80::1%eth0"),
                json!("192.0.2.1"),
                json!(" ::1"),
                json!(""),
            ],
        ),
        row(
            json!({"format": "hostname"}),
            &[
                json!("example.com"),
                json!("a"),
                json!("my-host.example"),
                json!("1.2.3.4"),
                json!("example.com."),
                json!("-example.com"),
                json!("example-.com"),
                json!("ex_ample.com"),
                json!("exa mple.com"),
                json!("ex..com"),
                json!("."),
                json!(format!("{}.com", "a".repeat(63))),
                json!(format!("{}.com", "a".repeat(64))),
                json!(vec!["abcdefghi"; 26].join(".")),
                json!("héllo.com"),
                json!("ab--cd.com"),
                json!("xn--bcher-kva.example"),
                json!("XN--bcher-kva.example"),
                json!(""),
            ],
        ),
        // Formats constrain strings only.
        row(
            json!({"format": "date", "type": ["string", "integer"]}),
            &[json!(20261130), json!("2026-11-30"), json!("30.11.2026")],
        ),
    ]);
}

#[test]
fn numeric_bounds() {
    let numbers = [
        json!(-1),
        json!(-0.0),
        json!(0),
        json!(0.0),
        json!(1e-300),
        json!(1),
        json!(2.5),
        json!(9.999),
        json!(10),
        json!(10.0),
        json!(10.000001),
        json!(11),
        json!(u64::MAX),
        json!(i64::MIN),
        big("1e300"),
        big("-1e300"),
        json!("5"),
    ];
    check_table(&[
        row(json!({"minimum": 0}), &numbers),
        row(json!({"maximum": 10}), &numbers),
        row(json!({"minimum": 0, "maximum": 10}), &numbers),
        row(json!({"exclusiveMinimum": 0}), &numbers),
        row(json!({"exclusiveMaximum": 10}), &numbers),
        row(
            json!({"exclusiveMinimum": 0, "exclusiveMaximum": 10.0}),
            &numbers,
        ),
        row(json!({"minimum": 2.5, "maximum": 9.999}), &numbers),
        row(
            json!({"type": "integer", "minimum": -1, "maximum": 10}),
            &numbers,
        ),
        // Integer bounds beyond f64 precision compare exactly.
        row(
            json!({"maximum": 9007199254740993_u64}),
            &[
                json!(9007199254740993_u64),
                json!(9007199254740994_u64),
                json!(9007199254740992_u64),
            ],
        ),
        row(
            json!({"minimum": u64::MAX}),
            &[json!(u64::MAX), json!(u64::MAX - 1), big("1e20")],
        ),
        row(
            json!({"exclusiveMaximum": i64::MIN + 1}),
            &[json!(i64::MIN), json!(i64::MIN + 1), big("-1e19")],
        ),
    ]);
}

#[test]
fn multiple_of() {
    check_table(&[
        row(
            json!({"multipleOf": 5}),
            &[
                json!(0),
                json!(-0.0),
                json!(5),
                json!(-15),
                json!(15.0),
                json!(12),
                json!(7.5),
                json!(u64::MAX),
                json!(18446744073709551610_u64),
                json!(i64::MIN),
                big("1e300"),
                json!("5"),
            ],
        ),
        row(
            json!({"multipleOf": 0.25}),
            &[
                json!(0),
                json!(1.75),
                json!(-0.5),
                json!(3),
                json!(1.1),
                json!(0.125),
                json!(1e15),
            ],
        ),
        row(
            json!({"multipleOf": 0.1}),
            &[
                json!(0.3),
                json!(0.7),
                json!(1.1),
                json!(4.35),
                json!(0.35),
                json!(0.05),
                json!(1),
            ],
        ),
        row(
            json!({"multipleOf": 0.01}),
            &[
                json!(19.99),
                json!(0.07),
                json!(100),
                json!(0.001),
                json!(1.005),
            ],
        ),
        row(
            json!({"multipleOf": 1.5}),
            &[json!(3), json!(4.5), json!(-1.5), json!(2), json!(1)],
        ),
        row(
            json!({"multipleOf": 0.123456789}),
            &[big("1e308"), json!(0), json!(0.246913578), json!(1)],
        ),
        row(
            json!({"type": "integer", "multipleOf": 0.5}),
            &[json!(1), json!(1.0), json!(1.5), json!(2)],
        ),
    ]);
}

#[test]
fn arrays() {
    check_table(&[
        row(
            json!({"minItems": 2, "maxItems": 3}),
            &[
                json!([]),
                json!([1]),
                json!([1, 2]),
                json!([1, 2, 3]),
                json!([1, 2, 3, 4]),
                json!("ab"),
                json!({"0": 1, "1": 2, "2": 3, "3": 4}),
            ],
        ),
        row(
            json!({"uniqueItems": true}),
            &[
                json!([]),
                json!([1]),
                json!([1, 2]),
                json!([1, 1]),
                json!([1, 1.0]),
                json!([0, -0.0]),
                json!([0, false]),
                json!([1, true]),
                json!([null, null]),
                json!(["a", "A"]),
                json!([[1, 2], [2, 1]]),
                json!([[1, 2], [1.0, 2]]),
                json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}]),
                json!([{"a": 1}, {"a": 1, "b": null}]),
                json!([{}, []]),
            ],
        ),
        row(
            json!({"uniqueItems": false, "maxItems": 2}),
            &[json!([1, 1]), json!([]), json!(3), json!([1, 1, 1])],
        ),
        row(
            json!({"type": "array", "items": {"type": "integer", "minimum": 0}}),
            &[
                json!([]),
                json!([0, 1, 2]),
                json!([0, 1.0]),
                json!([0, -1]),
                json!([0, 0.5]),
                json!(["0"]),
            ],
        ),
        row(
            json!({"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false}),
            &[
                json!([]),
                json!(["a"]),
                json!(["a", 1]),
                json!(["a", 1, 2]),
                json!([1, "a"]),
                json!(["a", 1.5]),
                json!({"0": "a"}),
            ],
        ),
        row(
            json!({"prefixItems": [{"type": "string"}], "items": {"type": "boolean"}, "minItems": 2}),
            &[
                json!(["a", true, false]),
                json!(["a"]),
                json!(["a", "b"]),
                json!([true, true]),
            ],
        ),
        row(
            json!({"prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false, "maxItems": 1}),
            &[json!([]), json!(["a"]), json!(["a", 1])],
        ),
        row(
            json!({"items": false}),
            &[json!([]), json!([1]), json!("x")],
        ),
    ]);
}

#[test]
fn objects() {
    check_table(&[
        row(
            json!({
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                "required": ["a"],
                "additionalProperties": false
            }),
            &[
                json!({"a": "x"}),
                json!({"a": "x", "b": 1}),
                json!({"a": "x", "b": 1.0}),
                json!({}),
                json!({"b": 1}),
                json!({"a": 1}),
                json!({"a": "x", "c": 1}),
                json!({"a": "x", "b": null}),
                json!([]),
                json!(null),
            ],
        ),
        row(
            json!({
                "properties": {"a": {"type": "string"}},
                "additionalProperties": {"type": "integer", "minimum": 0}
            }),
            &[
                json!({}),
                json!({"a": "x", "n": 1, "m": 2}),
                json!({"a": "x", "n": -1}),
                json!({"a": 1}),
                json!({"n": "1"}),
                json!("not an object"),
            ],
        ),
        row(
            json!({"required": ["a", "b"]}),
            &[
                json!({"a": 1, "b": null}),
                json!({"a": 1}),
                json!({}),
                json!([]),
                json!("a"),
            ],
        ),
        row(
            json!({"properties": {"a": false}}),
            &[json!({}), json!({"a": null}), json!({"b": 1})],
        ),
        row(
            json!({"additionalProperties": false}),
            &[json!({}), json!({"a": 1}), json!([1])],
        ),
        row(
            json!({"type": "object", "properties": {"inner": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"], "additionalProperties": false}}}),
            &[
                json!({"inner": {"x": 1.5}}),
                json!({"inner": {}}),
                json!({"inner": {"x": 1, "y": 2}}),
                json!({"inner": {"x": "1"}}),
                json!({}),
            ],
        ),
    ]);
}

#[test]
fn combinators() {
    check_table(&[
        row(
            json!({"oneOf": [{"type": "integer"}, {"minimum": 2}]}),
            &[json!(1), json!(2.5), json!(3), json!(1.5), json!("x")],
        ),
        row(
            json!({"oneOf": [{"const": "a", "title": "A."}, {"const": "b", "title": "B."}]}),
            &[json!("a"), json!("b"), json!("c"), json!(null)],
        ),
        row(
            json!({"oneOf": [
                {"type": "object", "properties": {"kind": {"type": "string", "const": "circle"}, "r": {"type": "number"}}, "required": ["kind", "r"]},
                {"type": "object", "properties": {"kind": {"type": "string", "const": "square"}, "s": {"type": "number"}}, "required": ["kind", "s"]}
            ]}),
            &[
                json!({"kind": "circle", "r": 1}),
                json!({"kind": "square", "s": 1}),
                json!({"kind": "circle", "r": 1, "s": 2}),
                json!({"kind": "circle", "s": 1}),
                json!({"kind": "triangle"}),
                json!({"r": 1}),
                json!("circle"),
            ],
        ),
        row(
            json!({"anyOf": [{"type": "string", "maxLength": 2}, {"type": "integer"}]}),
            &[
                json!("ab"),
                json!("abc"),
                json!(3),
                json!(3.0),
                json!(3.5),
                json!(null),
            ],
        ),
        row(
            json!({"allOf": [{"minimum": 0}, {"maximum": 10}, {"multipleOf": 2}]}),
            &[
                json!(0),
                json!(4),
                json!(10),
                json!(3),
                json!(12),
                json!(-2),
                json!("4"),
            ],
        ),
        row(
            json!({"anyOf": [{"type": "integer"}, {"type": "null"}], "minimum": 1}),
            &[json!(1), json!(null), json!(0), json!("1")],
        ),
        row(
            json!({"oneOf": [{"type": "number"}, {"type": "integer"}]}),
            &[json!(1), json!(1.5), json!(1.0), json!("1")],
        ),
        row(
            json!({"type": "object", "allOf": [{"required": ["a"]}, {"properties": {"a": {"type": "integer"}}}]}),
            &[json!({"a": 1}), json!({}), json!({"a": "x"})],
        ),
    ]);
}

#[test]
fn references() {
    let tree = json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node"}},
        "required": ["root"],
        "additionalProperties": false,
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
                },
                "required": ["name", "children"]
            }
        }
    });
    let list = json!({
        "$defs": {
            "Link": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "next": {"anyOf": [{"$ref": "#/$defs/Link"}, {"type": "null"}]}
                },
                "required": ["value"],
                "additionalProperties": false
            }
        },
        "$ref": "#/$defs/Link"
    });
    check_table(&[
        row(
            tree,
            &[
                json!({"root": {"name": "a", "children": []}}),
                json!({"root": {"name": "a", "children": [{"name": "b", "children": [{"name": "c", "children": []}]}]}}),
                json!({"root": {"name": "a", "children": [{"name": "b", "children": [{"name": "", "children": []}]}]}}),
                json!({"root": {"name": "a", "children": [{"name": "b"}]}}),
                json!({"root": {"name": "a", "children": [5]}}),
                json!({"root": {"name": "a", "children": []}, "x": 1}),
                json!({}),
            ],
        ),
        row(
            list,
            &[
                json!({"value": 1}),
                json!({"value": 1, "next": null}),
                json!({"value": 1, "next": {"value": 2, "next": {"value": 3}}}),
                json!({"value": 1, "next": {"value": 2, "next": {"value": 3.5}}}),
                json!({"value": 1, "next": {"value": 2, "extra": true}}),
                json!({"next": null}),
            ],
        ),
        row(
            json!({"$defs": {"Pos": {"type": "integer", "minimum": 1}}, "properties": {"n": {"$ref": "#/$defs/Pos", "maximum": 5}}}),
            &[
                json!({"n": 1}),
                json!({"n": 5}),
                json!({"n": 0}),
                json!({"n": 6}),
                json!({}),
            ],
        ),
        row(
            json!({"definitions": {"S": {"type": "string"}}, "items": {"$ref": "#/definitions/S"}}),
            &[json!(["a"]), json!([1]), json!([])],
        ),
    ]);
}

#[test]
fn boolean_schemas() {
    let any = [json!(null), json!(1), json!("a"), json!([]), json!({})];
    check_table(&[
        row(json!({"oneOf": [true, {"type": "string"}]}), &any),
        row(
            json!({"properties": {"a": true, "b": false}}),
            &[json!({"a": 1}), json!({"b": 1}), json!({})],
        ),
        row(
            json!({"items": true, "prefixItems": [false]}),
            &[json!([]), json!([1]), json!({})],
        ),
        row(json!({"anyOf": [false, {"type": "string"}]}), &any),
        row(json!({"allOf": [true, {"type": "integer"}]}), &any),
    ]);
    // Root boolean schemas: every instance agrees on one side only.
    for x in any {
        assert_eq!(ours(&json!(true), &x), reference(&json!(true), &x));
        assert_eq!(ours(&json!(false), &x), reference(&json!(false), &x));
        assert!(ours(&json!(true), &x) && !ours(&json!(false), &x));
    }
}

/// Keywords outside the compiled set run through the full validator (the fallback), which is the
/// `jsonschema` crate itself: comparing with it would judge the fallback by itself. The verdicts
/// here are written by hand from the 2020-12 specification, for the compiled checks and the
/// fallback combined (each row has instances refused by each side). `jsonschema` must give the
/// same verdicts, which checks the table, not the validator.
#[test]
fn fallback_keywords() {
    let table: [(Value, &[(Value, bool)]); 7] = [
        (
            json!({"type": "string", "not": {"enum": ["x"]}, "maxLength": 2}),
            &[
                (json!("a"), true),
                (json!("xy"), true),
                (json!("x"), false),   // `not` (fallback)
                (json!("abc"), false), // `maxLength` (compiled)
                (json!(1), false),     // `type` (compiled)
            ],
        ),
        (
            json!({"if": {"type": "integer"}, "then": {"minimum": 5}, "else": {"type": "string"}}),
            &[
                (json!(5), true),
                (json!(40), true),
                (json!("a"), true),
                (json!(4), false),
                (json!(4.5), false),
                (json!(null), false),
            ],
        ),
        (
            json!({"type": "object", "minProperties": 1, "properties": {"a": {"type": "integer"}}}),
            &[
                (json!({"a": 1}), true),
                (json!({"b": "x"}), true),
                (json!({}), false),         // `minProperties` (fallback)
                (json!({"a": "x"}), false), // `properties` (compiled)
                (json!([1]), false),
            ],
        ),
        (
            json!({"contains": {"const": 1}, "items": {"type": "integer"}}),
            &[
                (json!([1, 2]), true),
                (json!([2, 1]), true),
                (json!("not an array"), true), // both keywords apply to arrays only
                (json!([2]), false),
                (json!([]), false),
                (json!([1, "a"]), false),
            ],
        ),
        (
            json!({"patternProperties": {"^x-": {"type": "string"}}, "additionalProperties": false}),
            &[
                (json!({"x-a": "b"}), true),
                (json!({}), true),
                (json!({"x-a": 1}), false),
                (json!({"y": "b"}), false),
                (json!({"ax-": "b"}), false), // the pattern is anchored at the start
            ],
        ),
        (
            json!({"type": "string", "format": "uri"}),
            &[
                (json!("https://example.com/a?b#c"), true),
                (json!("urn:isbn:0451450523"), true),
                (json!("not a uri"), false),
                (json!("/relative/path"), false), // a URI has a scheme
                (json!(3), false),
            ],
        ),
        (
            json!({"type": "object", "properties": {"n": {"type": "integer"}}, "dependentRequired": {"a": ["b"]}}),
            &[
                (json!({"a": 1, "b": 2}), true),
                (json!({"b": 2}), true),
                (json!({"a": 1}), false), // `dependentRequired` (fallback)
                (json!({"a": 1, "b": 2, "n": "x"}), false), // `properties` (compiled)
            ],
        ),
    ];
    let (mut wrong, mut table_wrong) = (Vec::new(), Vec::new());
    for (schema, cases) in &table {
        let compiled = Validator::new(schema).expect("compiles");
        assert!(compiled.uses_fallback(), "{schema} should use the fallback");
        assert!(
            cases.iter().any(|(_, v)| *v) && cases.iter().any(|(_, v)| !*v),
            "{schema}: each row has valid and invalid instances"
        );
        for (instance, expected) in *cases {
            let got = compiled.is_valid(instance);
            if got != *expected {
                wrong.push(format!(
                    "{schema} / {instance}: ours {got}, expected {expected}"
                ));
            }
            if reference(schema, instance) != *expected {
                table_wrong.push(format!("{schema} / {instance}: expected {expected}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(
        table_wrong.is_empty(),
        "jsonschema disagrees with the table's verdicts:\n{}",
        table_wrong.join("\n")
    );
    // A pattern only a backtracking engine can run (a look-ahead) is refused when the schema is
    // compiled: arguments never reach a backtracking engine (issue 12, item 8). It used to be
    // checked by the fallback with fancy-regex.
    let lookahead = json!({"type": "string", "pattern": "^(?=.*[0-9])[a-z0-9]+$"});
    let err = Validator::new(&lookahead).expect_err("a look-ahead is refused");
    assert!(err.to_string().contains("look-around"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Pseudo-random instances (tests/common/instances.rs) against the schemas of real tools
// (tests/common/validation_tools.rs).
// ---------------------------------------------------------------------------------------------

#[test]
fn random_instances_against_tool_schemas() {
    let tools = common::validation_tools::tools_under_test();
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut disagreements = Vec::new();
    let (mut valid, mut invalid) = (0, 0);
    for tool in &tools {
        let spec = tool.spec();
        let mut schemas = vec![("input", spec.input_schema.clone())];
        if let Some(out) = &spec.output_schema {
            schemas.push(("output", out.clone()));
        }
        for (which, schema) in schemas {
            let compiled = Validator::new(&schema).expect("the tool's schema compiles");
            assert!(
                !compiled.uses_fallback(),
                "{} {which}: generated schemas need no fallback",
                spec.name
            );
            let full = jsonschema::options()
                .should_validate_formats(true)
                .build(&schema)
                .expect("jsonschema compiles the tool's schema");
            for _ in 0..300 {
                let x = instance_for(&mut rng, &schema, &schema, 0);
                let expected = full.is_valid(&x);
                if expected {
                    valid += 1;
                } else {
                    invalid += 1;
                }
                if compiled.is_valid(&x) != expected {
                    disagreements.push(format!(
                        "{} {which}: {x}\n  jsonschema: {expected}",
                        spec.name
                    ));
                }
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreement(s):\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    // The generator exercises both sides.
    assert!(
        valid > 1000 && invalid > 1000,
        "{valid} valid, {invalid} invalid"
    );
}

// ---------------------------------------------------------------------------------------------
// The typed fast path against the validator: the generated decoders (typed decoding with the
// constraints compiled in) must never accept what the validator rejects, and a call must give
// the same envelope whichever path it takes. (The keyword cases of tests/it/validation.rs run
// through both paths in its `call` helper.)
// ---------------------------------------------------------------------------------------------

mod typed_tools {
    use super::common::validation_tools::{Colour, Size};
    use toolsmith::{model, tool, Tool};

    /// How urgent, e.g. "VERY_HIGH".
    #[model]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    #[derive(Debug)]
    #[allow(missing_docs)]
    pub enum Priority {
        Low,
        High,
        VeryHigh,
    }

    /// A postal address.
    #[model]
    #[derive(Debug)]
    pub struct Address {
        /// Street, e.g. "1 Main St".
        pub street: String,
        /// Postal code, e.g. 12345.
        pub zip: u32,
        /// Labels, e.g. ["home"].
        pub labels: Vec<String>,
        /// A note, e.g. "ring twice".
        pub note: Option<String>,
    }

    /// A contact, with a field of every type the fast path checks.
    #[model]
    #[serde(rename_all = "camelCase")]
    #[derive(Debug)]
    pub struct Contact {
        /// Full name, e.g. "Ada Lovelace".
        pub full_name: String,
        /// Age, e.g. 36.
        pub age: u8,
        /// Score, e.g. 0.5.
        pub score: f64,
        /// Ratio, e.g. 1.5.
        pub ratio: f32,
        /// Whether active, e.g. true.
        pub active: bool,
        /// Initial, e.g. "A".
        pub initial: char,
        /// Balance change, e.g. -3.
        pub delta: i64,
        /// Count, e.g. 3.
        pub count: usize,
        /// Small, e.g. -2.
        pub small: i16,
        /// Home address.
        pub home: Address,
        /// Work address.
        pub work: Option<Address>,
        /// Former addresses.
        pub previous: Vec<Address>,
        /// Priority, e.g. "LOW".
        pub priority: Priority,
        /// More priorities, e.g. ["HIGH"].
        pub more_priorities: Vec<Option<Priority>>,
        /// Size, e.g. "small" (a documented enum).
        pub size: Option<Size>,
        /// Colour, e.g. "red".
        pub colour: Option<Colour>,
    }

    /// A record with a field of a type the fast path does not check (a map).
    #[model]
    #[derive(Debug)]
    pub struct Tagged {
        /// Name, e.g. "a".
        pub name: String,
        /// Counts by tag, e.g. {"x": 1}.
        pub counts: std::collections::BTreeMap<String, u8>,
    }

    /// Saves a contact. Returns the decoded arguments.
    #[tool(read_only)]
    pub fn save_contact(
        /// The contact.
        contact: Contact,
        /// A backup contact.
        backup: Option<Contact>,
        /// One to three addresses.
        #[arg(min_items = 1, max_items = 3)]
        addresses: Option<Vec<Address>>,
        /// Distinct priorities, e.g. ["LOW", "HIGH"].
        #[arg(unique_items, max_items = 3)]
        priorities: Option<Vec<Priority>>,
    ) -> serde_json::Value {
        serde_json::json!({
            "contact": format!("{contact:?}"), "backup": format!("{backup:?}"),
            "addresses": format!("{addresses:?}"), "priorities": format!("{priorities:?}"),
        })
    }

    /// Sets a priority. Returns the decoded arguments.
    #[tool(read_only)]
    pub fn set_priority(
        /// The priority, e.g. "HIGH".
        priority: Priority,
        /// Addresses, e.g. [{"street": "x", "zip": 1, "labels": []}].
        #[arg(unique_items)]
        addresses: Option<Vec<Address>>,
    ) -> serde_json::Value {
        serde_json::json!({"priority": format!("{priority:?}"), "addresses": format!("{addresses:?}")})
    }

    /// Saves a tagged record. Returns the decoded arguments.
    #[tool(read_only)]
    pub fn save_tagged(
        /// The record.
        item: Tagged,
        /// A priority, up to 4 characters (a constraint on a model type).
        #[arg(max_length = 4)]
        priority: Option<Priority>,
    ) -> serde_json::Value {
        serde_json::json!({"item": format!("{item:?}"), "priority": format!("{priority:?}")})
    }

    /// Tags a note. Returns the decoded arguments.
    #[tool(read_only)]
    pub fn tag_note(
        /// Note id, e.g. "N-12".
        #[arg(pattern = "^N-[0-9]+$", max_length = 6)]
        id: String,
        /// Colour, e.g. "red".
        colour: Option<Colour>,
        /// Weights, e.g. [0.5, 1].
        #[arg(max_items = 3, unique_items)]
        weights: Option<Vec<f64>>,
        /// Offset, e.g. -3.
        #[arg(minimum = -5, exclusive_maximum = 5)]
        offset: Option<i8>,
        /// Initial, e.g. "a".
        initial: Option<char>,
        /// Scale, e.g. 1.5.
        scale: Option<f32>,
        /// Step, e.g. 0.5.
        #[arg(multiple_of = 0.5, maximum = 1000)]
        step: Option<f64>,
    ) -> serde_json::Value {
        serde_json::json!({
            "id": id, "colour": format!("{colour:?}"), "weights": weights, "offset": offset,
            "initial": initial, "scale": scale, "step": step,
        })
    }

    /// Lists pages. Returns the decoded arguments.
    #[tool(read_only)]
    pub async fn list_pages(
        /// Page size, e.g. 20.
        #[arg(default = 20, minimum = 1, maximum = 50)]
        size: u16,
        /// Tags, e.g. [["a"], ["b"]].
        #[arg(min_items = 1, unique_items)]
        tags: Option<Vec<Vec<String>>>,
    ) -> serde_json::Value {
        serde_json::json!({"size": size, "tags": tags})
    }

    pub fn all() -> Vec<Tool> {
        vec![
            tag_note::tool(),
            list_pages::tool(),
            save_contact::tool(),
            set_priority::tool(),
            save_tagged::tool(),
        ]
    }

    /// The tools whose every parameter type has a typed check without constraints the fast
    /// path leaves to the validator: a valid call falls back only for the general reasons.
    pub const FULLY_TYPED: &[&str] = &["save_contact", "count_folders", "add_chain"];
}

/// The validator's verdict on arguments, as the general path prepares them (a `null` optional
/// dropped first).
fn general_accepts(spec: &toolsmith_core::ToolSpec, args: &Value) -> bool {
    let mut args = if args.is_null() {
        json!({})
    } else {
        args.clone()
    };
    toolsmith_core::validate::strip_null_optionals(&spec.input_schema, &mut args);
    Validator::new(&spec.input_schema)
        .expect("the tool's schema compiles")
        .is_valid(&args)
}

/// Whether the general path may accept what the fast path leaves to it by design: an
/// integer-valued float (`3.0`, which the validator admits for integers and serde does not), a
/// float beyond 2^53, or a value of a type without a typed check (a user enum).
fn left_to_the_general_path(args: &Value, has_user_types: bool) -> bool {
    fn floats(v: &Value) -> bool {
        match v {
            Value::Number(n) => {
                !n.is_i64()
                    && !n.is_u64()
                    && n.as_f64()
                        .is_some_and(|f| f.fract() == 0.0 || f.abs() >= 9.007e15)
            }
            Value::Array(items) => items.iter().any(floats),
            Value::Object(map) => map.values().any(floats),
            _ => false,
        }
    }
    // `null` (or no arguments) stands for `{}` on the general path only, and a `null` parameter
    // with a default is dropped there, so the default applies; serde reads only an `Option`'s
    // `null`.
    let null_param = args
        .as_object()
        .is_some_and(|m| m.values().any(Value::is_null));
    has_user_types || args.is_null() || null_param || floats(args)
}

fn typed_toolboxes() -> (toolsmith::Toolbox, toolsmith::Toolbox) {
    (
        common::validation_tools::toolbox_with_tools(true, typed_tools::all()),
        common::validation_tools::toolbox_with_tools(false, typed_tools::all()),
    )
}

/// Runs one call through both toolboxes as a value and as text, adding any disagreement to
/// `failures`.
fn both_entries(
    rt: &tokio::runtime::Runtime,
    (fast, general): (&toolsmith::Toolbox, &toolsmith::Toolbox),
    name: &str,
    value: &serde_json::Value,
    text: &str,
    failures: &mut Vec<String>,
) {
    // Owned and borrowed: a borrowed value is read in place on the fast path and copied on the
    // general one, borrowed text is parsed like owned text.
    for args in [
        toolsmith::Arguments::Value(value.clone()),
        toolsmith::Arguments::ValueRef(value),
        toolsmith::Arguments::TextRef(text),
    ] {
        if let Err(e) = both_paths(rt, fast, general, name, args) {
            failures.push(e);
        }
    }
}

/// Fails with every disagreement found.
fn assert_agreed(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs one call through both toolboxes, by value and as text; returns the envelope.
fn both_paths(
    rt: &tokio::runtime::Runtime,
    fast: &toolsmith::Toolbox,
    general: &toolsmith::Toolbox,
    name: &str,
    args: toolsmith::Arguments,
) -> Result<toolsmith::Envelope, String> {
    let mut a = rt.block_on(fast.call(name, args.clone()));
    let mut b = rt.block_on(general.call(name, args.clone()));
    a.operation_id = None;
    b.operation_id = None;
    // A cut result is kept under a fresh record reference on each call.
    a.reference = a.reference.as_ref().map(|_| "ref".to_string());
    b.reference = b.reference.as_ref().map(|_| "ref".to_string());
    if a == b {
        Ok(a)
    } else {
        Err(format!(
            "{name} {args:?}\n  fast:    {}\n  general: {}",
            a.to_json(),
            b.to_json()
        ))
    }
}

#[test]
fn typed_decoding_agrees_with_the_validator_on_the_random_corpus() {
    let (fast_tb, general_tb) = typed_toolboxes();
    let rt = runtime();
    let mut tools = common::validation_tools::tools_under_test();
    tools.extend(typed_tools::all());
    let mut rng = XorShift(0xD1B5_4A32_D192_ED03);
    let mut failures = Vec::new();
    let (mut fast_accepted, mut fell_back, mut rejected, mut with_fast_path) = (0, 0, 0, 0);
    for tool in &tools {
        let spec = tool.spec();
        let schema = &spec.input_schema;
        // A user type among the parameters (enums, structs): the fast path leaves it to the
        // validator when sent.
        let has_user_types = !typed_tools::FULLY_TYPED.contains(&tool.name())
            && (tool.typed_accepts(json!({})).is_none()
                || schema.to_string().contains("\"enum\"")
                || schema.to_string().contains("\"oneOf\""));
        if tool.typed_accepts(json!({})).is_some() {
            with_fast_path += 1;
        }
        for _ in 0..400 {
            let x = instance_for(&mut rng, schema, schema, 0);
            let text = x.to_string();
            let accepts = general_accepts(spec, &x);
            let by_value = tool.typed_accepts(&x);
            let by_text = tool.typed_accepts(text.as_str());
            if by_value != by_text {
                failures.push(format!(
                    "{}: {x}: value {by_value:?}, text {by_text:?}",
                    spec.name
                ));
            }
            match by_value {
                Some(true) if !accepts => failures.push(format!(
                    "{}: {x}: the fast path accepts what the validator rejects",
                    spec.name
                )),
                Some(true) => fast_accepted += 1,
                Some(false) if accepts => {
                    fell_back += 1;
                    if !left_to_the_general_path(&x, has_user_types) {
                        failures.push(format!(
                            "{}: {x}: the validator accepts, the fast path fell back without a reason",
                            spec.name
                        ));
                    }
                }
                _ => {
                    if !accepts {
                        rejected += 1;
                    }
                }
            }
            both_entries(
                &rt,
                (&fast_tb, &general_tb),
                tool.name(),
                &x,
                &text,
                &mut failures,
            );
        }
    }
    assert_agreed(&failures);
    assert!(
        with_fast_path >= 8,
        "{with_fast_path} tools have a fast path"
    );
    assert!(
        fast_accepted > 1000 && rejected > 1000,
        "{fast_accepted} accepted by the fast path, {fell_back} fell back and were accepted, {rejected} rejected"
    );
}

#[test]
fn typed_decoding_agrees_on_texts_the_corpus_does_not_make() {
    let (fast_tb, general_tb) = typed_toolboxes();
    let rt = runtime();
    let cases: &[(&str, &str)] = &[
        ("search_text", ""),
        ("search_text", "   "),
        ("search_text", "null"),
        ("search_text", r#"["tent"]"#),
        ("search_text", r#"{"query": "tent", "query": "x"}"#),
        ("search_text", r#"{"query": "x", "query": "tent"}"#),
        ("search_text", r#"{"\u0071uery": "tent"}"#),
        ("search_text", r#" {"query": "tent", "code": null} "#),
        ("search_text", r#"{"query": "tent"} trailing"#),
        ("search_text", r#"{"query": "tent", "Query": "x"}"#),
        ("list_orders", "{}"),
        ("list_orders", r#"{"limit": null}"#),
        ("list_orders", r#"{"limit": 5.0}"#),
        ("list_orders", r#"{"limit": 1e1}"#),
        ("list_orders", r#"{"limit": 18446744073709551616}"#),
        ("list_offers", r#"{"max_price": 10000.0000000000001}"#),
        ("list_offers", r#"{"count": -9223372036854775809}"#),
        ("list_offers", r#"{"pack": 9007199254740995}"#),
        ("list_offers", r#"{"length": 1e300}"#),
        ("set_volume", r#"{"volume": 255}"#),
        ("set_volume", r#"{"volume": 256}"#),
        ("set_volume", r#"{"volume": -0}"#),
        ("echo_word", r#"{"word": "ha", "times": 3, "extra": 1}"#),
        ("compare_skus", r#"{"skus": ["A", "A"]}"#),
        ("compare_skus", r#"{"skus": ["A", "B", null]}"#),
        ("tag_note", r#"{"id": "N-1", "weights": [1, 1.0]}"#),
        ("tag_note", r#"{"id": "N-1", "weights": [0, -0.0]}"#),
        (
            "tag_note",
            r#"{"id": "N-1", "colour": "red", "offset": -5}"#,
        ),
        ("tag_note", r#"{"id": "N-1", "colour": "purple"}"#),
        ("tag_note", r#"{"id": "N-1", "offset": 5}"#),
        ("tag_note", r#"{"id": "N-1", "initial": "ab"}"#),
        ("tag_note", r#"{"id": "N-1", "scale": 1e300}"#),
        ("tag_note", r#"{"id": "N-1", "step": 999.5}"#),
        ("tag_note", r#"{"id": "N-1", "step": 0.25}"#),
        ("tag_note", r#"{"id": "N-１"}"#),
        ("tag_note", r#"{"id": "N-1234567"}"#),
        ("list_pages", r#"{"tags": [["a"], ["a"]]}"#),
        ("list_pages", r#"{"tags": []}"#),
        ("list_pages", r#"{"size": 0}"#),
        ("list_pages", r#"{}"#),
        ("get_time", "{}"),
        ("get_time", r#"{"x": 1}"#),
        ("set_priority", r#"{"priority": "HIGH"}"#),
        ("set_priority", r#"{"priority": "H\u0049GH"}"#),
        ("set_priority", r#"{"priority": "high"}"#),
        ("set_priority", r#"{"priority": {"HIGH": null}}"#),
        ("set_priority", r#"{"priority": ["HIGH"]}"#),
        (
            "set_priority",
            r#"{"priority": "LOW", "addresses": [{"street": "a", "zip": 1, "labels": [], "note": null}]}"#,
        ),
        (
            "set_priority",
            r#"{"priority": "LOW", "addresses": [{"street": "a", "zip": 1, "labels": [], "extra": 1}]}"#,
        ),
        (
            "set_priority",
            r#"{"priority": "LOW", "addresses": [["a", 1, [], null]]}"#,
        ),
        (
            "set_priority",
            r#"{"priority": "LOW", "addresses": [{"street": "a", "street": "b", "zip": 1, "labels": []}]}"#,
        ),
        (
            "set_priority",
            r#"{"priority": "LOW", "addresses": [{"str\u0065et": "a", "zip": 1, "labels": []}]}"#,
        ),
        (
            "set_priority",
            r#"{"priority": "LOW", "addresses": [{"street": "a", "zip": null, "labels": []}]}"#,
        ),
        (
            "set_priority",
            r#"{"priority": "LOW", "addresses": [{"street": "a", "zip": 1, "labels": []}, {"street": "a", "zip": 1, "labels": []}]}"#,
        ),
        (
            "set_priority",
            r#"{"priority": "LOW", "addresses": [{"street": "a", "zip": 1, "labels": []}, {"street": "a", "zip": 1, "labels": [], "note": null}]}"#,
        ),
        (
            "save_tagged",
            r#"{"item": {"name": "a", "counts": {"x": 1}}}"#,
        ),
        (
            "save_tagged",
            r#"{"item": {"name": "a", "counts": {}}, "priority": "LOW"}"#,
        ),
        (
            "count_folders",
            r#"{"root": {"name": "a", "children": [{"name": "b", "children": [], "x": 1}]}}"#,
        ),
        (
            "add_chain",
            r#"{"chain": {"value": 1, "next": {"value": 2, "next": null}}}"#,
        ),
        ("add_chain", r#"{"chain": {"value": 1, "next": [2, null]}}"#),
    ];
    let mut failures = Vec::new();
    for (name, text) in cases {
        let mut inputs = vec![toolsmith::Arguments::Text(text.to_string())];
        if let Ok(v) = serde_json::from_str::<Value>(text) {
            inputs.push(toolsmith::Arguments::Value(v));
        }
        for args in inputs {
            if let Err(e) = both_paths(&rt, &fast_tb, &general_tb, name, args) {
                failures.push(e);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Arguments that decode and fail the checks of one parameter are answered on the fast path from
/// that parameter's value alone; they must get exactly the general path's envelope: one problem
/// or several of the one parameter, a parameter with a default (left to the general path), two
/// failing parameters (left to it too), `null`s and unknown keys beside a failing one.
#[test]
fn one_invalid_parameter_is_answered_as_the_general_path_answers() {
    let (fast_tb, general_tb) = typed_toolboxes();
    let rt = runtime();
    let cases: &[(&str, &str)] = &[
        ("search_text", r#"{"query": "x"}"#),
        ("search_text", r#"{"query": "a much longer query"}"#),
        ("search_text", r#"{"query": "tent", "code": "tnt-1"}"#),
        ("search_text", r#"{"code": "TNT-1", "query": "x"}"#),
        ("search_text", r#"{"query": "x", "code": null}"#),
        ("search_text", r#"{"query": "x", "code": "bad"}"#),
        ("search_text", r#"{"query": "x", "other": 1}"#),
        ("search_text", r#"{"query": "x", "query": "y"}"#),
        ("tag_note", r#"{"id": "N-1234567"}"#),
        ("tag_note", r#"{"id": "X-1234567"}"#),
        ("tag_note", r#"{"id": "N-1", "offset": 5}"#),
        ("tag_note", r#"{"id": "N-1", "offset": -6}"#),
        ("tag_note", r#"{"id": "bad", "offset": 5}"#),
        ("tag_note", r#"{"id": "N-1", "step": 0.25}"#),
        ("list_offers", r#"{"pack": 7}"#),
        ("list_offers", r#"{"count": 51}"#),
        ("list_offers", r#"{"count": -6, "pack": 7}"#),
        ("list_orders", r#"{"limit": 0}"#),
        ("list_orders", r#"{"limit": 101, "newest_first": false}"#),
        ("list_pages", r#"{"size": 0}"#),
        ("list_pages", r#"{"size": 51, "tags": []}"#),
    ];
    let tools: Vec<toolsmith::Tool> = common::validation_tools::tools_under_test()
        .into_iter()
        .chain(typed_tools::all())
        .collect();
    let mut failures = Vec::new();
    let mut answered = 0;
    for (name, text) in cases {
        let value: Value = serde_json::from_str(text).expect("JSON");
        let tool = tools.iter().find(|t| t.name() == *name).expect("a tool");
        if tool.typed_accepts(*text) == Some(false) {
            answered += 1;
        }
        for args in [
            toolsmith::Arguments::Text(text.to_string()),
            toolsmith::Arguments::Value(value),
        ] {
            match both_paths(&rt, &fast_tb, &general_tb, name, args) {
                Ok(env) => assert_eq!(env.status, toolsmith::Status::InvalidInput, "{name} {text}"),
                Err(e) => failures.push(e),
            }
        }
    }
    assert!(answered > 10, "the cases are ones the fast path refuses");
    assert_agreed(&failures);
}

/// A current-thread runtime for the tests that call both toolboxes.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// JSON text of `v` where now and then an object repeats a key, with the same value or another
/// (serde_json's parsed value keeps the last one; serde's derived structs refuse a repeat).
fn text_with_repeats(rng: &mut XorShift, v: &Value, repeated: &mut bool) -> String {
    match v {
        Value::Object(map) if !map.is_empty() => {
            let mut parts: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", json!(k), text_with_repeats(rng, v, repeated)))
                .collect();
            if rng.chance(30) {
                let (k, v) = map
                    .iter()
                    .nth(rng.below(map.len() as u64) as usize)
                    .unwrap();
                let again = if rng.chance(50) {
                    v.clone()
                } else {
                    common::instances::random_value(rng, 2)
                };
                let at = rng.below(parts.len() as u64 + 1) as usize;
                parts.insert(at, format!("{}: {again}", json!(k)));
                *repeated = true;
            }
            format!("{{{}}}", parts.join(", "))
        }
        Value::Array(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|x| text_with_repeats(rng, x, repeated))
                .collect();
            format!("[{}]", parts.join(", "))
        }
        other => other.to_string(),
    }
}

/// Now and then replaces a value inside the arguments by `null` (the generator follows the
/// schemas, which do not admit `null` for optional fields).
fn sprinkle_nulls(rng: &mut XorShift, v: &mut Value, depth: u32) {
    match v {
        Value::Object(map) => {
            for (_, x) in map.iter_mut() {
                if depth > 0 && rng.chance(12) {
                    *x = Value::Null;
                } else {
                    sprinkle_nulls(rng, x, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            for x in items {
                if rng.chance(5) {
                    *x = Value::Null;
                } else {
                    sprinkle_nulls(rng, x, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// A valid call of a model tool whose random instances are rarely valid.
fn valid_base(tool: &str) -> Option<Value> {
    let address = json!({"street": "1 Main St", "zip": 12345, "labels": ["home"], "note": "ring"});
    let contact = json!({
        "fullName": "Ada Lovelace", "age": 36, "score": 0.5, "ratio": 1.5, "active": true,
        "initial": "A", "delta": -3, "count": 3, "small": -2, "home": address,
        "work": {"street": "2 Side St", "zip": 1, "labels": []}, "previous": [address],
        "priority": "VERY_HIGH", "morePriorities": ["LOW", null], "size": "small",
        "colour": "red",
    });
    (tool == "save_contact").then(|| {
        json!({"contact": contact, "backup": contact, "addresses": [address],
            "priorities": ["LOW", "HIGH"]})
    })
}

/// Replaces now and then a value of `v` by one generated from its schema (or drops it).
fn mutate(rng: &mut XorShift, v: &mut Value, schema: &Value, root: &Value) {
    match v {
        Value::Object(map) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            let keys: Vec<String> = map.keys().cloned().collect();
            for k in keys {
                let Some(s) = props.get(&k) else { continue };
                if rng.chance(1) {
                    map.remove(&k);
                } else if rng.chance(2) {
                    map.insert(k, instance_for(rng, s, root, 1));
                } else if let Some(x) = map.get_mut(&k) {
                    mutate(rng, x, s, root);
                }
            }
        }
        Value::Array(items) => {
            if let Some(s) = schema.get("items") {
                for x in items {
                    mutate(rng, x, s, root);
                }
            }
        }
        _ => {}
    }
}

#[test]
fn model_schemas_are_what_the_fast_path_assumes() {
    // The facts the typed checks of `#[model]` types rest on (toolsmith_core::typed): nested objects
    // closed, only non-`Option` fields required, optional fields without `null`, unit enums as
    // strings.
    let tool = typed_tools::save_contact::tool();
    let schema = &tool.spec().input_schema;
    let contact = &schema["properties"]["contact"];
    assert_eq!(contact["type"], "object", "{schema}");
    assert_eq!(contact["additionalProperties"], false, "{schema}");
    let required: Vec<&str> = contact["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for name in [
        "fullName",
        "age",
        "home",
        "previous",
        "priority",
        "morePriorities",
    ] {
        assert!(required.contains(&name), "{name}: {schema}");
    }
    for name in ["work", "size", "colour"] {
        assert!(!required.contains(&name), "{name}: {schema}");
    }
    assert_eq!(contact["properties"]["work"]["type"], "object", "{schema}");
    assert_eq!(
        contact["properties"]["home"]["additionalProperties"], false,
        "{schema}"
    );
    assert_eq!(
        contact["properties"]["priority"],
        json!({"type": "string", "enum": ["LOW", "HIGH", "VERY_HIGH"], "description": "Priority, e.g. \"LOW\"."}),
        "{schema}"
    );
}

#[test]
fn typed_decoding_agrees_on_model_parameters() {
    let (fast_tb, general_tb) = typed_toolboxes();
    let rt = runtime();
    let mut tools = typed_tools::all();
    tools.extend(
        common::validation_tools::tools_under_test()
            .into_iter()
            .filter(|t| {
                [
                    "find_garments",
                    "calculate_order",
                    "count_folders",
                    "add_chain",
                    "compute_area",
                ]
                .contains(&t.name())
            }),
    );
    let mut rng = XorShift(0x5DEE_CE66_D1CE_4E5B);
    let mut failures = Vec::new();
    let mut fast_accepted = std::collections::BTreeMap::<&str, u32>::new();
    let (mut rejected, mut repeats_refused) = (0, 0);
    for tool in &tools {
        let spec = tool.spec();
        let schema = &spec.input_schema;
        for round in 0..600 {
            let mut x = match valid_base(tool.name()) {
                // A deep model is rarely valid as generated: start from a valid call, with
                // a few values replaced by generated ones.
                Some(mut base) if round % 2 == 0 => {
                    mutate(&mut rng, &mut base, schema, schema);
                    base
                }
                _ => instance_for(&mut rng, schema, schema, 0),
            };
            if round % 3 == 1 {
                sprinkle_nulls(&mut rng, &mut x, 0);
            }
            let mut repeated = false;
            let text = if round % 3 == 2 {
                text_with_repeats(&mut rng, &x, &mut repeated)
            } else {
                x.to_string()
            };
            // What the general path sees: the text parsed (a repeated key keeps its last value).
            let parsed: Value = serde_json::from_str(&text).expect("the text is JSON");
            let accepts = general_accepts(spec, &parsed);
            let by_text = tool.typed_accepts(text.as_str());
            let by_value = tool.typed_accepts(&parsed);
            if !repeated && by_value != by_text {
                failures.push(format!(
                    "{}: {text}: value {by_value:?}, text {by_text:?}",
                    spec.name
                ));
            }
            if repeated && by_text == Some(true) {
                // A repeated key: serde refuses it, so the text falls back.
                failures.push(format!(
                    "{}: {text}: a repeated key was accepted",
                    spec.name
                ));
            } else if repeated {
                repeats_refused += 1;
            }
            for (how, verdict) in [("value", by_value), ("text", by_text)] {
                match verdict {
                    Some(true) if !accepts => failures.push(format!(
                        "{}: {text}: the fast path ({how}) accepts what the validator rejects",
                        spec.name
                    )),
                    Some(true) => *fast_accepted.entry(tool.name()).or_default() += 1,
                    Some(false)
                        if accepts
                            && how == "value"
                            && typed_tools::FULLY_TYPED.contains(&tool.name())
                            && !left_to_the_general_path(&parsed, false) =>
                    {
                        failures.push(format!(
                            "{}: {text}: the validator accepts, the fast path fell back without a reason",
                            spec.name
                        ))
                    }
                    _ if !accepts => rejected += 1,
                    _ => {}
                }
            }
            both_entries(
                &rt,
                (&fast_tb, &general_tb),
                tool.name(),
                &parsed,
                &text,
                &mut failures,
            );
        }
    }
    assert_agreed(&failures);
    // The fast path now takes model-typed calls (every tool below has a model parameter).
    for name in [
        "save_contact",
        "set_priority",
        "find_garments",
        "calculate_order",
        "count_folders",
        "add_chain",
    ] {
        let n = fast_accepted.get(name).copied().unwrap_or(0);
        assert!(n >= 20, "{name}: {n} calls accepted by the fast path");
    }
    // A struct with a field of a type without a check, a tagged enum: never.
    for name in ["save_tagged", "compute_area"] {
        assert_eq!(fast_accepted.get(name), None, "{name}");
    }
    assert!(rejected > 1000, "{rejected} rejected");
    assert!(
        repeats_refused > 100,
        "{repeats_refused} texts with repeats"
    );
}
