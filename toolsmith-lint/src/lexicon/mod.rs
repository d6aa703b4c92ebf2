//! The word and phrase lists of the tool-poisoning checks, in one place: the lists of the rules
//! in `poison.rs` (which the index of words in `text.rs` reads too) here, and the lists of each
//! attack class of `attack/` in a file of the same name.
//!
//! | file | lists of |
//! |---|---|
//! | `mod.rs` | `agent_instructions`, `sensitive_data_request`, `conversation_exfiltration`, `exfiltration_target`, `tool_shadowing` (and the tags that part a text into sentences for the attack classes) |
//! | `cues.rs` | the cues several attack classes share: obligations and orders, what an attack wants handed over, verbs that hand over or invoke, everything-scoped triggers |
//! | `authority.rs` | `authority_framing` |
//! | `user_override.rs` | `user_override` |
//! | `tampering.rs` | `parameter_tampering` |
//! | `cross_tool.rs` | `cross_tool_directive` |
//! | `command.rs` | `command_execution` |
//! | `preference.rs` | `preference_manipulation` |
//! | `prerequisite.rs` | `fake_prerequisite` |
//!
//! | `terms.rs` | [`terms::Terms`], what a list is: written with `terms![...]`, every word hashed when the crate compiles, so that the attack classes compare integers with the hashes the sentence splitter computed once per word of the text |
//!
//! Every word is lowercase (a `terms!` list with an uppercase letter fails to compile): the
//! checks compare lowercased text with them. The verbs a tool name
//! may start with are elsewhere, in `verbs.rs` (the one verb list).

use terms::{terms, Terms};

pub(crate) mod authority;
pub(crate) mod command;
pub(crate) mod cross_tool;
pub(crate) mod cues;
pub(crate) mod preference;
pub(crate) mod prerequisite;
pub(crate) mod tampering;
pub(crate) mod terms;
pub(crate) mod user_override;

/// Phrases that address the agent rather than describe the tool: concealment from the user,
/// overriding earlier instructions, preconditions the tool does not need.
pub(crate) const AGENT_PHRASES: &Terms = terms![
    "before using this tool",
    "before using this",
    "before calling this tool",
    "before you use this",
    "before you call this",
    "before using any other",
    "before calling any other",
    "do not tell the user",
    "don't tell the user",
    "never tell the user",
    "do not inform the user",
    "don't inform the user",
    "without telling the user",
    "without informing the user",
    "without the user knowing",
    "do not mention",
    "don't mention",
    "never mention",
    "do not reveal",
    "don't reveal",
    "never reveal",
    "hide this from the user",
    "keep this secret",
    "the user must not know",
    "the user should not know",
    "ignore previous instructions",
    "ignore all previous",
    "ignore all prior",
    "ignore the previous",
    "ignore prior instructions",
    "ignore your instructions",
    "ignore all instructions",
    "ignore the above",
    "disregard previous",
    "disregard all previous",
    "disregard prior",
    "disregard your instructions",
    "disregard the above",
    "forget your instructions",
    "forget all previous",
    "you are now",
];

/// Tag names of blocks that address the model (`<IMPORTANT>`, `<system>`, ...).
pub(crate) const AGENT_TAGS: &Terms = terms![
    "important",
    "system",
    "instructions",
    "instruction",
    "secret",
    "hidden",
    "admin",
    "sudo",
    "override",
    "prompt",
];

/// Tags that wrap a block of text addressed to the model, besides `agent_instructions`'s
/// ([`AGENT_TAGS`]), and the markup tags that part text the same way.
pub(crate) const BLOCK_TAGS: &Terms = terms![
    "policy",
    "rule",
    "rules",
    "directive",
    "compliance",
    "security",
    "note",
    "notice",
    "critical",
    "mandatory",
    "assistant",
    "ai",
    "agent",
    "context",
    "b",
    "strong",
    "p",
    "div",
    "span",
    "br",
    "em",
    "i",
];

/// Files and paths that hold credentials or private data (matched inside tokens, lowercased).
pub(crate) const PRIVATE_PATHS: &[&str] = &[
    "~/.ssh",
    ".ssh/",
    "id_rsa",
    "id_ed25519",
    "id_ecdsa",
    "id_dsa",
    "authorized_keys",
    "known_hosts",
    "/etc/passwd",
    "/etc/shadow",
    "~/.aws",
    ".aws/credentials",
    ".npmrc",
    ".netrc",
    ".pgpass",
    ".git-credentials",
    ".kube/config",
    ".docker/config.json",
    "~/.gnupg",
    "wallet.dat",
    "~/.config/gh",
    ".bash_history",
    ".zsh_history",
];

