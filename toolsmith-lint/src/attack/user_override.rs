//! `user_override`: the user's request is to be ignored, outranked or bypassed, or their consent
//! skipped or claimed.

use super::cues::{directs, protective, third_person_start};
use super::sentence::{Sentence, Text};
use crate::lexicon::terms::terms;
use crate::lexicon::user_override::{
    AGAINST_USER, APPROVAL_IN_ADVANCE, CONSENT_CLAIMED, CONSENT_PHRASES, CONSENT_WORDS,
    DISMISS_STRONG, DISMISS_WEAK, INPUT_REF, SKIPPED_CONSENT, SKIP_ASKING, SKIP_PHRASES,
    SKIP_WORDS, USERISH, USER_REF,
};

/// `user_override`: the user's request is to be ignored, outranked or bypassed.
pub(super) fn user_override(t: &Text, s: &Sentence) -> Option<&'static str> {
    if protective(t, s) {
        return None;
    }
    dismisses_request(t, s)
        .or_else(|| sets_instructions_aside(t, s))
        .or_else(|| waives_consent(t, s))
        .or_else(|| overrides_user(t, s))
        .or_else(|| {
            (t.has_phrase(s, AGAINST_USER)
                && (directs(t, s) || t.has_word(s, terms!["ignore", "ignored"])))
            .then_some("orders an action against what the user asked (user override)")
        })
        .or_else(|| {
            // Skipping the user's consent.
            (t.has_phrase(s, SKIP_ASKING)
                && t.has_word(s, SKIPPED_CONSENT)
                && directs(t, s)
                && !third_person_start(t, s))
            .then_some("tells the agent to act without the user's confirmation (user override)")
        })
        .or_else(|| {
            t.has_phrase(s, APPROVAL_IN_ADVANCE)
                .then_some(APPROVAL_CLAIMED)
        })
}

/// Why a claim of the user's approval in advance is an override.
pub(super) const APPROVAL_CLAIMED: &str = "claims the user's approval in advance (user override)";

/// `user_override` by a dismissal of what the user asked for: "the user's instructions are
/// irrelevant", or a weaker one ("ignore", "instead") in an order.
fn dismisses_request(t: &Text, s: &Sentence) -> Option<&'static str> {
    if !(t.has_word(s, USER_REF) && t.has_word(s, INPUT_REF)) {
        return None;
    }
    let ordering = directs(t, s) && !third_person_start(t, s);
    (t.has_phrase(s, DISMISS_STRONG) || (ordering && t.has_phrase(s, DISMISS_WEAK)))
        .then_some("tells the agent to set aside what the user asked for (user override)")
}

/// `user_override` by consent skipped or claimed: "confirmation ... is unnecessary", "do not
/// pause to double-check", "the user already agreed to this".
fn waives_consent(t: &Text, s: &Sentence) -> Option<&'static str> {
    let n = s.words.len();
    let consent = t.has_word(s, CONSENT_WORDS) || t.has_phrase(s, CONSENT_PHRASES);
    let skipped = t.has_word(s, SKIP_WORDS) || t.has_phrase(s, SKIP_PHRASES);
    let claimed = t.has_phrase(s, CONSENT_CLAIMED);
    // The skipping governs the consent: "do not wait for their go-ahead", "confirmation ... is
    // unnecessary", not "do not accept X that confirms a purchase".
    let governs = (0..n).any(|i| {
        matches!(
            t.word(s, i),
            "confirmation"
                | "confirm"
                | "approval"
                | "approve"
                | "permission"
                | "consent"
                | "double-check"
                | "sign-off"
                | "authorization"
                | "authorisation"
                | "yes"
                | "ask"
                | "asking"
                | "check"
                | "review"
                | "go-ahead"
        ) && (i.saturating_sub(5)..(i + 6).min(n)).any(|j| {
            matches!(
                t.word(s, j),
                "unnecessary"
                    | "skip"
                    | "pause"
                    | "needless"
                    | "without"
                    | "no"
                    | "never"
                    | "don't"
                    | "not"
                    | "need"
            )
        })
    });
    (consent
        && (governs || claimed)
        && (skipped || claimed)
        && (directs(t, s) || claimed || t.has_phrase(s, terms!["go ahead", "proceed"]))
        && !third_person_start(t, s))
    .then_some("tells the agent to act without the user's confirmation (user override)")
}

