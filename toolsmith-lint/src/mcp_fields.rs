//! The rules of two MCP tool fields that must agree between compile time (`#[tool(icon)]`,
//! `#[arg(header)]`) and registration (a `ToolSpec` built at run time): a tool's `icons` and the
//! `x-mcp-header` annotation of MCP 2026-07-28.
//!
//! Sources: the `Icon` definition of the official schemas 2025-11-25 and 2026-07-28 (`src` an
//! HTTP(S) URL or a `data:` URI with Base64 image data; `sizes` `WxH` or `any`; `theme` `light` or
//! `dark`), and the 2026-07-28 specification's "Custom Headers from Tool Parameters" (Streamable
//! HTTP transport) and tools page: an `x-mcp-header` value is a non-empty RFC 9110 token,
//! case-insensitively unique in the input schema, on a property of type string, integer (within
//! ±(2^53−1)) or boolean reached from the root through `properties` keys alone; sensitive
//! parameters SHOULD NOT be marked (header values are visible to intermediaries). A client drops
//! a tool whose annotation breaks a rule, so the tool silently disappears: these checks refuse
//! it before it is ever listed.
//!
//! ```
//! use toolsmith_lint::mcp_fields::{header_name_problem, icon_size_problem, icon_src_problem};
//! assert!(header_name_problem("Region").is_none());
//! assert!(header_name_problem("Re gion").is_some());
//! assert!(icon_src_problem("https://example.com/icon.png").is_none());
//! assert!(icon_src_problem("ftp://example.com/icon.png").is_some());
//! assert!(icon_size_problem("48x48").is_none());
//! assert!(icon_size_problem("48").is_some());
//! ```

use serde_json::Value;

/// The JSON Schema annotation (MCP 2026-07-28) that mirrors an argument into the HTTP header
/// `Mcp-Param-{value}`.
pub const HEADER_KEYWORD: &str = "x-mcp-header";

/// The prefix of the HTTP header an annotated argument travels in.
pub const HEADER_PREFIX: &str = "Mcp-Param-";

/// The largest integer an annotated integer parameter may hold in magnitude (2^53 − 1, the
/// specification's "safe range" of IEEE 754 doubles).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The longest `data:` URI an icon may have, in bytes. Every `tools/list` carries the icons
/// whole; an icon larger than this belongs at an HTTPS URL.
pub const MAX_ICON_DATA_URI_BYTES: usize = 16 * 1024;

/// The longest icon URL (`http`/`https`), in bytes.
pub const MAX_ICON_URL_BYTES: usize = 2048;

/// The themes an icon may be made for.
pub const ICON_THEMES: [&str; 2] = ["light", "dark"];

/// RFC 9110 §5.6.2 `tchar`.
pub fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Why `name` cannot be an `x-mcp-header` value, if it cannot: it must be a non-empty RFC 9110
/// token (`1*tchar`; no spaces, no control characters, no `:` or `/`).
pub fn header_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a header name must not be empty".into());
    }
    if let Some(c) = name.chars().find(|c| !is_tchar(*c)) {
        return Some(format!(
            "header name {name:?} has {c:?}, which an HTTP header name (an RFC 9110 token) cannot \
             contain: use ASCII letters, digits and ! # $ % & ' * + - . ^ _ ` | ~"
        ));
    }
    None
}

