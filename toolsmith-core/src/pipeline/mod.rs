//! The call pipeline: every call to a [`Toolbox`](crate::Toolbox) runs the same ordered list of
//! stages, written once in [`ORDER`].
//!
//! # The stages and their order
//!
//! | # | stage ([`StageId`]) | module | what it does |
//! |---|---|---|---|
//! | 1 | `argument_size` | `size` | refuses arguments larger than the limit, before anything parses them |
//! | 2 | `lookup` | `lookup` | finds the tool; an unknown or retired name is `invalid_input` naming the tools this caller may call (a retired deprecated tool: its replacement; `retire`) |
//! | 3 | `policy` | `policy` | the caller against the tool's declared effects; a denial costs no parsing or validation |
//! | 4 | `decode` | `decode` | JSON text to a value; "no arguments" (`null`, empty text) becomes `{}` (or, on the typed fast path, straight to the tool's checked arguments) |
//! | 5 | `validate` | `validate` | drops strict-mode `null`s of optional parameters, validates against the exact schema, normalizes integers, fills in defaults |
//! | 6 | `cursor` | `paging` | reads and checks the `cursor` argument (bound to tool, caller and arguments) |
//! | 7 | `before_hooks` | `hooks` | the host's before-hooks; an error stops the call |
//! | 8 | `stored_page` | `paging` | a later page of a kept result is served from the record store; of a write no longer kept, refused |
//! | 9 | `idempotency` | `idempotency` | claims the call's idempotency key; a repeat is refused (`DUPLICATE`, `IN_PROGRESS`, ...) |
//! | 10 | `approval` | `approval` | `requires_approval` tools ask the host's approver (with a timeout, a panic contained); a tool with a condition (`requires_approval(when = ..)`) only when it holds for the arguments |
//! | 11 | `execute` | `execute` | runs the tool with its timeout, catching panics |
//! | 12 | `output_contract` | `contract` | when checked (`check_output_contract`, by default in debug builds): the result must match the output schema; the reply becomes the envelope |
//! | 13 | `redact` | `redact` | secrets are masked in everything the envelope says |
//! | 14 | `idempotency_record` | `idempotency` | records the outcome under the claimed key (keeping the result a repeat points at) |
//! | 15 | `after_hooks` | `hooks` | the host's after-hooks see the envelope (they cannot change its outcome) |
//! | 16 | `budget` | `budget` | cuts `data` to the output budget (a note, a cursor, the raw result's `ref`), bounds the other channels |
//! | 17 | `audit` | `audit` | stamps the operation id and writes one audit record |
//!
//! The order is a security property: the size check comes before parsing, and the policy right
//! after the lookup, so a denied caller learns nothing about the parameters (tests/it/security.rs).
//!
//! # How a call flows
//!
//! `call` makes a `CallState` (tool name, caller options, operation id, the raw
//! [`Arguments`]) and `run` loops over [`ORDER`], passing over the stages that have nothing to do
//! for the call's tool and toolbox (no cursor parameter, no hooks, no idempotency key, no
//! approval, no redactor: `Idle`, known once the tool is). Each stage reads and fills the state:
//! lookup sets `entry`, decode sets `args` (or, on the typed fast path, `typed`: then `validate`
//! has nothing left to do and `execute` runs the tool on them; when no stage between them has
//! work, a sync tool is decoded and run by `decode` in one call, and `execute` is not visited),
//! cursor sets `page` (for a tool with a cursor parameter), idempotency holds a `claim`, execute
//! leaves a `reply` and whether the tool `ran`, and a stage that has the answer sets `env`. A
//! stage returns a `Step`:
//!
//! - `Continue`: the next stage runs;
//! - `Refuse(env)`: the call ends before an answer (unknown tool, denial, invalid arguments, a
//!   before-hook's error, an expired page, a host stage): the remaining *call* stages are
//!   skipped, and of the *finishing* stages (`redact` onwards, [`StageId::finishes`]) only
//!   redaction, the idempotency record (a claim is released), the bounding of the channels and
//!   the audit apply;
//! - `Answer(env)`: the call has its answer (a stored page, a duplicate, an approval refusal, the
//!   tool's result or error): the remaining call stages are skipped, and every finishing stage
//!   runs.
//!
//! [`Toolbox::call_json`](crate::Toolbox::call_json) runs the same stages and asks a `#[tool]`'s generated executor for its
//! result as JSON text (`encoding`) instead of a value: `output_contract` checks the text's depth
//! (and, when the contract is checked, parses it for the schema), and the answer keeps it in `data_text`
//! while `env.data` stays empty. A stage that reads or changes the data turns it into the value
//! first (`CallState::materialize`): redaction when some string in it may hold a secret, the
//! budget when it does not fit, the idempotency record, after-hooks. Otherwise the text goes into
//! the envelope's JSON as it is, so the result is serialized once.
//!
//! Everything before `audit` runs behind one panic guard: a panic in host code (a hook, the
//! approver, the record store) becomes the generic `failed`/`INTERNAL` envelope, and the audit
//! still writes its record; a call whose future is dropped is audited as `CANCELLED`
//! (`audit::record_dropped`). With the `tracing` feature the whole call runs inside a span
//! (`telemetry`).
//!
//! # Adding a stage
//!
//! - **Host stages** (no change to this crate): implement [`Stage`] and add it with
//!   [`ToolboxBuilder::stage`](crate::ToolboxBuilder::stage) before one of the call stages
//!   ([`StageId::accepts_host_stage`]). It sees a [`StageCall`] and continues or ends the call
//!   with an envelope ([`Flow`]), which is answered like a built-in refusal.
//! - **A built-in stage**: add a module here with the struct of the settings it owns, a field
//!   for it in `Stages` (filled in by the builder's `into_stages`), a variant to [`StageId`]
//!   (with its name and summary), its place in [`ORDER`], and its arm in `run`'s match, which
//!   hands it its settings; the calling guide's pipeline table (`src/docs/guide/calling.md`) is checked against [`ORDER`] by
//!   tests/it/readme.rs.

