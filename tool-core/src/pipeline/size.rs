//! Stage `argument_size`: oversized arguments are refused before anything reads them, whatever
//! the tool.

use super::{CallState, Shared, Step};
use crate::arguments::Arguments;

pub(super) fn run(sh: &Shared, call: &mut CallState<'_>) -> Step {
    let size = match &call.raw {
        Some(Arguments::Text(text)) => crate::limits::check_text(text, sh.max_argument_bytes),
        Some(Arguments::TextRef(text)) => crate::limits::check_text(text, sh.max_argument_bytes),
        Some(Arguments::Value(v)) => crate::limits::check_value(v, sh.max_argument_bytes),
        Some(Arguments::ValueRef(v)) => crate::limits::check_value(v, sh.max_argument_bytes),
        None => Ok(()),
    };
    match size {
        Ok(()) => Step::Continue,
        Err(env) => Step::Refuse(env),
    }
}