/// Whether `name` is also the name of another, case-insensitively (header names are
/// case-insensitive, so `Region` and `region` are one header).
pub fn same_header(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// Why `src` cannot be an icon's `src`, if it cannot: an `https://` or `http://` URL with a host
/// (at most [`MAX_ICON_URL_BYTES`]), or a `data:image/...;base64,` URI of valid Base64 (at most
/// [`MAX_ICON_DATA_URI_BYTES`]). No spaces or characters a URI cannot hold.
pub fn icon_src_problem(src: &str) -> Option<String> {
    if let Some(c) = src.chars().find(|c| !is_uri_char(*c)) {
        return Some(format!(
            "icon src has {c:?}, which a URI cannot hold (percent-encode it)"
        ));
    }
    let lower = src.to_ascii_lowercase();
    if lower.starts_with("data:") {
        return data_uri_problem(src);
    }
    let rest = if lower.starts_with("https://") {
        &src[8..]
    } else if lower.starts_with("http://") {
        &src[7..]
    } else {
        return Some(format!(
            "icon src {} is neither an http(s) URL nor a data: URI with Base64 image data",
            shorten(src)
        ));
    };
    if src.len() > MAX_ICON_URL_BYTES {
        return Some(format!(
            "icon src is {} bytes long, over the limit of {MAX_ICON_URL_BYTES}",
            src.len()
        ));
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.contains('@') {
        return Some(format!(
            "icon src {} carries user information before `@`: every client that lists the tool \
             would see it",
            shorten(src)
        ));
    }
    let host = authority;
    if host.is_empty() || host.starts_with(':') {
        return Some(format!("icon src {} has no host", shorten(src)));
    }
    None
}

/// The media type of a `data:` URI (`image/png` of `data:image/png;base64,...`), lowercased.
pub fn data_uri_media_type(src: &str) -> Option<String> {
    let rest = src
        .get(..5)?
        .eq_ignore_ascii_case("data:")
        .then(|| &src[5..])?;
    let head = rest.split(',').next()?;
    let media = head.split(';').next()?;
    Some(media.to_ascii_lowercase())
}

fn data_uri_problem(src: &str) -> Option<String> {
    if src.len() > MAX_ICON_DATA_URI_BYTES {
        return Some(format!(
            "the icon's data: URI is {} bytes, over the limit of {MAX_ICON_DATA_URI_BYTES}: every \
             tools/list carries it whole; serve a larger icon at an https URL",
            src.len()
        ));
    }
    let Some((head, data)) = src[5..].split_once(',') else {
        return Some("the icon's data: URI has no `,` before its data".into());
    };
    let mut parts = head.split(';');
    let media = parts.next().unwrap_or_default();
    if let Some(problem) = icon_mime_problem(media) {
        return Some(format!("the icon's data: URI: {problem}"));
    }
    if !head.to_ascii_lowercase().ends_with(";base64") {
        return Some(
            "the icon's data: URI must hold Base64 data: `data:image/png;base64,...`".into(),
        );
    }
    if data.is_empty() {
        return Some("the icon's data: URI has no data".into());
    }
    if let Some(problem) = base64_problem(data) {
        return Some(format!("the icon's data: URI: {problem}"));
    }
    None
}

/// Standard Base64 with padding (RFC 4648 §4).
fn base64_problem(data: &str) -> Option<String> {
    let body = data.trim_end_matches('=');
    let pad = data.len() - body.len();
    if let Some(c) = body
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '+' || *c == '/'))
    {
        return Some(format!("{c:?} is not a Base64 character"));
    }
    if data.len() % 4 != 0 || pad > 2 {
        return Some("the Base64 data is not padded to a multiple of 4 characters".into());
    }
    None
}

/// Why `mime` cannot be an icon's `mimeType`, if it cannot: `image/<subtype>`, the subtype an
/// RFC 9110 token (`image/png`, `image/svg+xml`).
pub fn icon_mime_problem(mime: &str) -> Option<String> {
    let Some((kind, sub)) = mime.split_once('/') else {
        return Some(format!("{mime:?} is not a MIME type like \"image/png\""));
    };
    if !kind.eq_ignore_ascii_case("image") {
        return Some(format!(
            "{mime:?} is not an image type: an icon's MIME type is image/..., e.g. \"image/png\""
        ));
    }
    if sub.is_empty() || !sub.chars().all(is_tchar) {
        return Some(format!(
            "{mime:?} has no valid subtype: write it like \"image/png\" or \"image/svg+xml\""
        ));
    }
    None
}

/// Why an icon's `mimeType` contradicts the media type its `data:` URI names, if it does.
pub fn icon_mime_conflict(src: &str, mime: &str) -> Option<String> {
    let own = data_uri_media_type(src)?;
    (!own.eq_ignore_ascii_case(mime))
        .then(|| format!("mime type {mime:?} contradicts the data: URI's own media type {own:?}"))
}

/// Why `size` cannot be one of an icon's `sizes`, if it cannot: `WxH` in pixels (whole numbers
/// from 1, no leading zeros: `48x48`) or `any`.
pub fn icon_size_problem(size: &str) -> Option<String> {
    if size == "any" {
        return None;
    }
    let pixels = |s: &str| {
        !s.is_empty()
            && s.len() <= 5
            && s.bytes().all(|b| b.is_ascii_digit())
            && !s.starts_with('0')
    };
    match size.split_once('x') {
        Some((w, h)) if pixels(w) && pixels(h) => None,
        _ => Some(format!(
            "icon size {size:?} is neither WxH in pixels (e.g. \"48x48\") nor \"any\""
        )),
    }
}