use crate::codes;
pub(crate) mod approval;
pub(crate) mod audit;
pub(crate) mod budget;
mod contract;
pub(crate) mod decode;
pub(crate) mod execute;
mod hooks;
pub(crate) mod idempotency;
mod lookup;
pub(crate) mod paging;
pub(crate) mod policy;
pub(crate) mod prepare;
pub(crate) mod redact;
pub(crate) mod registry;
pub(crate) mod retire;
pub(crate) mod size;
mod stage;
mod telemetry;
pub(crate) mod threads;
pub(crate) mod validate;

pub(crate) use contract::unencodable;
pub(crate) use prepare::{prepare, Entry};
pub use stage::{Flow, Stage, StageCall, StageFuture};

use crate::approval::Hooks;
use crate::arguments::Arguments;
use crate::budget::PageRequest;
use crate::envelope::Envelope;
use crate::error::ToolError;
use crate::idempotency::Ticket;
use crate::operation::OperationId;
use crate::options::CallOptions;
use crate::reply::{Encoded, Encoding, Reply};
use crate::typed::TypedArgs;
use registry::Engine;
use serde_json::Value;
use std::sync::Arc;

/// One stage of the call pipeline. [`ORDER`] lists them in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StageId {
    /// Refuses arguments over the size limit, before they are parsed.
    ArgumentSize,
    /// Finds the tool by name.
    Lookup,
    /// Checks the caller against the tool's declared effects.
    Policy,
    /// Parses the arguments (JSON text) into a value.
    Decode,
    /// Validates the arguments against the tool's schema and fills in defaults.
    Validate,
    /// Reads and checks the `cursor` argument.
    Cursor,
    /// Runs the host's before-hooks.
    BeforeHooks,
    /// Serves a later page of a kept result from the record store.
    StoredPage,
    /// Claims the call's idempotency key.
    Idempotency,
    /// Asks the host's approver (for `requires_approval` tools).
    Approval,
    /// Runs the tool.
    Execute,
    /// Checks the result against the output schema (when checked) and makes the envelope.
    OutputContract,
    /// Masks secrets in the envelope.
    Redact,
    /// Records the outcome under the claimed idempotency key.
    IdempotencyRecord,
    /// Runs the host's after-hooks.
    AfterHooks,
    /// Cuts the envelope to the output budget.
    Budget,
    /// Stamps the operation id and writes the audit record.
    Audit,
}

