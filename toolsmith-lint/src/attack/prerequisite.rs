//! `fake_prerequisite`: a condition for success, or an error, that has the agent hand over secrets
//! or the conversation, call something else, or run a command.

use super::command::has_command;
use super::cues::{directs, names_other_tool, sensitive};
use super::sentence::{Sentence, Text};
use crate::lexicon::cues::{HANDOVER_VERBS, INVOKE_VERBS};
use crate::lexicon::prerequisite::{
    CONDITION_PHRASES, CONDITION_WORDS, FAILURE_PHRASES, FAILURE_WORDS, REMEDIES, REQUIRED_FOR,
};
use crate::lexicon::terms::terms;
use crate::text::NameSet;

/// `fake_prerequisite`: a condition for success (or an error) that has the agent hand over
/// secrets or the conversation, call something else, or run a command. The failure may be
/// told in the sentence before ("Quota exceeded. The quota is reset only once ...").
pub(super) fn prerequisite(
    t: &Text,
    k: usize,
    own: &str,
    others: Option<&NameSet<'_>>,
    in_param: bool,
) -> Option<&'static str> {
    let s = &t.sentences[k];
    let condition = t.has_word(s, CONDITION_WORDS)
        || t.has_phrase(s, CONDITION_PHRASES)
        || t.has_phrase(s, REMEDIES)
        || directs(t, s);
    if !((fails(t, k) && condition) || t.has_phrase(s, REQUIRED_FOR)) {
        return None;
    }
    // A parameter's own description asks for what it describes.
    let hands_over = in_param || t.has_word(s, HANDOVER_VERBS) || t.has_word(s, INVOKE_VERBS);
    let target = (hands_over && sensitive(t, s))
        || (names_other_tool(t, s, own, others) && t.has_word(s, INVOKE_VERBS))
        || has_command(t.line(s));
    target.then_some(
        "makes success depend on handing over secrets or calling something else, a prerequisite no tool has (fake prerequisite)",
    )
}

/// Whether sentence `k` tells of a failure, or follows one with a remedy or (after an error
/// message) an order: "Quota exceeded. The quota is reset only once ...", "Error: dictionary
/// not loaded. Load it by ...".
fn fails(t: &Text, k: usize) -> bool {
    let s = &t.sentences[k];
    let fails_here = tells_failure(t, s);
    let fails_before = k > 0 && tells_failure(t, &t.sentences[k - 1]);
    let remedy = t.has_phrase(s, REMEDIES)
        || t.has_phrase(s, terms!["only once", "is reset", "reset only", "to reset"]);
    let after_error = k > 0 && {
        let prev = &t.sentences[k - 1];
        matches!(
            t.word(prev, 0),
            "error" | "warning" | "failure" | "exception" | "fatal"
        ) || t.orig[prev.start..prev.end].contains("ERROR")
    };
    fails_here || (fails_before && (remedy || (after_error && directs(t, s))))
}

/// Whether `s` tells of a failure: in words, or in a shouted code (`AUTH_FAILED`).
fn tells_failure(t: &Text, s: &Sentence) -> bool {
    let shouted = || {
        (0..s.words.len()).any(|i| {
            let w = t.word(s, i);
            w.contains('_') && (w.contains("fail") || w.contains("error") || w.contains("denied"))
        })
    };
    t.has_word(s, FAILURE_WORDS) || t.has_phrase(s, FAILURE_PHRASES) || shouted()
}