/// Why `theme` cannot be an icon's `theme`, if it cannot: `light` or `dark`.
pub fn icon_theme_problem(theme: &str) -> Option<String> {
    (!ICON_THEMES.contains(&theme))
        .then(|| format!("icon theme {theme:?} is neither \"light\" nor \"dark\""))
}

/// The characters a URI may hold as written (RFC 3986: unreserved, reserved and `%`).
fn is_uri_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "-._~:/?#[]@!$&'()*+,;=%".contains(c)
}

fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(60).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    format!("{out:?}")
}

/// What is wrong with one icon, one sentence each: a `src` that is no http(s) URL or Base64
/// `data:` image URI (or a `data:` URI over 16 KiB), a MIME type that is not `image/...` or that
/// contradicts the `data:` URI's own, a size that is neither `WxH` nor `any`, a theme that is
/// neither `light` nor `dark`.
pub fn icon_problems<'a>(
    src: &str,
    mime_type: Option<&str>,
    sizes: impl IntoIterator<Item = &'a str>,
    theme: Option<&str>,
) -> Vec<String> {
    let mut out = Vec::new();
    out.extend(icon_src_problem(src));
    if let Some(mime) = mime_type {
        match icon_mime_problem(mime) {
            Some(p) => out.push(p),
            None => out.extend(icon_mime_conflict(src, mime)),
        }
    }
    out.extend(sizes.into_iter().filter_map(icon_size_problem));
    out.extend(theme.and_then(icon_theme_problem));
    out
}

/// Every problem of a definition's `icons` (MCP's `Icon` objects), each with the JSON pointer
/// of what it is about (under `/icons`): not an array, an icon that is no object or has no
/// string `src`, fields of the wrong JSON type, and each icon's [`icon_problems`].
pub fn icons_problems(icons: &Value) -> Vec<(String, String)> {
    let Some(list) = icons.as_array() else {
        return vec![(
            "/icons".to_string(),
            "`icons` must be an array of icon objects".to_string(),
        )];
    };
    let mut out = Vec::new();
    for (i, icon) in list.iter().enumerate() {
        let at = format!("/icons/{i}");
        let Some(src) = icon.get("src").and_then(Value::as_str) else {
            out.push((
                at,
                format!("icon {}: an icon is an object with a string `src`", i + 1),
            ));
            continue;
        };
        let text = |key: &str| -> Result<Option<&str>, String> {
            match icon.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s)),
                Some(_) => Err(format!("icon {}: `{key}` must be a string", i + 1)),
            }
        };
        let mime = text("mimeType");
        let theme = text("theme");
        let sizes: Result<Vec<&str>, String> = match icon.get("sizes") {
            None => Ok(Vec::new()),
            Some(Value::Array(a)) => a
                .iter()
                .map(|s| {
                    s.as_str()
                        .ok_or_else(|| format!("icon {}: each of `sizes` must be a string", i + 1))
                })
                .collect(),
            Some(_) => Err(format!(
                "icon {}: `sizes` must be an array of strings",
                i + 1
            )),
        };
        let (mime, theme, sizes) = match (mime, theme, sizes) {
            (Ok(m), Ok(t), Ok(s)) => (m, t, s),
            (m, t, s) => {
                for e in [m.err(), t.err(), s.err()].into_iter().flatten() {
                    out.push((at.clone(), e));
                }
                continue;
            }
        };
        for p in icon_problems(src, mime, sizes, theme) {
            out.push((at.clone(), format!("icon {}: {p}", i + 1)));
        }
    }
    out
}

/// Every problem of the `x-mcp-header` annotations of an input schema, each a sentence naming
/// the property: annotations off the `properties` chain (at the root, under `items`, a
/// composition, a condition or `$defs`), values that are no string or no token, names repeated
/// case-insensitively, a property that is not a string, integer or boolean, an integer bound
/// beyond ±(2^53−1), a property whose name looks like a secret.
pub fn header_problems(input_schema: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(root) = input_schema.as_object() else {
        return problems;
    };
    if root.contains_key(HEADER_KEYWORD) {
        problems.push(format!(
            "`{HEADER_KEYWORD}` annotates a property, not the schema root"
        ));
    }
    let mut seen: Vec<(String, String)> = Vec::new();
    on_chain(root, &mut Vec::new(), &mut seen, &mut problems);
    off_chain(root, true, &mut problems);
    problems
}