/// The pipeline's order, written once: the call loop runs it, the host places its stages by it,
/// and the calling guide's pipeline table (`src/docs/guide/calling.md`) is checked against it.
pub const ORDER: &[StageId] = &[
    StageId::ArgumentSize,
    StageId::Lookup,
    StageId::Policy,
    StageId::Decode,
    StageId::Validate,
    StageId::Cursor,
    StageId::BeforeHooks,
    StageId::StoredPage,
    StageId::Idempotency,
    StageId::Approval,
    StageId::Execute,
    StageId::OutputContract,
    StageId::Redact,
    StageId::IdempotencyRecord,
    StageId::AfterHooks,
    StageId::Budget,
    StageId::Audit,
];

impl StageId {
    /// The stage's name, as the calling guide's pipeline table (`src/docs/guide/calling.md`) writes it (`snake_case`).
    pub fn name(self) -> &'static str {
        match self {
            StageId::ArgumentSize => "argument_size",
            StageId::Lookup => "lookup",
            StageId::Policy => "policy",
            StageId::Decode => "decode",
            StageId::Validate => "validate",
            StageId::Cursor => "cursor",
            StageId::BeforeHooks => "before_hooks",
            StageId::StoredPage => "stored_page",
            StageId::Idempotency => "idempotency",
            StageId::Approval => "approval",
            StageId::Execute => "execute",
            StageId::OutputContract => "output_contract",
            StageId::Redact => "redact",
            StageId::IdempotencyRecord => "idempotency_record",
            StageId::AfterHooks => "after_hooks",
            StageId::Budget => "budget",
            StageId::Audit => "audit",
        }
    }

    /// Whether the stage runs on every call once it has an envelope (`redact` onwards), rather
    /// than only while the call has none.
    pub fn finishes(self) -> bool {
        matches!(
            self,
            StageId::Redact
                | StageId::IdempotencyRecord
                | StageId::AfterHooks
                | StageId::Budget
                | StageId::Audit
        )
    }

    /// Whether a host stage may run just before this one: any call stage after the size check
    /// (`lookup` to `output_contract`). A stage before `lookup` sees no tool spec, one before
    /// `validate` sees arguments that are parsed but not yet validated (none before `decode`),
    /// and one from `cursor` on sees them validated, with defaults filled in.
    pub fn accepts_host_stage(self) -> bool {
        self != StageId::ArgumentSize && !self.finishes()
    }
}

impl std::fmt::Display for StageId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a built-in stage decides. The envelope is boxed: a step is returned by every stage
/// (and out of the futures of those that await) on every call, and the happy path, made of
/// `Continue`s, should not copy an envelope-sized value each time.
pub(crate) enum Step {
    /// The next stage runs.
    Continue,
    /// The call ends before an answer: only the finishing stages that sanitize and record run.
    Refuse(Box<Envelope>),
    /// The call has its answer: the finishing stages run.
    Answer(Box<Envelope>),
}

impl Step {
    /// [`Step::Refuse`] with `env`.
    pub(crate) fn refuse(env: Envelope) -> Step {
        Step::Refuse(Box::new(env))
    }

    /// [`Step::Answer`] with `env`.
    pub(crate) fn answer(env: Envelope) -> Step {
        Step::Answer(Box::new(env))
    }
}

/// Whether the executor ran, for what the idempotency record keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ran {
    /// Refused before it started (approval rejected or unavailable).
    NotRun,
    /// It returned a result, an error included (an error that says it did nothing still
    /// releases the key: `idempotency::did_not_act`).
    Returned,
    /// It was stopped (timeout) or crashed (panic): its effects are unknown.
    Stopped,
}

/// The built-in stages, each with the configuration it owns, and the host's stages: assembled
/// by [`ToolboxBuilder::build`](crate::ToolboxBuilder::build), fixed for the toolbox's life.
/// A stage reads its own settings only (what two stages both need, such as the record store,
/// each holds a handle to); the call loop ([`run`]) hands each its part.
pub(crate) struct Stages {
    pub(crate) size: size::ArgumentSize,
    pub(crate) policy: policy::PolicyCheck,
    pub(crate) decode: decode::Decode,
    pub(crate) paging: paging::Paging,
    pub(crate) hooks: Hooks,
    pub(crate) claims: idempotency::Claims,
    pub(crate) approval: approval::Approve,
    pub(crate) execute: execute::Execute,
    pub(crate) redact: redact::Redact,
    pub(crate) cut: budget::OutputCut,
    pub(crate) audit: audit::AuditTrail,
    /// The host's stages, each with the built-in stage it runs before, in [`ORDER`].
    pub(crate) host: Vec<(StageId, Arc<dyn Stage>)>,
}

