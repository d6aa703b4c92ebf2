//! Runtime of [toolsmith](https://docs.rs/toolsmith): the tool spec model, schema generation and
//! hygiene, argument validation, the result envelope and the [`Toolbox`] that dispatches calls.
//!
//! Application crates depend on the `toolsmith` facade, which re-exports this crate and the
//! `#[tool]` macro; this crate is usable on its own to lint or export tool lists.
#![warn(missing_docs)]

pub mod approval;
pub mod audit;
pub mod budget;
pub mod envelope;
pub mod error;
pub mod idempotency;
pub mod policy;
pub mod redact;
pub mod spec;

pub use envelope::{Envelope, Status};
pub use error::ToolError;
pub use spec::{Allow, Effects, ToolSpec};
