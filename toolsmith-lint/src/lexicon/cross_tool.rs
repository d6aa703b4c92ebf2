//! The lists of `cross_tool_directive`: when another call is to happen, and the plain purposes of
//! looking something up.

use crate::lexicon::terms::{terms, Terms};

/// Order words: when another call is to happen.
pub(crate) const SEQUENCE_WORDS: &Terms = terms![
    "before",
    "after",
    "prior",
    "first",
    "then",
    "whenever",
    "once",
    "following",
    "afterwards",
    "instead",
    "also",
    "beforehand",
    "subsequently",
    "subsequent",
    "until",
    "when",
];

/// Purposes of looking something up ("to obtain", "to resolve"): with a word of [`THINGS`],
/// an order to call another tool for one is a workflow, not an attack.
pub(crate) const LOOKUP: &Terms = terms![
    "to obtain",
    "to get",
    "to find",
    "to look up",
    "to resolve",
    "to learn",
    "to see",
    "to discover",
    "to know",
    "to retrieve",
    "to list",
    "to determine",
    "to identify",
];

/// What a lookup ([`LOOKUP`]) plainly fetches: ids, names, paths, schemas, status.
pub(crate) const THINGS: &Terms = terms![
    "id",
    "ids",
    "identifier",
    "identifiers",
    "name",
    "names",
    "list",
    "schema",
    "path",
    "paths",
    "url",
    "structure",
    "format",
    "version",
    "details",
    "progress",
    "status",
    "sku",
    "columns",
    "tables",
];