/// What flows between the stages of one call.
///
/// Dropped while `in_flight` (the host dropped the call's future before it finished), it writes
/// the call's audit record as cancelled ([`audit::record_dropped`]).
pub(crate) struct CallState<'a> {
    /// The toolbox the call runs in.
    pub(crate) engine: &'a Engine,
    /// The tool name the call asked for.
    pub(crate) name: &'a str,
    pub(crate) options: &'a CallOptions,
    /// The call's operation id (its text is built when a stage reads it).
    pub(crate) operation_id: &'a OperationId,
    /// What a dropped call's audit record needs to know, kept as the stages learn it.
    pub(crate) trace: &'a audit::Trace,
    /// When the call began: read only for a toolbox with an audit sink.
    pub(crate) started: Option<std::time::Instant>,
    /// The pipeline has not finished: a drop now is the host dropping the call.
    pub(crate) in_flight: bool,
    /// The arguments as sent, until `decode` parses them.
    pub(crate) raw: Option<Arguments<'a>>,
    /// The tool, from `lookup` on.
    pub(crate) entry: Option<Arc<Entry>>,
    /// A retired tool the call named (`entry` stays empty): for its audit record.
    pub(crate) retired: Option<Arc<Entry>>,
    /// The arguments, from `decode` on (validated and complete after `validate`); `None` on
    /// the typed fast path.
    pub(crate) args: Option<Value>,
    /// The arguments the typed fast path decoded and checked (`decode`), until `execute`. In a
    /// mutex only so the call state stays `Sync` (host stages borrow it across an await): the
    /// value is only ever moved, so the lock is never taken.
    pub(crate) typed: Option<std::sync::Mutex<TypedArgs>>,
    /// The page the call asks for, from `cursor` on; `None` for a tool without a cursor
    /// parameter, which shows the first page (`budget` builds it when a value must be cut).
    /// Boxed: only calls of a paginated tool have one, and every call's state is moved with the
    /// call's future.
    pub(crate) page: Option<Box<PageRequest>>,
    /// The claimed idempotency key, from `idempotency` to `idempotency_record`. Boxed: only
    /// calls with a key have one, and every call's state is moved with the call's future.
    pub(crate) claim: Option<Box<Ticket<'a>>>,
    /// For a call with a claim, from `execute` on: what the tool said of its effects while it
    /// ran ([`crate::client::Talk`]), read by `idempotency_record`.
    pub(crate) talk: Option<Arc<crate::client::Talk>>,
    /// Whether the call is put to the approver and why, once decided (`approval::decide`, from
    /// `idempotency` or `approval`, whichever asks first); `None` for a tool that never needs
    /// approval, or before the decision.
    pub(crate) approval: Option<crate::approval::ApprovalBasis>,
    /// Whether the tool ran.
    pub(crate) ran: Ran,
    /// How a typed tool encodes its result: as a value for an [`Envelope`], as JSON text for
    /// [`Toolbox::call_json`](crate::Toolbox::call_json).
    pub(crate) encoding: Encoding<'static>,
    /// The tool's reply, between `execute` and `output_contract`.
    pub(crate) reply: Option<Reply<Encoded>>,
    /// The answer's `data` while it is JSON text (a typed result encoded as text): `env.data` is
    /// then `None`. Stages that read or change the data turn it into the value first
    /// ([`CallState::materialize`]); otherwise it goes into the envelope's JSON as it is.
    pub(crate) data_text: Option<String>,
    /// The tool wrote `data_text` with the redaction scan ([`crate::reply::TextScan`]) and no
    /// string in it is one redaction would change: `redact` need not read it again.
    pub(crate) data_text_clean: bool,
    /// The answer, once a stage has it.
    pub(crate) env: Option<Envelope>,
    /// Host-only detail for the audit record (a panic's text, output-contract errors).
    pub(crate) detail: Option<String>,
    /// The call ended before an answer ([`Step::Refuse`]).
    pub(crate) early: bool,
    /// The tool panicked, or the pipeline did (for the trace's event).
    pub(crate) panicked: bool,
}