/// The annotations along `properties` chains.
fn on_chain(
    schema: &serde_json::Map<String, Value>,
    path: &mut Vec<String>,
    seen: &mut Vec<(String, String)>,
    problems: &mut Vec<String>,
) {
    let Some(Value::Object(props)) = schema.get("properties") else {
        return;
    };
    for (name, prop) in props {
        let Some(prop) = prop.as_object() else {
            continue;
        };
        path.push(name.clone());
        let at = path.join(".");
        if let Some(header) = prop.get(HEADER_KEYWORD) {
            match header.as_str() {
                None => problems.push(format!(
                    "property `{at}`: `{HEADER_KEYWORD}` must be a string (the header name)"
                )),
                Some(h) => {
                    if let Some(p) = header_name_problem(h) {
                        problems.push(format!("property `{at}`: {p}"));
                    } else if let Some((other, _)) = seen.iter().find(|(_, o)| same_header(o, h)) {
                        problems.push(format!(
                            "property `{at}`: header {h:?} is also the header of `{other}` \
                             (header names are case-insensitive)"
                        ));
                    } else {
                        seen.push((at.clone(), h.to_string()));
                    }
                    if let Some(p) = header_type_problem(prop) {
                        problems.push(format!("property `{at}`: {p}"));
                    }
                    if crate::secrets::is_secret_field(name) {
                        problems.push(format!(
                            "property `{at}` looks like a secret, and a header value is visible \
                             to every intermediary: do not mirror it into `{HEADER_PREFIX}{h}`"
                        ));
                    }
                }
            }
        }
        on_chain(prop, path, seen, problems);
        path.pop();
    }
}

/// Why a property schema cannot carry a header: its type is not exactly one of string, integer,
/// boolean, or an integer is not bounded within the safe range.
fn header_type_problem(prop: &serde_json::Map<String, Value>) -> Option<String> {
    match prop.get("type").and_then(Value::as_str) {
        Some("string" | "boolean") => None,
        Some("integer") => {
            // The schema of a run-time tool does not say its Rust type: only a declared bound
            // beyond the safe range is a sure breach (`#[arg(header)]` also judges the type).
            let safe = MAX_SAFE_INTEGER as f64;
            let beyond = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
                .iter()
                .filter_map(|k| prop.get(*k).and_then(Value::as_f64))
                .any(|b| b.abs() > safe);
            beyond.then(|| {
                format!(
                    "a header integer must stay within ±{MAX_SAFE_INTEGER} (2^53−1), and a bound \
                     of this parameter lies beyond it"
                )
            })
        }
        Some("number") => Some(
            "a header cannot carry a number with a fraction (type `number`): MCP allows only \
             string, integer and boolean parameters"
                .into(),
        ),
        other => Some(format!(
            "a header carries one string, integer or boolean, and this parameter is {}",
            match other {
                Some(t) => format!("of type `{t}`"),
                None => "not of one such type".into(),
            }
        )),
    }
}

/// Annotations anywhere but on a `properties` chain from the root.
fn off_chain(schema: &serde_json::Map<String, Value>, on: bool, problems: &mut Vec<String>) {
    for (key, value) in schema {
        match key.as_str() {
            HEADER_KEYWORD if !on => problems.push(format!(
                "`{HEADER_KEYWORD}` sits off the `properties` chain from the root (under items, a \
                 composition, a condition or a definition), where no client reads it"
            )),
            "properties" => map_off_chain(value, on, problems),
            "default" | "const" | "enum" | "examples" | "dependentRequired" | "required" => {}
            _ => sub_off_chain(value, problems),
        }
    }
}

fn map_off_chain(map: &Value, on: bool, problems: &mut Vec<String>) {
    if let Some(map) = map.as_object() {
        for v in map.values() {
            if let Some(o) = v.as_object() {
                off_chain(o, on, problems);
            }
        }
    }
}

