//! An error context that collects every error with its span, so one build reports them all.

use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

/// Collects errors; [`Ctxt::check`] combines them into one compile error.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an error pointing at `tokens`.
    pub fn error_spanned_by<A: ToTokens, T: Display>(&self, tokens: A, msg: T) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(tokens.into_token_stream(), msg));
    }

    /// Adds an error at a span.
    pub fn error_at<T: Display>(&self, span: proc_macro2::Span, msg: T) {
        self.errors.borrow_mut().push(syn::Error::new(span, msg));
    }

    /// Adds a parse error.
    pub fn syn_error(&self, err: syn::Error) {
        self.errors.borrow_mut().push(err);
    }

    /// All errors combined, or `Ok` when there are none.
    pub fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.into_inner().into_iter();
        let Some(mut combined) = errors.next() else {
            return Ok(());
        };
        for rest in errors {
            combined.combine(rest);
        }
        Err(combined)
    }
}
