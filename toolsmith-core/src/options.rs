//! Per-call settings: who is calling, and an explicit idempotency key.

use crate::policy::Caller;
use std::collections::BTreeSet;

/// Per-call settings: who is calling, and an explicit idempotency key.
#[derive(Clone, Debug, Default)]
pub struct CallOptions {
    /// `None` for the anonymous caller of [`CallOptions::new`]: most calls have no caller, and
    /// an anonymous `Caller` (two empty sets) costs a drop of its own on every call.
    caller: Option<Caller>,
    pub(crate) idempotency_key: Option<String>,
}

/// The caller of calls made without one.
static ANONYMOUS: Caller = Caller {
    id: None,
    roles: BTreeSet::new(),
    scopes: BTreeSet::new(),
};

impl CallOptions {
    /// The caller, anonymous unless one was set.
    pub(crate) fn who(&self) -> &Caller {
        self.caller.as_ref().unwrap_or(&ANONYMOUS)
    }

    /// Anonymous caller, no idempotency key.
    pub fn new() -> Self {
        Self::default()
    }

    /// The caller's identity, checked by the [`Policy`](crate::Policy) and recorded in the audit trail.
    #[must_use]
    pub fn caller(mut self, caller: Caller) -> Self {
        self.caller = Some(caller);
        self
    }

    /// An explicit idempotency key: a repeat of a completed call to the same tool with the same
    /// key and the same arguments, by the same caller, within the window is refused as
    /// `DUPLICATE` without running again; the key reused with other arguments is `invalid_input`
    /// (`IDEMPOTENCY_KEY_REUSED`).
    #[must_use]
    pub fn idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
        self
    }
}