fn sub_off_chain(value: &Value, problems: &mut Vec<String>) {
    match value {
        Value::Object(o) => off_chain(o, false, problems),
        Value::Array(items) => items.iter().for_each(|i| sub_off_chain(i, problems)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn header_names_are_tokens() {
        for ok in ["Region", "X-Tenant", "a.b_c~1", "!#$%&'*+-.^_`|~"] {
            assert_eq!(header_name_problem(ok), None, "{ok}");
        }
        for bad in [
            "",
            "Re gion",
            "Region:",
            "a/b",
            "Région",
            "a\r\nX-Evil: 1",
            "a\"b",
        ] {
            assert!(header_name_problem(bad).is_some(), "{bad:?}");
        }
    }

    #[test]
    fn icon_sources() {
        for ok in [
            "https://example.com/i.png",
            "http://example.com:8080/i.svg?v=1",
            "data:image/png;base64,iVBORw0KGgo=",
            "DATA:image/svg+xml;base64,PHN2Zz4=",
        ] {
            assert_eq!(icon_src_problem(ok), None, "{ok}");
        }
        for bad in [
            "",
            "icon.png",
            "https://",
            "https:///path",
            "javascript:alert(1)",
            "file:///etc/passwd",
            "https://user:secret@example.com/i.png",
            "https://example.com/a b.png",
            "data:text/html;base64,PGI+",
            "data:image/png,rawbytes",
            "data:image/png;base64,not base64",
            "data:image/png;base64,abc",
            "data:image/png;base64,",
        ] {
            assert!(icon_src_problem(bad).is_some(), "{bad:?}");
        }
        let big = format!(
            "data:image/png;base64,{}",
            "A".repeat(MAX_ICON_DATA_URI_BYTES)
        );
        assert!(icon_src_problem(&big).unwrap().contains("https URL"));
        assert_eq!(
            data_uri_media_type("data:image/PNG;base64,AA==").as_deref(),
            Some("image/png")
        );
    }

    #[test]
    fn icon_sizes_mimes_themes() {
        for ok in ["48x48", "1x1", "512x256", "any"] {
            assert_eq!(icon_size_problem(ok), None, "{ok}");
        }
        for bad in [
            "", "48", "0x48", "048x48", "48X48", "48x", "x48", "Any", "48x48 ",
        ] {
            assert!(icon_size_problem(bad).is_some(), "{bad:?}");
        }
        assert_eq!(icon_mime_problem("image/svg+xml"), None);
        for bad in ["png", "text/html", "image/", "image/p ng"] {
            assert!(icon_mime_problem(bad).is_some(), "{bad:?}");
        }
        assert_eq!(icon_theme_problem("dark"), None);
        assert!(icon_theme_problem("Dark").is_some());
    }

    #[test]
    fn header_annotations_in_a_schema() {
        let good = json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "shard": {"type": "integer", "minimum": 0, "maximum": 99, "x-mcp-header": "Shard"},
                "where": {"type": "object", "properties": {
                    "zone": {"type": "string", "x-mcp-header": "Zone"}
                }}
            }
        });
        assert_eq!(header_problems(&good), Vec::<String>::new());
        let bad = json!({
            "type": "object",
            "x-mcp-header": "Root",
            "properties": {
                "a": {"type": "string", "x-mcp-header": "Dup"},
                "b": {"type": "string", "x-mcp-header": "dup"},
                "c": {"type": "number", "x-mcp-header": "C"},
                "d": {"type": "integer", "maximum": 1e16, "x-mcp-header": "D"},
                "e": {"type": "array", "items": {"type": "string", "x-mcp-header": "E"}},
                "api_key": {"type": "string", "x-mcp-header": "Key"},
                "f": {"type": "string", "x-mcp-header": 7}
            },
            "$defs": {"g": {"type": "string", "x-mcp-header": "G"}}
        });
        let problems = header_problems(&bad);
        let has = |s: &str| problems.iter().any(|p| p.contains(s));
        assert!(has("not the schema root"), "{problems:#?}");
        assert!(has("also the header of `a`"), "{problems:#?}");
        assert!(has("type `number`"), "{problems:#?}");
        assert!(has("lies beyond it"), "{problems:#?}");
        assert!(has("looks like a secret"), "{problems:#?}");
        assert!(has("must be a string"), "{problems:#?}");
        assert_eq!(
            problems.iter().filter(|p| p.contains("off the")).count(),
            2,
            "{problems:#?}"
        );
    }
}
