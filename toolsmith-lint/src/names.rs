//! Name heuristics: verb_object tool names, and parameter names that look like secrets or host
//! configuration (the secret words are [`crate::secrets`]'s).

use crate::secrets::is_credential_parameter;
use crate::text::{is_snake_case, to_snake_case, NameSet};
use crate::verbs::VERBS;

/// What is wrong with a tool name's style, as a message, or `None` when it is snake_case
/// verb_object; for a tool linted alone (see [`tool_name_problem_in`]).
#[cfg(test)]
pub(crate) fn tool_name_problem(name: &str) -> Option<String> {
    tool_name_problem_in(name, None)
}

/// Whether `word` is one of [`VERBS`] (a base form).
fn is_verb(word: &str) -> bool {
    // VERBS is sorted: the same answer as `contains`.
    VERBS.binary_search(&word).is_ok()
}

/// Words that join the parts of a name that is no noun phrase (`docx_to_pdf`, `text_for_speech`):
/// `get_` before it would not read.
const JOINING_WORDS: &[&str] = &[
    "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "to", "via", "with",
];

/// Whether a snake_case name reads as the data a tool returns, so that `get_` before it reads
/// right (`products`, `directory_tree`, `console_messages`): no word is a verb (`web_search`,
/// `unprotect_document`, `new_game`), no word joins parts (`docx_to_pdf`), and its last word
/// does not name an actor after a verb (`searcher`, `pdf_merger`, `text_formatter`,
/// `code_generator`): each would read as the action itself.
fn reads_as_data(name: &str) -> bool {
    let mut words = name.split('_');
    // `new_game` names making one, not the game.
    if words.clone().next() == Some("new") {
        return false;
    }
    let verb_like = |w: &str| {
        is_verb(w)
            || ["un", "re"]
                .iter()
                .any(|p| w.strip_prefix(p).is_some_and(|v| v.len() > 2 && is_verb(v)))
    };
    if words
        .clone()
        .any(|w| JOINING_WORDS.contains(&w) || verb_like(w))
    {
        return false;
    }
    let last = words.next_back().unwrap_or_default();
    !is_actor_noun(last)
}

/// Whether a word is a verb with `-er` or `-or` (`searcher`, `merger`, `splitter`, `editor`,
/// `generator`).
fn is_actor_noun(word: &str) -> bool {
    let Some(stem) = word
        .strip_suffix("er")
        .or_else(|| word.strip_suffix("or"))
        .filter(|s| s.len() >= 2)
    else {
        return false;
    };
    let b = stem.as_bytes();
    is_verb(stem)
        || is_verb(&format!("{stem}e"))
        || (b.len() >= 3 && b[b.len() - 1] == b[b.len() - 2] && is_verb(&stem[..stem.len() - 1]))
}

