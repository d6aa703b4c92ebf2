//! The integration tests of toolsmith-lint, one module per former `tests/*.rs` file.
//!
//! One test binary instead of one per file: each binary links the whole dependency graph, so
//! eight binaries linked it eight times; this one links it once (the layout clap uses).

mod attack_classes;
mod catalogs;
mod config;
mod poisoning;
mod real_servers;
mod rules;
mod severity;
mod verbs;