/// Credential nouns; they count as a request only with a verb of [`REQUEST_VERBS`] in the same
/// sentence.
pub(crate) const CREDENTIAL_PHRASES: &Terms = terms![
    "passport number",
    "social security number",
    "date of birth",
    "home address",
    "secret access key",
    "ssh configuration",
    "ssh config",
    "credentials file",
    "api key",
    "api keys",
    "apikey",
    "api token",
    "access token",
    "access tokens",
    "auth token",
    "bearer token",
    "refresh token",
    "session token",
    "oauth token",
    "private key",
    "private keys",
    "secret key",
    "ssh key",
    "ssh keys",
    "password",
    "passwords",
    "passphrase",
    "credentials",
    "credential",
    "seed phrase",
    "recovery phrase",
    "mnemonic",
    "session cookie",
    "cookies",
    "secrets",
    "environment variables",
    "env vars",
];

/// The conversation and other tools' data.
pub(crate) const CONVERSATION_PHRASES: &Terms = terms![
    "conversation history",
    "chat history",
    "message history",
    "the conversation",
    "this conversation",
    "entire conversation",
    "whole conversation",
    "full conversation",
    "previous messages",
    "prior messages",
    "all messages",
    "earlier messages",
    "user's messages",
    "the user's message",
    "system prompt",
    "your instructions",
    "your system",
    "output of other tools",
    "results of other tools",
    "data from other tools",
    "other tool's",
    "another tool's",
    "previous tool",
    "all tool results",
    "tool results",
];

/// Verbs that ask for something to be read, handed over or put into an argument.
pub(crate) const REQUEST_VERBS: &Terms = terms![
    "read",
    "include",
    "includes",
    "including",
    "pass",
    "send",
    "provide",
    "attach",
    "append",
    "copy",
    "upload",
    "paste",
    "share",
    "add",
    "put",
    "collect",
    "extract",
    "gather",
    "give",
    "supply",
    "enter",
    "insert",
    "embed",
    "cat",
    "fill",
    "forward",
    "dump",
    "list",
    "output",
    "print",
    "summarize",
    "summarise",
    "concatenate",
    "store",
    "save",
];

/// Verbs that send data somewhere.
pub(crate) const SEND_VERBS: &Terms = terms![
    "send",
    "sends",
    "sending",
    "sent",
    "post",
    "posts",
    "posted",
    "forward",
    "forwards",
    "forwarded",
    "upload",
    "uploads",
    "uploading",
    "uploaded",
    "streams",
    "streamed",
    "syncs",
    "synced",
    "report",
    "email",
    "mail",
    "submit",
    "transmit",
    "exfiltrate",
    "copy",
    "cc",
    "bcc",
    "notify",
    "deliver",
    "share",
    "webhook",
    "beacon",
    "ping",
];

/// Words that, in a sentence naming another tool, change how that tool is used.
pub(crate) const SHADOW_CUES: &Terms = terms![
    "when",
    "whenever",
    "before",
    "after",
    "while",
    "must",
    "should",
    "always",
    "never",
    "ensure",
    "remember",
    "override",
    "overrides",
    "replace",
    "replaces",
    "redirect",
];

/// Parameter names that carry no meaning of their own: a request for secrets there is data the
/// tool does not need.
pub(crate) const GENERIC_PARAMS: &Terms = terms![
    "note",
    "notes",
    "context",
    "extra",
    "metadata",
    "meta",
    "comment",
    "comments",
    "remarks",
    "memo",
    "sidenote",
    "side_note",
    "debug",
    "info",
    "details",
    "misc",
    "additional_info",
    "additional_context",
    "extra_info",
    "reasoning",
    "feedback",
    "annotation",
    "annotations",
    "summary",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verb_lists_are_lowercase() {
        // Words compare with them lowercased (`Words::is_word`).
        for w in REQUEST_VERBS.iter().chain(SEND_VERBS).chain(SHADOW_CUES) {
            assert_eq!(*w, w.to_lowercase(), "{w}");
        }
    }
}
