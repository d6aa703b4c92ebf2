//! Stage `argument_size`: oversized arguments are refused before anything reads them, whatever
//! the tool.

use super::{CallState, Step};
use crate::arguments::Arguments;

/// Stage `argument_size`, with the largest arguments a call may send, in bytes of JSON.
pub(crate) struct ArgumentSize {
    pub(crate) max_bytes: usize,
}

impl ArgumentSize {
    pub(super) fn run(&self, call: &mut CallState<'_>) -> Step {
        let max = self.max_bytes;
        let size = match &call.raw {
            Some(Arguments::Text(text)) => crate::limits::check_text(text, max),
            Some(Arguments::TextRef(text)) => crate::limits::check_text(text, max),
            Some(Arguments::Value(v)) => crate::limits::check_value(v, max),
            Some(Arguments::ValueRef(v)) => crate::limits::check_value(v, max),
            None => Ok(()),
        };
        match size {
            Ok(()) => Step::Continue,
            Err(env) => Step::Refuse(env),
        }
    }
}
