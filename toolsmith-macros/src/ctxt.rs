//! An error context that collects every error with its span, so one build reports them all.
//!
//! As serde's `Ctxt` does, it refuses to be dropped unchecked: a code path that forgets to call
//! [`Ctxt::check`] would lose the user's errors, so dropping it with errors still inside panics
//! (a bug in this crate, caught by its own tests).

use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

/// Collects errors; [`Ctxt::check`] combines them into one compile error.
pub(crate) struct Ctxt {
    /// `None` once checked.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub(crate) fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    fn push(&self, err: syn::Error) {
        self.errors
            .borrow_mut()
            .as_mut()
            .expect("Ctxt used after check")
            .push(err);
    }

    /// Adds an error pointing at `tokens`.
    pub(crate) fn error_spanned_by<A: ToTokens, T: Display>(&self, tokens: A, msg: T) {
        self.push(syn::Error::new_spanned(tokens.into_token_stream(), msg));
    }

    /// Adds an error at a span.
    pub(crate) fn error_at<T: Display>(&self, span: proc_macro2::Span, msg: T) {
        self.push(syn::Error::new(span, msg));
    }

    /// Adds a parse error.
    pub(crate) fn syn_error(&self, err: syn::Error) {
        self.push(err);
    }

    /// All errors combined, or `Ok` when there are none.
    pub(crate) fn check(self) -> Result<(), syn::Error> {
        let errors = self.errors.borrow_mut().take().unwrap_or_default();
        let mut errors = errors.into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for rest in errors {
            combined.combine(rest);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("toolsmith-macros: an error context was dropped without being checked");
        }
    }
}
