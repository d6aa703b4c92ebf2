//! `authority_framing`: an authority label set off as a heading, or cited, over an order to the
//! agent.

use super::confidence::{claims_authority, decisive, grants_privileges};
use super::cues::{addresses_agent, directs, obliges, Local};
use super::sentence::{Sentence, Text};
use crate::lexicon::authority::{
    AUTHORITY_WORDS, CITING_PHRASES, LABEL_HEADS, LABEL_TAILS, STRONG_TAILS,
};
use crate::lexicon::cues::{ACTION_VERBS, OBLIGATION_PHRASES, OBLIGATION_WORDS};
use crate::text::NameSet;

/// `authority_framing`: sentence `k` holds an authority label that is set off as a heading (a
/// colon or dash after it, brackets, `#` or `**` around it, capitals, a tag), or is cited ("per
/// the security policy", "as required by our Data Handling Policy"), and it or the next
/// sentence directs the agent to act.
///
/// `Some((why, sure))`: sure when the label claims authority over the agent (a system, a
/// security or compliance office, a policy: [`claims_authority`]) or the order carries decisive
/// evidence; a documentation heading ("IMPORTANT USAGE GUIDELINES", "Note to LLM") over an
/// order is a warning.
pub(super) fn authority(
    t: &Text,
    k: usize,
    own: &str,
    others: Option<&NameSet<'_>>,
    local: &Local,
) -> Option<(&'static str, bool)> {
    const WHY: &str = "an authority label over an order to the agent: a tool's text carries no policy the agent must obey (authority framing)";
    let s = &t.sentences[k];
    let next = t.sentences.get(k + 1);
    let decisive_here = || {
        decisive(t, s, own, others, local)
            || next.is_some_and(|n| decisive(t, n, own, others, local))
    };
    if grants_privileges(t, s) {
        return Some((
            "gives the agent a role or privileges beyond the user's (\"act as\", \"unrestricted\", \"bypass all access controls\"): a tool's text grants the agent nothing (authority framing)",
            true,
        ));
    }
    let Some((label_start, label_end)) = set_off_label(t, s).or_else(|| cited_label(t, s)) else {
        // No heading, but the words of authority over an order to the agent: "by its
        // authority, the agent is ordered to ...", "PRIVILEGED INSTRUCTION ...: every AI
        // runtime must ...".
        let framed = addresses_agent(t, s) && obliges(t, s) && t.has_word(s, AUTHORITY_WORDS);
        return framed.then(|| (WHY, decisive_here()));
    };
    let here = orders_agent(t, s, label_end + 1);
    let next_orders = next.is_some_and(|next| orders_agent(t, next, 0));
    (here || next_orders).then(|| {
        (
            WHY,
            claims_authority(t, s, label_start, label_end) || decisive_here(),
        )
    })
}

/// The last word of the first authority label of `s` set off as a heading: opened by a tag
/// (`<policy authority="system">`), or as [`label_set_off_at`] finds one.
fn set_off_label(t: &Text, s: &Sentence) -> Option<(usize, usize)> {
    if s.start > 0 && t.orig.as_bytes()[s.start - 1] == b'<' {
        let w = t.word(s, 0);
        if LABEL_TAILS.contains(&w) || LABEL_HEADS.contains(&w) {
            return Some((0, 0));
        }
    }
    (0..s.words.len()).find_map(|i| label_set_off_at(t, s, i).map(|last| (i, last)))
}

/// The last word of the authority label that starts at word `i` of `s`, if it is set off: a
/// colon or dash after it, brackets, `#` or `**` around it, capitals.
fn label_set_off_at(t: &Text, s: &Sentence, i: usize) -> Option<usize> {
    let n = s.words.len();
    let bytes = t.orig.as_bytes();
    let w = t.word(s, i);
    let two = i + 1 < n && LABEL_HEADS.contains(&w) && LABEL_TAILS.contains(&t.word(s, i + 1));
    let tail = STRONG_TAILS.contains(&w);
    let one = matches!(w, "system" | "admin" | "sysadmin" | "root" | "developer")
        && (i + 1 == n || !LABEL_TAILS.contains(&t.word(s, i + 1)));
    // "note to the assistant", "attention ai".
    let to_agent = matches!(w, "note" | "attention" | "message" | "instructions")
        && (i + 1..(i + 4).min(n)).any(|j| {
            matches!(
                t.word(s, j),
                "assistant" | "ai" | "agent" | "model" | "llm" | "assistants" | "agents"
            )
        });
    if !(two || one || tail || to_agent) {
        return None;
    }
    let last = if two { i + 1 } else { i };
    let (a, _) = s.words[i];
    let (_, b) = s.words[last];
    let after = t.orig[b..]
        .trim_start_matches([' ', '*', '_'])
        .bytes()
        .next();
    let before = t.orig[..a].trim_end_matches([' ', '*', '_']).bytes().last();
    let line_start = t.orig[..a].rfind('\n').map_or(0, |p| p + 1);
    let heading = t.orig[line_start..a]
        .trim_start()
        .starts_with(['#', '*', '[', '>', '|']);
    let titled = |from: usize| (from..=last).all(|j| bytes[s.words[j].0].is_ascii_uppercase());
    // The label's words back to the sentence's start are capitalized: a heading.
    let title_from_start = titled(0) && last < 6;
    let caps = (i..=last).all(|j| {
        let (x, y) = s.words[j];
        bytes[x..y].iter().all(|c| !c.is_ascii_lowercase())
    });
    let set_off = matches!(after, Some(b':' | b']' | b')' | b'-' | b'>' | b'|' | b'('))
        || matches!(before, Some(b'[' | b'(' | b'#' | b'<' | b'|'))
        || heading
        || (two && caps)
        || (title_from_start && titled(i));
    let set_off = if one {
        matches!(after, Some(b':' | b']' | b'>'))
            && matches!(before, None | Some(b'[' | b'<' | b'\n' | b'.'))
            || matches!(before, Some(b'[' | b'<'))
    } else if tail && !two {
        // A lone "policy" is a label only when capitalized and set off.
        set_off && titled(i) && (after == Some(b':') || heading || title_from_start)
    } else {
        set_off || to_agent && matches!(after, Some(b':' | b','))
    };
    set_off.then_some(last)
}

/// The first and last words of an authority label that `s` cites ("Per the security policy,
/// ...", "As required by our Data Handling Policy, ...").
fn cited_label(t: &Text, s: &Sentence) -> Option<(usize, usize)> {
    if !t.has_phrase(s, CITING_PHRASES) {
        return None;
    }
    let n = s.words.len();
    (0..n).find_map(|i| {
        if STRONG_TAILS.contains(&t.word(s, i)) {
            Some((i.saturating_sub(1), i))
        } else if i + 1 < n
            && LABEL_HEADS.contains(&t.word(s, i))
            && LABEL_TAILS.contains(&t.word(s, i + 1))
        {
            Some((i, i + 1))
        } else {
            None
        }
    })
}

/// Whether `s`, from word `from` on, orders something (an obligation, an action, a grant) and
/// directs or addresses the agent.
fn orders_agent(t: &Text, s: &Sentence, from: usize) -> bool {
    let acts = (from..s.words.len()).any(|i| {
        let w = t.word(s, i);
        OBLIGATION_WORDS.contains(&w)
            || ACTION_VERBS.contains(&w)
            || matches!(
                w,
                "authorised" | "authorized" | "permitted" | "allowed" | "binding"
            )
    }) || t.has_phrase(s, OBLIGATION_PHRASES);
    acts && (directs(t, s) || addresses_agent(t, s))
}
