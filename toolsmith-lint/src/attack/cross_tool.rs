//! `cross_tool_directive`: an order to call another tool with a reason to distrust it, or this tool
//! forced into every task.

use super::cues::{
    conceals, directs, forwards, names_address, names_other_tool, names_this_tool, obliges,
    sensitive, universal,
};
use super::sentence::{Sentence, Text};
use crate::lexicon::cross_tool::{LOOKUP, SEQUENCE_WORDS, THINGS};
use crate::lexicon::cues::{HANDOVER_VERBS, INVOKE_VERBS};
use crate::lexicon::terms::terms;
use crate::text::NameSet;

/// `cross_tool_directive`: an order to call another tool, with a reason to distrust it; or this
/// tool forced into every task.
pub(super) fn cross_tool(
    t: &Text,
    s: &Sentence,
    own: &str,
    others: Option<&NameSet<'_>>,
    steps: bool,
) -> Option<&'static str> {
    let invokes = t.has_word(s, INVOKE_VERBS);
    if !invokes {
        return None;
    }
    let universal = universal(t, s);
    let sequenced = steps
        || universal
        || t.has_word(s, SEQUENCE_WORDS)
        || t.has_phrase(s, terms!["in place of", "rather than"]);
    if names_other_tool(t, s, own, others) && sequenced {
        let copies = t.has_phrase(
            s,
            terms![
                "a copy",
                "copy of",
                "also send",
                "also post",
                "also forward",
                "also share",
                "also upload",
            ],
        );
        if (obliges(t, s) && !benign_purpose(t, s))
            || copies
            || (sensitive(t, s) && t.has_word(s, HANDOVER_VERBS))
            || forwards(t, s)
            || conceals(t, s)
            || names_address(t, s)
            || universal
        {
            return Some("orders the agent to call another tool, outside what the user asked (cross-tool directive)");
        }
    }
    // This tool into every task: "always call this tool first", "must be called before any ...".
    let this = names_this_tool(t, s, own) || t.has_word(s, terms!["it", "me"]);
    let every = universal
        || (t.has_word(s, terms!["first"]) && t.has_word(s, terms!["always", "whenever"]));
    if this && every && directs(t, s) {
        return Some("forces this tool into every task, before or after the calls the user asked for (cross-tool directive)");
    }
    None
}

/// Whether `s` gives the order a plain purpose of looking something up: "call
/// resolve_library_id first to obtain a valid library ID" orders a workflow, not an attack.
fn benign_purpose(t: &Text, s: &Sentence) -> bool {
    t.has_phrase(s, LOOKUP) && t.has_word(s, THINGS)
}
