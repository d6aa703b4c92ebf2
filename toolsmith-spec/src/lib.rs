//! The agent-facing side of toolsmith, with no runtime: what a model reads about a tool and how
//! each platform must receive it.
//! The examples are written against the facade's paths (`toolsmith::...`), where a user meets
//! these items.
//!
//! - [`spec`]: [`ToolSpec`] (name, title, description, input and output schemas, [`Effects`],
//!   [`Allow`]s), its canonical JSON ([`canonical_json`]) and fingerprint.
//! - [`schema`]: schema generation (schemars) and hygiene: what a parameter's type becomes in
//!   the input schema, cleaned and inlined for every platform.
//! - [`export`]: the lowering of a tool list to MCP, OpenAI, Anthropic, Gemini and WebMCP, the
//!   artifacts a build writes, and the snapshot check of agent-facing text.
//! - [`lint`]: the lint rules (toolsmith-lint's) on specs.
//!
//! The runtime (validation, the call pipeline, the toolbox) is `toolsmith-core`, which builds on this
//! crate; the `toolsmith` CLI uses this crate alone, so it lowers, diffs and pins tool lists
//! without building the runtime.
//!
//! ```
//! # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
//! use toolsmith::export::{export, Target};
//! use toolsmith::ToolSpec;
//! let spec = ToolSpec::new(
//!     "get_weather",
//!     "Looks up the current weather. Returns the temperature in °C.",
//!     serde_json::json!({
//!         "type": "object",
//!         "properties": {"city": {"type": "string", "description": "The city, e.g. \"Oslo\"."}},
//!         "required": ["city"],
//!     }),
//! );
//! let tools = export(&[spec], Target::Anthropic { strict: false }).unwrap();
//! assert_eq!(tools[0]["name"], "get_weather");
//! ```

#![deny(unreachable_pub, missing_docs)]
pub mod deprecation;
pub mod export;
mod icon;
pub mod lint;
pub mod schema;
pub mod spec;
pub mod ui;

pub use deprecation::Deprecation;
pub use spec::{canonical_json, Allow, Effects, Namespace, TaskSupport, ToolSpec};