impl<'a> CallState<'a> {
    fn new(
        engine: &'a Engine,
        name: &'a str,
        args: Arguments<'a>,
        options: &'a CallOptions,
        operation_id: &'a OperationId,
        trace: &'a audit::Trace,
        encoding: Encoding<'static>,
    ) -> Self {
        CallState {
            engine,
            name,
            options,
            operation_id,
            trace,
            // The clock is read only for the audit record.
            started: engine
                .stages
                .audit
                .sink
                .is_some()
                .then(std::time::Instant::now),
            in_flight: true,
            raw: Some(args),
            entry: None,
            retired: None,
            args: None,
            typed: None,
            page: None,
            claim: None,
            talk: None,
            approval: None,
            ran: Ran::NotRun,
            encoding,
            reply: None,
            data_text: None,
            data_text_clean: false,
            env: None,
            detail: None,
            early: false,
            panicked: false,
        }
    }

    /// Whether the call is audited (the toolbox has an audit sink): the stages then keep its
    /// trace, for the record of a call dropped before it finishes.
    pub(crate) fn audited(&self) -> bool {
        self.started.is_some()
    }

    /// The tool, for stages after `lookup` (which ends every call it cannot resolve).
    pub(crate) fn entry(&self) -> &Arc<Entry> {
        self.entry
            .as_ref()
            .expect("stages after lookup run only on calls with a tool")
    }

    /// The arguments, for stages after `decode` (which ends every call it cannot parse).
    pub(crate) fn args(&self) -> &Value {
        self.args
            .as_ref()
            .expect("stages after decode run only on calls with arguments")
    }

    /// Makes a result kept as JSON text the envelope's `data` value, for a stage that reads or
    /// changes it (redaction that has something to mask, the idempotency record, after-hooks,
    /// cutting to the budget). The text is serde_json's own, so it parses to the value
    /// `serde_json::to_value` gives for all but exotic results (see [`Toolbox::call_json`](crate::Toolbox::call_json)).
    pub(crate) fn materialize(&mut self) {
        materialize(&mut self.data_text, &mut self.env, &mut self.detail);
    }

    /// The pipeline panicked: what was learned is dropped, as the answer is the generic failure.
    fn panicked_with(&mut self, panic: String) {
        self.claim = None;
        self.entry = None;
        self.args = None;
        self.typed = None;
        self.data_text = None;
        self.env = Some(internal_failure());
        self.detail = Some(format!("panic in the call pipeline: {panic}"));
        self.early = false;
        self.panicked = true;
    }
}

impl Drop for CallState<'_> {
    fn drop(&mut self) {
        if self.in_flight {
            audit::record_dropped(self);
        }
    }
}

/// [`CallState::materialize`] on the fields it changes, for a stage that holds a borrow of
/// another field (the entry) meanwhile.
pub(crate) fn materialize(
    data_text: &mut Option<String>,
    env: &mut Option<Envelope>,
    detail: &mut Option<String>,
) {
    let (Some(text), Some(env)) = (data_text.take(), env.as_mut()) else {
        return;
    };
    match serde_json::from_str(&text) {
        Ok(value) => env.data = Some(value),
        Err(e) => {
            *detail = Some(format!("result text does not parse back: {e}"));
            *env = contract::unencodable().into_envelope();
        }
    }
}

/// Runs one call through the pipeline. Never panics: every outcome is an envelope.
///
/// The functions from here to [`run_call`] are not `async`: each hands on the future of the
/// next, so the call's future holds its arguments once. An `async fn` awaiting another keeps its
/// own arguments beside the inner future, and the four levels from `Toolbox::call_with` down
/// made the call's future (which hosts move into a task or a box) a fifth larger.
pub(crate) fn call<'a>(
    tb: &'a Engine,
    name: &'a str,
    args: Arguments<'a>,
    options: CallOptions,
) -> impl std::future::Future<Output = Envelope> + 'a {
    traced(tb, name, args, options, Encoding::Value, |env, text, id| {
        debug_assert!(text.is_none(), "a value-encoded call keeps no result text");
        let mut env = env.take().unwrap_or_else(internal_failure);
        env.operation_id = Some(id.to_text());
        env
    })
}

