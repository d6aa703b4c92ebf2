//! The lists of `parameter_tampering`: the parameters that steer, the verbs that set them, and the
//! words that make a value fixed or put one in place of another.

use crate::lexicon::terms::{terms, Terms};

/// Parameters whose value decides where money, messages or files go.
pub(crate) const STEERED_PARAMS: &Terms = terms![
    "recipient",
    "recipients",
    "destination",
    "address",
    "amount",
    "account",
    "payee",
    "iban",
    "wallet",
    "to",
    "cc",
    "bcc",
    "attendee",
    "attendees",
    "guests",
    "payout",
    "beneficiary",
    "routing",
    "url",
    "endpoint",
    "webhook",
    "path",
    "from",
    "price",
    "quantity",
    "currency",
    "email",
    "phone",
    "parameter",
    "parameters",
    "argument",
    "arguments",
    "field",
    "value",
    "setting",
    "folder",
    "id",
    "sharing",
    "visibility",
    "permission",
    "permissions",
    "access",
    "owner",
    "merchant",
    "handle",
    "remote",
    "ip",
    "record",
    "host",
    "server",
    "pay",
    "sum",
    "memo",
    "total",
    "subject",
    "invitee",
    "invitees",
    "emails",
    "branch",
    "reviewer",
];

/// Words that, beside an address in an order, add it to what the agent sends.
pub(crate) const ADDRESS_ADDED: &Terms = terms![
    "bcc",
    "cc",
    "recipient",
    "recipients",
    "copy",
    "forward",
    "add",
    "include",
    "also",
    "attendee",
    "attendees",
    "guest",
    "guests",
    "among",
    "invite",
    "slip",
    "besides",
];

/// Verbs that set a parameter to a value.
pub(crate) const SET_VERBS: &Terms = terms![
    "set",
    "change",
    "replace",
    "override",
    "overwrite",
    "substitute",
    "modify",
    "force",
    "hardcode",
    "use",
    "put",
    "pass",
    "fill",
    "specify",
    "setting",
    "changing",
    "replacing",
    "changed",
    "replaced",
    "rewritten",
    "rewrite",
    "be",
    "route",
    "send",
    "direct",
    "point",
    "redirect",
    "post",
    "write",
    "save",
    "increase",
    "increased",
    "multiply",
    "raise",
    "raised",
    "swap",
    "become",
    "becomes",
    "exchanged",
    "exchange",
    "slip",
];

/// Words that make a value fixed whatever was asked.
pub(crate) const ALWAYS_WORDS: &Terms = terms![
    "always",
    "regardless",
    "whatever",
    "whichever",
    "automatically",
    "silently",
    "secretly",
    "quietly",
    "instead",
    "every",
    "override",
    "overwrite",
];

/// Phrases that make a value fixed whatever was asked.
pub(crate) const ALWAYS_PHRASES: &Terms = terms![
    "no matter",
    "in all cases",
    "each time",
    "rather than",
    "in place of",
    "whenever",
    "on each",
];

/// Phrases that put one value in place of another.
pub(crate) const SUBSTITUTE_PHRASES: &Terms = terms![
    "in place of",
    "rather than",
    "instead of",
    "exchanged for",
    "swap",
];

/// Words that put one value in place of another.
pub(crate) const SUBSTITUTE_WORDS: &Terms = terms![
    "instead",
    "change",
    "replace",
    "substitute",
    "swap",
    "route",
    "redirect",
    "rewrite",
];

/// Words that multiply or raise a value.
pub(crate) const MULTIPLIED: &Terms = terms![
    "times",
    "double",
    "triple",
    "maximum",
    "increased",
    "increase",
    "multiply",
    "multiplied",
    "raised",
];

/// Verbs that change a value whatever it was.
pub(crate) const STRONG_SET_VERBS: &Terms = terms![
    "change",
    "replace",
    "override",
    "overwrite",
    "substitute",
    "modify",
    "changed",
    "replaced",
    "rewritten",
    "rewrite",
];

/// Phrases that aim an order at calls of a tool.
pub(crate) const WHEN_CALLING: &Terms = terms![
    "when you call",
    "when calling",
    "when you use",
    "when using",
    "whenever you",
    "when sending",
    "when you send",
];

/// Where money goes, or how much of it.
pub(crate) const MONEY: &Terms = terms![
    "amount",
    "payout",
    "account",
    "wallet",
    "iban",
    "payee",
    "beneficiary",
    "routing",
];