/// `user_override` by a word that sets the user aside in an order: ignore, override, priority
/// over, regardless.
fn overrides_user(t: &Text, s: &Sentence) -> Option<&'static str> {
    let n = s.words.len();
    let userish = |k: usize| USERISH.contains(&t.word(s, k));
    for i in 0..n {
        let w = t.word(s, i);
        let window = |len: usize| i + 1..(i + 1 + len).min(n);
        match w {
            "ignore" | "ignoring" | "ignored" | "disregard" | "disregarding" | "disregarded"
            | "neglect" | "discard" | "discarded" | "drop" | "omit"
                if (0..n).any(userish)
                    && !third_person_start(t, s)
                    && (directs(t, s) || matches!(w, "ignored" | "disregarded" | "discarded")) =>
            {
                return Some("tells the agent to ignore what the user asked for (user override)");
            }
            "override" | "overrides" | "overridden" | "overriding" | "overrule" | "overrules"
            | "supersede" | "supersedes" | "outrank" | "outranks"
                if overrides_at(t, s, i) && (0..n).any(userish) =>
            {
                return Some(
                    "claims to override the user's request or instructions (user override)",
                );
            }
            "priority" | "precedence" | "priorities"
                if window(2).any(|k| matches!(t.word(s, k), "over" | "above"))
                    && window(8).any(|k| {
                        userish(k)
                            || matches!(
                                t.word(s, k),
                                "any" | "all" | "other" | "everything" | "previous"
                            )
                    }) =>
            {
                return Some(
                    "claims priority over the user's request or other instructions (user override)",
                );
            }
            "regardless" | "whichever" | "whatever" if (0..n).any(userish) && directs(t, s) => {
                return Some("orders an action regardless of what the user asked (user override)");
            }
            _ => {}
        }
    }
    None
}

/// Whether the override word at `i` of `s` is a verb ("a feature-flag override" is a noun) that
/// overrides the user or their instructions within eight words ("overridden" on its own).
fn overrides_at(t: &Text, s: &Sentence, i: usize) -> bool {
    let w = t.word(s, i);
    let prev = (i > 0).then(|| t.word(s, i - 1));
    let noun = prev.is_some_and(|p| {
        matches!(
            p,
            "a" | "an" | "the" | "this" | "that" | "any" | "each" | "its"
        ) || p.ends_with("-flag")
            || p == "flag"
    });
    !noun
        && (w == "overridden"
            || (i + 1..(i + 9).min(s.words.len())).any(|k| {
                matches!(
                    t.word(s, k),
                    "user" | "user's" | "users" | "human" | "instructions" | "prompt" | "anything"
                )
            }))
}

/// Why setting the agent's own instructions aside is an override.
pub(super) const INSTRUCTIONS_ASIDE: &str =
    "tells the agent to set aside its instructions (\"ignore previous instructions\"): what the user and the host told it comes first (user override)";

/// `user_override` by the agent's instructions set aside: "ignore previous safety guidelines",
/// "disregard all prior instructions", "forget your rules".
pub(super) fn sets_instructions_aside(t: &Text, s: &Sentence) -> Option<&'static str> {
    let n = s.words.len();
    (0..n)
        .any(|i| {
            matches!(
                t.word(s, i),
                "ignore" | "disregard" | "forget" | "override" | "bypass"
            ) && (i + 1..(i + 5).min(n)).any(|j| {
                matches!(
                    t.word(s, j),
                    "previous" | "prior" | "above" | "earlier" | "your" | "system"
                ) && (j + 1..(j + 3).min(n)).any(|k| {
                    matches!(
                        t.word(s, k),
                        "instructions"
                            | "instruction"
                            | "guidelines"
                            | "rules"
                            | "restrictions"
                            | "prompt"
                            | "directives"
                    )
                })
            })
        })
        .then_some(INSTRUCTIONS_ASIDE)
}
