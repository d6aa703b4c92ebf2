//! What the facade's default features validate: without `full-json-schema`, a schema keyword the
//! compiled checks do not cover is refused with its pointer and what to do, not left unchecked;
//! annotations (unknown keywords, formats JSON Schema does not define) are accepted.
use serde_json::json;
use toolsmith::validate::Validator;

fn main() {
    let conditional = json!({
        "type": "object",
        "properties": {"mode": {"type": "string"}, "path": {"type": "string"}},
        "if": {"properties": {"mode": {"const": "file"}}},
        "then": {"required": ["path"]}
    });
    let e = Validator::new(&conditional).expect_err("`if` needs the full validator");
    assert_eq!(e.pointer, "/if");
    assert!(e.reason.contains("the keyword `if`"), "{e}");
    assert!(e.reason.contains("full-json-schema"), "{e}");

    let link = json!({"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}});
    let e = Validator::new(&link).expect_err("`uri` is a format the compiled checks lack");
    assert_eq!(e.pointer, "/properties/url/format");
    assert!(e.reason.contains("the format \"uri\""), "{e}");

    let lookaround = json!({"type": "string", "pattern": "^(?!admin).*$"});
    let e = Validator::new(&lookaround).expect_err("a look-ahead needs the full validator");
    assert_eq!(e.pointer, "/pattern");

    let counted = json!({"type": "object", "minProperties": 1});
    assert!(Validator::new(&counted).is_err(), "minProperties constrains the value");

    // Annotations: a vendor keyword and a format JSON Schema does not define.
    let annotated = json!({
        "type": "object",
        "x-order": 3,
        "properties": {"n": {"type": "integer", "format": "int-like", "maximum": 9}}
    });
    let v = Validator::new(&annotated).expect("annotations are not checked");
    assert!(!v.uses_fallback());
    assert!(v.validate(&json!({"n": 3})).is_ok());
    assert!(v.validate(&json!({"n": 10})).is_err(), "the compiled checks still run");

    // A host name whose A-label is valid Punycode passes; one that is not, fails.
    let host = json!({"type": "string", "format": "hostname"});
    let v = Validator::new(&host).expect("hostname is compiled");
    assert!(v.validate(&json!("xn--bcher-kva.example")).is_ok());
    assert!(v.validate(&json!("xn--a.example")).is_err(), "U+0080 is a control character");
    assert!(v.validate(&json!("xn--abc-.example")).is_err(), "an A-label of ASCII only");
}