/// [`tool_name_problem`] for a tool of a list whose names are `list` (`None` for a tool linted
/// alone).
///
/// Besides verb_object, two naming schemes pass, both of which the platforms recommend for
/// grouping a server's tools: a prefix that another tool of the list shares, then a verb
/// (`browser_close` beside `browser_navigate`); and, with or without a list, a first word then a
/// verb then what it acts on (`github_create_issue`). A name of two words whose second could be a
/// verb (`browser_close` alone, but also `account_balance`) is still reported, without a
/// suggested name: no rewrite can tell the two readings apart. A suggestion keeps the list's
/// prefix (`browser_get_console_messages`, not `get_browser_console_messages`) and is never made
/// by putting `get_` before a name that already holds a verb.
pub(crate) fn tool_name_problem_in(name: &str, list: Option<&NameSet<'_>>) -> Option<String> {
    if !is_snake_case(name) {
        let fixed = to_snake_case(name);
        return Some(if fixed.is_empty() || fixed == name {
            format!("name \"{name}\" is not snake_case; use lowercase words joined by underscores, verb first")
        } else {
            format!("name \"{name}\" is not snake_case; use \"{fixed}\"")
        });
    }
    let first = name.split('_').next().unwrap_or_default();
    if is_verb(first) {
        // One word: no `_` after it.
        if first.len() == name.len() {
            return Some(format!(
                "name \"{name}\" is a verb alone; add what it acts on, as in \"{name}_<object>\""
            ));
        }
        return None;
    }
    // A prefix the list's tools share, then a verb. `shared` is where the shortest shared
    // prefix ends.
    let mut shared = None;
    if let Some(list) = list {
        for (at, _) in name.match_indices('_') {
            if list.shares_prefix(&name[..at]) {
                if name[at + 1..].split('_').next().is_some_and(is_verb) {
                    return None;
                }
                shared.get_or_insert(at);
            }
        }
    }
    // A first word (the service or the resource), a verb, and what it acts on.
    let mut words = name.split('_');
    words.next();
    if words.next().is_some_and(is_verb) && words.next().is_some() {
        return None;
    }
    let rest_of = |at: usize| &name[at + 1..];
    Some(match shared {
        Some(at) if reads_as_data(rest_of(at)) && rest_of(at).contains('_') => {
            let (prefix, rest) = (&name[..at], rest_of(at));
            format!("name \"{name}\" does not start with a verb; keep the prefix \"{prefix}_\" that the list's tools share and put a verb after it, e.g. \"{prefix}_get_{rest}\"")
        }
        Some(at) => {
            let prefix = &name[..at];
            format!("name \"{name}\" does not start with a verb; keep the prefix \"{prefix}_\" that the list's tools share and put a verb right after it (\"{prefix}_<verb>_...\")")
        }
        None if name.split('_').skip(1).any(is_verb) => format!(
            "name \"{name}\" does not start with a verb; put the action first (verb_object), or keep \"{first}_\" as a prefix that other tools of the list share, then a verb"
        ),
        None if reads_as_data(name) => format!(
            "name \"{name}\" does not start with a verb; use verb_object, e.g. \"get_{name}\""
        ),
        None => format!(
            "name \"{name}\" does not start with a verb; use verb_object: a verb for what the tool does, then what it acts on"
        ),
    })
}

/// Segments before `url`/`uri` that make it a connection string (`database_url`).
const CONNECTION_QUALIFIERS: &[&str] = &[
    "database",
    "db",
    "connection",
    "conn",
    "jdbc",
    "redis",
    "mongo",
    "mongodb",
    "postgres",
    "postgresql",
    "pg",
    "mysql",
    "sqlite",
    "amqp",
    "broker",
    "sql",
    "datasource",
];
/// Single segments that are connection strings wherever they end a name.
const CONNECTION_WORDS: &[&str] = &[
    "dsn",
    "databaseurl",
    "connectionstring",
    "connstr",
    "dburl",
    "connectionurl",
];
/// Segments before `root` that make it a workspace root (`project_root`).
const ROOT_QUALIFIERS: &[&str] = &[
    "workspace",
    "project",
    "repo",
    "repository",
    "sandbox",
    "fs",
    "filesystem",
    "base",
    "data",
    "document",
    "docs",
];
/// First segments of `<x>_dir` / `<x>_path` names that are workspace roots (`root_dir`, `base_dir`).
const DIR_QUALIFIERS: &[&str] = &["root", "base", "working", "work", "home", "workspace"];
/// Directory words after [`DIR_QUALIFIERS`].
const DIR_WORDS: &[&str] = &["dir", "directory", "path", "folder"];
/// Single segments that are workspace roots.
const ROOT_WORDS: &[&str] = &[
    "workspaceroot",
    "workspacedir",
    "rootdir",
    "basedir",
    "workdir",
    "cwd",
];

