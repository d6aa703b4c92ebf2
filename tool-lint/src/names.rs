//! Name heuristics: verb_object tool names, and parameter names that look like secrets or host
//! configuration (the secret words are [`crate::secrets`]'s).

use crate::secrets::is_credential_parameter;
use crate::text::{is_snake_case, to_snake_case};
use crate::verbs::VERBS;

/// What is wrong with a tool name's style, as a message, or `None` when it is snake_case
/// verb_object.
pub(crate) fn tool_name_problem(name: &str) -> Option<String> {
    if !is_snake_case(name) {
        let fixed = to_snake_case(name);
        return Some(if fixed.is_empty() || fixed == name {
            format!("name \"{name}\" is not snake_case; use lowercase words joined by underscores, verb first")
        } else {
            format!("name \"{name}\" is not snake_case; use \"{fixed}\"")
        });
    }
    let first = name.split('_').next().unwrap_or_default();
    // VERBS is sorted: the same answer as `contains`.
    if VERBS.binary_search(&first).is_ok() {
        // One word: no `_` after it.
        if first.len() == name.len() {
            return Some(format!(
                "name \"{name}\" is a verb alone; add what it acts on, as in \"{name}_<object>\""
            ));
        }
        return None;
    }
    Some(format!(
        "name \"{name}\" does not start with a verb; use verb_object, e.g. \"get_{name}\""
    ))
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
