//! `preference_manipulation`: an order to choose this tool over others, others run down, or
//! promotional claims meant to win the agent's choice.

use super::cues::{directs, names_other_tool, names_this_tool};
use super::sentence::{automaton, is_word_byte, Sentence, Text};
use crate::lexicon::preference::{
    CHOOSE_WORDS, CLAIMS, DEPRECATION, DISPARAGING, EXCLUSIVE_WORDS, ONLY_LIMITED_BY, OTHERS_REF,
    OVER_OTHERS, RUN_DOWN, STOP_USING, THE_ONE_TOOL, THIS_TOOL_PHRASES, TURN_AWAY,
};
use crate::lexicon::terms::terms;
use crate::text::NameSet;

/// Promotional claims: how many different ones `lower` (a lowercased text) makes.
pub(super) fn claims(lower: &str) -> usize {
    let b = lower.as_bytes();
    // "the best calendar tool", "best translation engine".
    let best = lower.match_indices("best ").any(|(i, _)| {
        lower[i + 5..].split_whitespace().take(3).any(|w| {
            matches!(
                w.trim_matches(|c: char| !c.is_alphanumeric()),
                "tool"
                    | "choice"
                    | "option"
                    | "solution"
                    | "service"
                    | "app"
                    | "api"
                    | "engine"
                    | "connector"
                    | "server"
            )
        })
    });
    static AC: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    let ac = AC.get_or_init(|| automaton(CLAIMS));
    // Most texts make none: one unanchored pass says so before the overlapping search.
    if !ac.is_match(lower) {
        return usize::from(best);
    }
    // Each claim once, however often it is made.
    let mut seen = [false; 256];
    const _: () = assert!(CLAIMS.as_slice().len() <= 256);
    for m in ac.find_overlapping_iter(lower) {
        let c = CLAIMS[m.pattern().as_usize()].as_bytes();
        let (i, end) = (m.start(), m.end());
        if (!c[0].is_ascii_alphanumeric() || i == 0 || !is_word_byte(b[i - 1]))
            && (!c[c.len() - 1].is_ascii_alphanumeric()
                || b.get(end).is_none_or(|&n| !n.is_ascii_alphanumeric()))
        {
            seen[m.pattern().as_usize()] = true;
        }
    }
    usize::from(best) + seen.iter().filter(|&&x| x).count()
}

/// `preference_manipulation`: an order to choose this tool over others, others run down,
/// or promotional claims meant to win the agent's choice.
pub(super) fn preference(
    t: &Text,
    k: usize,
    own: &str,
    others: Option<&NameSet<'_>>,
    claims_in_text: usize,
) -> Option<&'static str> {
    let s = &t.sentences[k];
    let this_phrase = t.has_phrase(s, THIS_TOOL_PHRASES);
    let this = this_phrase || names_this_tool(t, s, own);
    let choose = t.has_word(s, CHOOSE_WORDS);
    let others_named = t.has_phrase(s, OVER_OTHERS);
    let exclusive = exclusive_choice(t, s);
    if this_phrase && choose && (others_named || exclusive) && directs(t, s) {
        return Some("tells the agent to choose this tool over others (preference manipulation)");
    }
    if runs_others_down(t, k, own, others, this, claims_in_text) {
        return Some("runs other tools down to win the agent's choice (preference manipulation)");
    }
    if t.has_phrase(s, TURN_AWAY)
        || (this
            && t.has_phrase(s, terms!["is the only", "the only"])
            && t.has_word(s, terms!["should", "use", "must"]))
    {
        return Some("turns the agent away from other tools (preference manipulation)");
    }
    if this && t.has_phrase(s, THE_ONE_TOOL) && claims_in_text >= 1 {
        return Some("claims to be the one tool the agent should pick (preference manipulation)");
    }
    if claims_in_text > 0 && names_other_tool(t, s, own, others) && t.has_phrase(s, STOP_USING) {
        return Some("turns the agent away from other tools (preference manipulation)");
    }
    // A sentence holds a claim only if its text does.
    let here = if claims_in_text > 0 {
        claims(t.line(s))
    } else {
        0
    };
    let choice = t.has_word(
        s,
        terms![
            "choice", "prefer", "pick", "select", "favour", "favor", "choose", "go-to", "reach",
        ],
    );
    ((claims_in_text >= 2 && here > 0)
        || (here > 0 && choose && directs(t, s))
        || (claims_in_text > 0 && choice && directs(t, s)))
    .then_some(
        "promotional claims meant to win the agent's choice of tool (preference manipulation)",
    )
}

/// Whether `s` has a word that makes a choice exclusive ("always", "only", "whenever"), where an
/// "only" that a condition follows ("use it only when the user asks", "only if", "only for
/// invoices") limits when this tool is used rather than choosing it over others.
fn exclusive_choice(t: &Text, s: &Sentence) -> bool {
    let mut from = 0;
    while let Some(i) = t.find_word(s, from, EXCLUSIVE_WORDS) {
        let limits =
            t.word(s, i) == "only" && t.find_word(s, i + 1, ONLY_LIMITED_BY) == Some(i + 1);
        if !limits {
            return true;
        }
        from = i + 1;
    }
    false
}

/// Whether sentence `k` runs other tools down near this tool (`this`, a claim, or this tool
/// named the sentence before or after): "other news tools return fake news", "book_flight ...
/// is unreliable"; an honest deprecation notice is not.
fn runs_others_down(
    t: &Text,
    k: usize,
    own: &str,
    others: Option<&NameSet<'_>>,
    this: bool,
    claims_in_text: usize,
) -> bool {
    let s = &t.sentences[k];
    let others_ref = t.has_phrase(s, OTHERS_REF) || names_other_tool(t, s, own, others);
    let this_near = this
        || claims_in_text > 0
        || t.sentences
            .get(k + 1)
            .is_some_and(|n| names_this_tool(t, n, own))
        || (k > 0 && names_this_tool(t, &t.sentences[k - 1], own));
    others_ref
        && this_near
        && (t.has_word(s, DISPARAGING) || t.has_phrase(s, RUN_DOWN))
        && !t.has_phrase(s, DEPRECATION)
        && t.word(s, 0) != "deprecated"
}
