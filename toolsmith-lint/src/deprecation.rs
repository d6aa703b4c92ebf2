//! The deprecation notice: the one fixed sentence a deprecated tool's description ends with, so
//! that the model reads what to use instead on every platform (each carries the description).
//!
//! The `#[tool]` macro appends it before it lints the description (the budget counts it), the
//! runtime appends it when a spec is deprecated (`ToolSpec::with_deprecated`), and
//! `toolsmith diff` reads it back from lists that carry nothing else ([`parse_notice`]): all
//! three use this module, so the wording cannot drift.
//!
//! ```
//! use toolsmith_lint::deprecation::{notice, parse_notice, with_notice};
//! let text = notice("3", Some("bookings moved to one tool"), Some("book_trip"));
//! assert_eq!(text, "Deprecated since version 3: bookings moved to one tool. Use `book_trip` instead.");
//! let description = with_notice("Books a flight. Returns the booking.", &text);
//! let parsed = parse_notice(&description).unwrap();
//! assert_eq!(parsed.base, "Books a flight. Returns the booking.");
//! assert_eq!(parsed.since, "3");
//! assert_eq!(parsed.replaced_by.as_deref(), Some("book_trip"));
//! ```

/// How every notice starts.
pub const NOTICE_START: &str = "Deprecated since version ";

/// The notice for a tool deprecated since version `since`, with an optional `note` (why, or
/// what changed) and the tool that replaces it:
/// `Deprecated since version {since}[: {note}.][ Use `{replaced_by}` instead.]`. A note that
/// already ends with `.`, `!` or `?` gets no second full stop.
pub fn notice(since: &str, note: Option<&str>, replaced_by: Option<&str>) -> String {
    let mut out = format!("{NOTICE_START}{}", since.trim());
    match note.map(str::trim).filter(|n| !n.is_empty()) {
        Some(note) => {
            out.push_str(": ");
            out.push_str(note);
            if !note.ends_with(['.', '!', '?']) {
                out.push('.');
            }
        }
        None => out.push('.'),
    }
    if let Some(r) = replaced_by {
        out.push_str(" Use `");
        out.push_str(r);
        out.push_str("` instead.");
    }
    out
}

/// `description` with `notice` appended (after one space; the notice alone when the description
/// is empty). Appending the same notice twice leaves the description as it was.
pub fn with_notice(description: &str, notice: &str) -> String {
    let base = description.trim_end();
    if base.ends_with(notice) {
        return base.to_string();
    }
    if base.is_empty() {
        notice.to_string()
    } else {
        format!("{base} {notice}")
    }
}

/// A deprecation read back from a description that ends with a [`notice`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedNotice {
    /// The description before the notice.
    pub base: String,
    /// The version the tool is deprecated since.
    pub since: String,
    /// The tool the notice names, when it names one.
    pub replaced_by: Option<String>,
}

/// Reads the deprecation [`notice`] a description ends with; `None` when it ends with none.
/// The note is not read back (it may hold any text); the since-version and the replacement are.
pub fn parse_notice(description: &str) -> Option<ParsedNotice> {
    let text = description.trim_end();
    // The last notice start that opens the description or follows a space.
    let start = text
        .rmatch_indices(NOTICE_START)
        .map(|(i, _)| i)
        .find(|&i| i == 0 || text[..i].ends_with(char::is_whitespace))?;
    let rest = &text[start + NOTICE_START.len()..];
    let since_end = rest.find([':', ' ']).unwrap_or(rest.len());
    let since = rest[..since_end].trim_end_matches('.');
    if since.is_empty() {
        return None;
    }
    let replaced_by = rest
        .strip_suffix("` instead.")
        .and_then(|r| {
            r.rfind(" Use `")
                .map(|i| r[i + " Use `".len()..].to_string())
        })
        .filter(|r| !r.is_empty() && !r.contains('`'));
    Some(ParsedNotice {
        base: text[..start].trim_end().to_string(),
        since: since.to_string(),
        replaced_by,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_the_notice_reads_back() {
        for (note, by) in [
            (None, None),
            (Some("the fares moved"), None),
            (Some("Old API!"), Some("book_trip")),
            (None, Some("search_v2")),
        ] {
            let n = notice("2.1.0", note, by);
            let d = with_notice("Searches. Returns offers.", &n);
            assert_eq!(with_notice(&d, &n), d, "appending twice changes nothing");
            let p = parse_notice(&d).unwrap();
            assert_eq!(p.base, "Searches. Returns offers.");
            assert_eq!(p.since, "2.1.0");
            assert_eq!(p.replaced_by.as_deref(), by);
        }
        assert_eq!(
            notice("3", Some("Old API!"), None),
            "Deprecated since version 3: Old API!"
        );
        assert_eq!(notice("3", None, None), "Deprecated since version 3.");
        assert_eq!(parse_notice("Searches. Returns offers."), None);
        assert_eq!(parse_notice("NotDeprecated since version 3."), None);
    }

    #[test]
    fn the_notice_passes_the_rules() {
        let description = with_notice(
            "Searches flights between two airports. Returns offers with prices.",
            &notice("3", Some("bookings moved to one tool"), Some("book_trip")),
        );
        let tool = serde_json::json!({
            "name": "search_flights",
            "description": description,
            "inputSchema": {"type": "object", "properties": {}},
        });
        let findings = crate::lint_definition(&tool, &crate::LintConfig::default());
        assert!(findings.is_empty(), "{findings:?}");
    }
}