/// Classifies a parameter name that the host, not the model, should supply: `"a credential"`,
/// `"a connection string"` or `"a workspace root"`.
///
/// The name is split into snake_case words (camelCase is split first), and the words decide, so
/// `api_key`, `accessToken`, `DATABASE_URL` and `workspace_root` fire while `max_tokens`,
/// `token_count`, `next_page_token`, `sort_key` and `workspace_id` do not.
pub(crate) fn secret_kind(name: &str) -> Option<&'static str> {
    // A name of lowercase letters, digits and `_` has the words of its snake_case form (which
    // only collapses and trims its underscores): split it as it is.
    let owned;
    let snake = if name
        .bytes()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
    {
        name
    } else {
        owned = to_snake_case(name);
        &owned
    };
    // The words on the stack: names rarely have more than a few.
    let mut few = [""; 8];
    let mut many = Vec::new();
    let mut n = 0;
    for seg in snake.split('_').filter(|s| !s.is_empty()) {
        if n < few.len() {
            few[n] = seg;
        } else {
            if many.is_empty() {
                many.extend_from_slice(&few);
            }
            many.push(seg);
        }
        n += 1;
    }
    secret_kind_of(if n <= few.len() { &few[..n] } else { &many })
}

/// [`secret_kind`] of a name's snake_case words.
fn secret_kind_of(segs: &[&str]) -> Option<&'static str> {
    let last = *segs.last()?;
    let prev = segs.len().checked_sub(2).map(|i| segs[i]);
    let pairs = || segs.windows(2).map(|w| (w[0], w[1]));

    // Credentials.
    if is_credential_parameter(segs) {
        return Some("a credential");
    }

    // Connection strings.
    if CONNECTION_WORDS.contains(&last)
        || (matches!(last, "url" | "uri")
            && prev.is_some_and(|p| CONNECTION_QUALIFIERS.contains(&p)))
        || pairs().any(|p| matches!(p, ("connection" | "conn", "string" | "str")))
    {
        return Some("a connection string");
    }

    // Workspace roots.
    if segs == ["workspace"]
        || ROOT_WORDS.contains(&last)
        || (last == "root" && prev.is_some_and(|p| ROOT_QUALIFIERS.contains(&p)))
        || (segs.len() == 2 && DIR_QUALIFIERS.contains(&segs[0]) && DIR_WORDS.contains(&last))
    {
        return Some("a workspace root");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_fire_on_credential_words() {
        for name in [
            "api_key",
            "apiKey",
            "APIKey",
            "apikey",
            "x_api_key",
            "token",
            "access_token",
            "accessToken",
            "refresh_token",
            "github_token",
            "auth_token",
            "bearer_token",
            "session_token_value",
            "password",
            "new_password",
            "db_password",
            "passwd",
            "secret",
            "client_secret",
            "webhook_secret",
            "private_key",
            "secret_key",
            "aws_secret_access_key",
            "access_key_id",
            "credentials",
            "authorization",
            "cookie",
        ] {
            assert_eq!(secret_kind(name), Some("a credential"), "{name}");
        }
    }

    #[test]
    fn secrets_fire_on_connection_strings_and_roots() {
        for name in [
            "dsn",
            "connection_string",
            "connectionString",
            "database_url",
            "DATABASE_URL",
            "db_url",
            "redis_url",
            "conn_str",
        ] {
            assert_eq!(secret_kind(name), Some("a connection string"), "{name}");
        }
        for name in [
            "workspace",
            "workspace_root",
            "workspaceRoot",
            "root_dir",
            "rootDir",
            "base_dir",
            "base_path",
            "working_directory",
            "workdir",
            "cwd",
            "project_root",
            "repo_root",
        ] {
            assert_eq!(secret_kind(name), Some("a workspace root"), "{name}");
        }
    }

    #[test]
    fn secrets_do_not_fire_on_lookalikes() {
        for name in [
            "max_tokens",
            "maxTokens",
            "token_count",
            "tokens",
            "token_limit",
            "next_page_token",
            "page_token",
            "pageToken",
            "continuation_token",
            "key",
            "sort_key",
            "cache_key",
            "object_key",
            "idempotency_key",
            "keyword",
            "monkey",
            "secret_name",
            "password_length",
            "password_policy",
            "url",
            "image_url",
            "path",
            "root",
            "dir",
            "directory",
            "workspace_id",
            "workspace_name",
            "query",
        ] {
            assert_eq!(secret_kind(name), None, "{name}");
        }
    }

    #[test]
    fn secrets_are_found_in_the_words_of_the_snake_case_form() {
        let words = [
            "api",
            "Key",
            "TOKEN",
            "password",
            "policy",
            "db",
            "url",
            "workspace",
            "root",
            "x1",
            "access",
            "",
            "_",
            "dir",
            "home",
            "conn",
            "String",
        ];
        let mut names = Vec::new();
        for (i, a) in words.iter().enumerate() {
            for b in words {
                for sep in ["_", "", "__", "-"] {
                    names.push(format!("{a}{sep}{b}"));
                    names.push(format!("_{a}{sep}{b}_"));
                    // More words than fit on the stack.
                    names.push(format!("{}{a}{sep}{b}", "w_".repeat(i)));
                }
            }
        }
        for name in names {
            let snake = to_snake_case(&name);
            let segs: Vec<&str> = snake.split('_').filter(|s| !s.is_empty()).collect();
            assert_eq!(secret_kind(&name), secret_kind_of(&segs), "{name}");
        }
    }

    #[test]
    fn a_prefix_the_list_shares_then_a_verb_passes() {
        let list = NameSet::new([
            "camera_zoom",
            "camera_rotate",
            "camera_recent_frames",
            "camera_frame_archive",
            "tracker_create_ticket",
        ]);
        let problem = |name| tool_name_problem_in(name, Some(&list));
        assert_eq!(problem("camera_zoom"), None);
        assert_eq!(problem("camera_rotate"), None);
        assert_eq!(problem("tracker_create_ticket"), None);
        // The prefix kept, the verb after it.
        assert_eq!(
            problem("camera_recent_frames").as_deref(),
            Some("name \"camera_recent_frames\" does not start with a verb; keep the prefix \"camera_\" that the list's tools share and put a verb after it, e.g. \"camera_get_recent_frames\"")
        );
        // A verb later in the name: no rewrite that could read worse.
        assert_eq!(
            problem("camera_frame_archive").as_deref(),
            Some("name \"camera_frame_archive\" does not start with a verb; keep the prefix \"camera_\" that the list's tools share and put a verb right after it (\"camera_<verb>_...\")")
        );
        // One tool does not make a shared prefix.
        assert!(problem("ledger_balance").is_some());
    }

    #[test]
    fn alone_a_first_word_then_a_verb_then_its_object_passes() {
        assert_eq!(tool_name_problem("tracker_create_ticket"), None);
        assert_eq!(tool_name_problem("camera_rotate_image"), None);
        // Two words whose second could be a verb: still reported, with no name to copy.
        let m = tool_name_problem("camera_zoom").unwrap();
        assert_eq!(m, "name \"camera_zoom\" does not start with a verb; put the action first (verb_object), or keep \"camera_\" as a prefix that other tools of the list share, then a verb");
    }

    #[test]
    fn a_suggested_name_never_puts_get_before_an_action() {
        for name in [
            "ledger_balance",
            "image_resizer",
            "csv_to_json",
            "news_search",
            "new_session",
            "unbookmark_page",
            "code_generator",
        ] {
            let m = tool_name_problem(name).unwrap();
            assert!(
                m.starts_with(&format!("name \"{name}\" does not start with a verb")),
                "{m}"
            );
            assert!(!m.contains("get_"), "{m}");
        }
        for (name, fixed) in [
            ("products", "get_products"),
            ("recent_frames", "get_recent_frames"),
        ] {
            assert!(tool_name_problem(name)
                .unwrap()
                .ends_with(&format!("e.g. \"{fixed}\"")));
        }
    }

    #[test]
    fn tool_names() {
        assert_eq!(tool_name_problem("search_products"), None);
        assert_eq!(tool_name_problem("get_file_info"), None);
        assert_eq!(
            tool_name_problem("searchProducts").as_deref(),
            Some("name \"searchProducts\" is not snake_case; use \"search_products\"")
        );
        assert_eq!(
            tool_name_problem("search").as_deref(),
            Some("name \"search\" is a verb alone; add what it acts on, as in \"search_<object>\"")
        );
        assert_eq!(
            tool_name_problem("products").as_deref(),
            Some("name \"products\" does not start with a verb; use verb_object, e.g. \"get_products\"")
        );
    }
}