/// Runs one call through the pipeline and returns the envelope's JSON text. A typed tool's
/// result is serialized once, straight to text, unless a stage needs it as a value; the
/// operation id is written from where the call holds it, never copied into a `String`.
pub(crate) fn call_json<'a>(
    tb: &'a Engine,
    name: &'a str,
    args: Arguments<'a>,
    options: CallOptions,
) -> impl std::future::Future<Output = String> + 'a {
    traced(
        tb,
        name,
        args,
        options,
        Encoding::Text(None),
        |env, text, id| {
            env.get_or_insert_with(internal_failure)
                .json_around_data_text(text, Some(id))
        },
    )
}

/// How a call's answer leaves its future: from the envelope where the call holds it (always
/// `Some`; its `operation_id` not yet set), the result's JSON text when it was kept as text, and
/// the call's operation id. A closure, not a function pointer: inlined into the future, it reads
/// the envelope in place, and only what it returns leaves the future.
trait Finish<T>: FnOnce(&mut Option<Envelope>, Option<String>, &OperationId) -> T {}
impl<T, F: FnOnce(&mut Option<Envelope>, Option<String>, &OperationId) -> T> Finish<T> for F {}

fn traced<'a, T>(
    tb: &'a Engine,
    name: &'a str,
    args: Arguments<'a>,
    options: CallOptions,
    encoding: Encoding<'static>,
    finish: impl Finish<T> + 'a,
) -> impl std::future::Future<Output = T> + 'a
where
    T: 'a,
{
    let operation_id = OperationId::next();
    let span = telemetry::span(name, &operation_id);
    telemetry::instrument(
        run_call(tb, name, args, options, operation_id, encoding, finish),
        span,
    )
}

/// The call's future: an `async` block, not an `async fn`, so its arguments are held once (an
/// `async fn` moves each into a local of its own beside the argument). The answer is finished
/// (`finish`: the envelope, or its JSON text) inside it, so only that leaves the future.
#[allow(clippy::manual_async_fn)] // the point: an `async fn` would hold its arguments twice
fn run_call<'a, T>(
    tb: &'a Engine,
    name: &'a str,
    args: Arguments<'a>,
    options: CallOptions,
    operation_id: OperationId,
    encoding: Encoding<'static>,
    finish: impl Finish<T> + 'a,
) -> impl std::future::Future<Output = T> + 'a
where
    T: 'a,
{
    async move {
        // The call's state is dropped in place at the end of this block (a `drop(call)` would
        // move the state out of the future first).
        {
            let trace = audit::Trace::default();
            let mut call =
                CallState::new(tb, name, args, &options, &operation_id, &trace, encoding);
            // Host code runs inside the pipeline too (hooks, the approver, the record store): a
            // panic there becomes `failed` like a panic in a tool, so a call itself never
            // panics. The panic guard needs an `Unpin` future: the stages are pinned in place.
            let finished = crate::unwind::CatchUnwind(std::pin::pin!(run(tb, &mut call))).await;
            call.in_flight = false;
            if let Err(panic) = finished {
                call.panicked_with(panic);
            }
            audit::record(&mut call);
            let text = call.data_text.take();
            let panicked = call.panicked;
            telemetry::finish(panicked, call.env.get_or_insert_with(internal_failure));
            finish(&mut call.env, text, &operation_id)
        }
    }
}

/// The stages as bits (`1 << id as u32`: a stage's discriminant is its index in [`ORDER`]).
const fn bits(ids: &[StageId]) -> u32 {
    let mut m = 0;
    let mut i = 0;
    while i < ids.len() {
        m |= 1 << ids[i] as u32;
        i += 1;
    }
    m
}

/// Every stage `run` runs: all but `audit`, the last.
const BEFORE_AUDIT: u32 = (1 << StageId::Audit as u32) - 1;

/// The finishing stages `run` runs ([`StageId::finishes`], `audit` aside).
const FINISHING: u32 = bits(&[
    StageId::Redact,
    StageId::IdempotencyRecord,
    StageId::AfterHooks,
    StageId::Budget,
]);

