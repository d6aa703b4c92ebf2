//! `parameter_tampering`: an address of its own added to what the agent sends, or a parameter set
//! to a fixed value.

use super::cues::{
    directs, imperative, is_email, literal, names_address, names_other_tool, obliges, tokens,
    universal,
};
use super::sentence::{Sentence, Text};
use crate::lexicon::tampering::{
    ADDRESS_ADDED, ALWAYS_PHRASES, ALWAYS_WORDS, MULTIPLIED, SET_VERBS, STEERED_PARAMS,
    STRONG_SET_VERBS, SUBSTITUTE_PHRASES, SUBSTITUTE_WORDS, WHEN_CALLING,
};
use crate::text::NameSet;

/// `parameter_tampering`: an address of its own added to what the agent sends, or a parameter
/// set to a fixed value always, for another tool, or against what was given.
pub(super) fn tampering(
    t: &Text,
    s: &Sentence,
    own: &str,
    others: Option<&NameSet<'_>>,
    in_param: bool,
) -> Option<&'static str> {
    if names_address(t, s)
        && tokens(&t.orig[s.start..s.end]).any(|(_, tok)| is_email(tok))
        && (obliges(t, s) || (imperative(t, s) && t.has_word(s, ADDRESS_ADDED)))
    {
        return Some("adds an address of its own to what the agent sends (parameter tampering)");
    }
    let always = t.has_word(s, ALWAYS_WORDS) || t.has_phrase(s, ALWAYS_PHRASES) || universal(t, s);
    let substitutes = t.has_phrase(s, SUBSTITUTE_PHRASES) || t.has_word(s, SUBSTITUTE_WORDS);
    // In a parameter's own description the parameter is the one set.
    if in_param && (always || substitutes) && literal(t, s, 0) && directs(t, s) {
        return Some(
            "sets this parameter to a fixed value the user did not ask for (parameter tampering)",
        );
    }
    fixes_parameter(t, s, own, others, always).then_some(
        "sets a parameter to a fixed value the user did not ask for (parameter tampering)",
    )
}

/// Whether `s` orders a parameter set to a literal (or multiplied) value, and the order is
/// aimed: always (with `always`) or for another tool, at a parameter, or with a verb that
/// overrides; or money multiplied or fixed.
fn fixes_parameter(
    t: &Text,
    s: &Sentence,
    own: &str,
    others: Option<&NameSet<'_>>,
    always: bool,
) -> bool {
    let Some(verb) = t.find_word(s, 0, SET_VERBS) else {
        return false;
    };
    let multiplied = t.has_word(s, MULTIPLIED);
    if !(literal(t, s, verb + 1) || multiplied) || !directs(t, s) {
        return false;
    }
    let linked = (verb + 1..s.words.len()).any(|k| {
        matches!(
            t.word(s, k),
            "to" | "as" | "with" | "into" | "equal" | "be" | "by"
        )
    }) || t.orig[s.start..s.end].contains('=')
        || t.word(s, verb) == "be";
    if !linked {
        return false;
    }
    let strong_verb = t.has_word(s, STRONG_SET_VERBS);
    let steered = (verb..s.words.len()).any(|k| STEERED_PARAMS.contains(&t.word(s, k)))
        || (0..verb).any(|k| STEERED_PARAMS.contains(&t.word(s, k)))
        || t.orig[s.start..s.end].contains('`');
    let other_tool = names_other_tool(t, s, own, others) || t.has_phrase(s, WHEN_CALLING);
    let money = t.has_word(
        s,
        &["amount", "payout", "account", "wallet", "iban", "payee"],
    );
    (always && steered)
        || (other_tool && (steered || strong_verb))
        || (strong_verb && steered)
        || (money && (multiplied || always))
}