/// Runs every stage of [`ORDER`] before `audit`, with the host's stages at their places.
///
/// The stages still to visit are a mask, taken lowest bit first: a stage with nothing to do for
/// the call (`Idle`, known after `lookup`) is dropped from it unless a host stage runs before
/// it, and once the call has its envelope only the finishing stages are left.
pub(crate) async fn run<'a>(tb: &'a Engine, call: &mut CallState<'a>) {
    let hosts = &tb.stages.host;
    let mut next_host = 0;
    // The stages that host stages run before: visited even when they have nothing to do.
    let host_before = hosts.iter().fold(0, |m, (at, _)| m | Idle::bit(*at));
    // The stages with nothing to do for this call, known once the tool is (after `lookup`).
    let mut idle = Idle::NONE;
    let mut todo = BEFORE_AUDIT;
    while todo != 0 {
        let at = todo.trailing_zeros();
        todo &= todo - 1;
        let id = ORDER[at as usize];
        let finishing = FINISHING & (1 << at) != 0;
        while let Some((_, host)) = hosts.get(next_host).filter(|(at, _)| *at == id) {
            if call.env.is_none() {
                // Boxed, as the stages below: held in place, a host stage's future made every
                // call's future larger, with host stages or without.
                if let Flow::End(env) = Box::pin(stage::run_host(host.as_ref(), call)).await {
                    call.env = Some(env);
                    call.early = true;
                }
            }
            next_host += 1;
        }
        if call.env.is_some() != finishing {
            // A call stage after the call ended (a host stage ended it, or a stage set the
            // answer in place), or a finishing stage before it did: the latter cannot happen
            // (the last call stage always answers) but is answered safely.
            if call.env.is_some() {
                todo &= FINISHING;
                continue;
            }
            call.env = Some(internal_failure());
            call.detail = Some("no stage answered the call".to_string());
        }
        if idle.has(id) {
            continue;
        }
        let st = &tb.stages;
        // Every stage in one match (one jump), the stages that learn what is idle included.
        // The stages that await are polled in place, each only when it has something to await:
        // a future as large as the executor's is not built (and moved) for every stage. Those
        // of the idempotency claim and the approval are boxed: only calls with a key or that
        // need approval build them, and held in place they made every call's future (which
        // hosts move, into a task or a box) a third larger.
        let step = match id {
            StageId::ArgumentSize => st.size.run(call),
            StageId::Lookup => {
                let step = lookup::run(tb, &st.policy.policy, call);
                idle = Idle::of(st, call);
                todo &= !(idle.0 & !host_before);
                step
            }
            StageId::Policy => st.policy.run(call),
            StageId::Decode => {
                let step = decode::run(&st.decode, &st.execute, call);
                if call.args.is_none() {
                    // The typed fast path decoded and checked the arguments (or none could be
                    // decoded): `validate` has no value to validate.
                    todo &= !(Idle::bit(StageId::Validate) & !host_before);
                }
                if call.ran != Ran::NotRun {
                    // The tool ran with its decoding (`execute::run_fused`; only when no host
                    // stage is set): `execute` has nothing left to do.
                    todo &= !Idle::bit(StageId::Execute);
                }
                step
            }
            StageId::Validate => validate::run(&st.audit, call),
            StageId::Cursor => paging::cursor(&st.paging, call),
            StageId::BeforeHooks => hooks::before(&st.hooks, call),
            StageId::StoredPage => match &st.paging.shared {
                None => paging::stored_page(&st.paging, call),
                // Boxed: only a toolbox with a shared state builds it.
                Some(state) => Box::pin(paging::stored_page_shared(state, call)).await,
            },
            // The key moves into the boxed claim: only the box is held across the await.
            StageId::Idempotency => match idempotency::key_of(call)
                .map(|key| Box::pin(idempotency::claim(&st.claims, call, key)))
            {
                Some(claim) => claim.await,
                None => Step::Continue,
            },
            // A tool with a condition on its arguments asks only when the condition says so.
            StageId::Approval if approval::asks(&st.approval.faults, call) => {
                Box::pin(approval::run(&st.approval, call)).await
            }
            StageId::Approval => Step::Continue,
            StageId::Execute => execute::run(&st.execute, call).await,
            StageId::OutputContract => contract::run(call),
            StageId::Redact => redact::run(&st.redact, call),
            // Boxed, as the claim: only calls that hold one await it.
            StageId::IdempotencyRecord if call.claim.is_some() => {
                Box::pin(idempotency::record(&st.claims, call)).await
            }
            StageId::IdempotencyRecord => Step::Continue,
            StageId::AfterHooks => hooks::after(&st.hooks, call),
            StageId::Budget => match &st.cut.shared {
                None => budget::run(&st.cut, call),
                Some(state) => Box::pin(budget::run_shared(&st.cut, state, call)).await,
            },
            // Written by `audit::record`, outside the panic guard.
            StageId::Audit => Step::Continue,
        };
        match step {
            Step::Continue => {}
            Step::Refuse(env) => {
                call.env = Some(*env);
                call.early = true;
                todo &= FINISHING;
            }
            Step::Answer(env) => {
                call.env = Some(*env);
                todo &= FINISHING;
            }
        }
    }
}

/// The stages that would only answer `Step::Continue` for a call, whatever the stages before
/// them did: `run` does not visit them. Each condition is the stage's own first check.
#[derive(Clone, Copy)]
struct Idle(u32);

impl Idle {
    const NONE: Idle = Idle(0);

    fn bit(id: StageId) -> u32 {
        1 << (id as u32)
    }

    fn has(self, id: StageId) -> bool {
        self.0 & Idle::bit(id) != 0
    }

    /// For a call whose tool is found (`lookup`); none for one that ended there.
    fn of(st: &Stages, call: &CallState<'_>) -> Idle {
        let Some(entry) = &call.entry else {
            return Idle::NONE;
        };
        // What depends on the tool and the toolbox only, worked out on the tool's first call.
        let mut idle = *entry.idle.get_or_init(|| Idle::of_tool(st, entry));
        // No key: nothing is claimed, so nothing is recorded.
        if idempotency::keyless(entry, call.options) {
            idle |= Idle::bit(StageId::Idempotency) | Idle::bit(StageId::IdempotencyRecord);
        }
        Idle(idle)
    }

    /// The stages idle for every call of the tool of `entry` among `st` (the stages are fixed
    /// when the toolbox is built, and an entry belongs to one toolbox).
    fn of_tool(st: &Stages, entry: &Entry) -> u32 {
        let mut idle = 0;
        let mut when = |cond: bool, id: StageId| {
            if cond {
                idle |= Idle::bit(id);
            }
        };
        when(st.policy.idle(), StageId::Policy);
        // `cursor` leaves `page` unset (as it starts) and `stored_page` has no page to serve.
        when(!entry.paginated, StageId::Cursor);
        when(!entry.paginated, StageId::StoredPage);
        when(st.hooks.is_empty(), StageId::BeforeHooks);
        when(!approval::needed(entry), StageId::Approval);
        when(st.redact.redactor.is_none(), StageId::Redact);
        when(!st.hooks.has_after(), StageId::AfterHooks);
        idle
    }
}

/// The envelope of a panic: generic, with no panic text, type name or path.
pub(crate) fn internal_failure() -> Envelope {
    ToolError::failed(
        codes::INTERNAL,
        "The tool failed unexpectedly and did not complete. Retrying the same call is unlikely to help; tell the user the action could not be done.",
    )
    .into_envelope()
}

#[cfg(test)]
mod tests {
    use super::{StageId, BEFORE_AUDIT, FINISHING, ORDER};

    /// `run` walks a mask of stage bits: a stage's discriminant must be its place in [`ORDER`],
    /// `audit` the last, and [`FINISHING`] the finishing stages before it.
    #[test]
    fn the_stage_masks_follow_the_order() {
        for (i, id) in ORDER.iter().enumerate() {
            assert_eq!(*id as usize, i, "{id}");
            let bit = 1u32 << i;
            assert_eq!(BEFORE_AUDIT & bit != 0, *id != StageId::Audit, "{id}");
            assert_eq!(
                FINISHING & bit != 0,
                id.finishes() && *id != StageId::Audit,
                "{id}"
            );
        }
        assert_eq!(ORDER.last(), Some(&StageId::Audit));
    }
}
