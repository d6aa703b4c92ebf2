//! Typed decoding: the fast path of a `#[tool]` call.
//!
//! The macro knows every parameter, its type and its `#[arg(...)]` constraints. For each tool it
//! generates a slot per parameter and the checks of its constraints; [`fill`] reads the
//! arguments straight into the slots (from JSON text in one pass, from a parsed value without
//! cloning; see its module for how the work is shared between all tools of a crate), and the
//! generated checks then run on the typed fields. The checks share the validator's own
//! comparisons ([`crate::validate`]), so they agree with it by construction.
//!
//! The fast path only ever *accepts*. Whenever it cannot prove that the validator would accept
//! the same input — serde rejects it, a check fails, a parameter's type is not one it knows (a
//! user type, a map, `f32` with a bound), the input is not a JSON object — the call falls back
//! to the general path (parse, validate, decode), which builds exactly the errors it always
//! has. So what is accepted and rejected does not change, and the schema validator stays the
//! single source of error messages.
//!
//! One refusal is answered without the general path: arguments that decode, where every
//! parameter passes its checks but one that was sent (no default filled in) and whose decoded
//! value is its JSON as sent (a string, an integer). Then the validator's own check of that
//! one value, at its name, gives the call's problems ([`Decoded::OneInvalid`],
//! `Validator::parameter_errors`): every other parameter is valid, none is missing (serde
//! decoded them) and none is unknown (serde refuses those), so a whole validation would find
//! exactly these. Two failing parameters, or one of another type, go the general way.
//!
//! What the fast path knows:
//!
//! | type | checks |
//! |---|---|
//! | `String` | `min_length`/`max_length` (in characters, as the validator counts them), `pattern` (compiled once, with the validator's dialect rewrite) |
//! | `i8`…`i64`, `isize`, `u8`…`u64`, `usize` | bounds, `multiple_of` (exactly as the validator compares) |
//! | `f64` | the same, for values below 2^53 in magnitude (larger ones fall back) |
//! | `bool`, `char`, `f32` | none (any constraint falls back) |
//! | `Vec<T>` of the types in this table (nested too) | each item as `T`; `min_items`, `max_items`; `unique_items` when `T`'s equality is JSON Schema equality (not for `#[model]` structs, which fall back) |
//! | `Option<T>` (a parameter) | absent or `null` passes (the validator drops `null` optionals); present is checked as `T` |
//! | `Option<T>` (a field, an item), `Box<T>` | `None` passes; a value is checked as `T` |
//! | a `#[model]` enum of unit variants only (no generics, discriminants or variant attributes; container `rename_all`/`rename` only) | any decoded variant passes; `unique_items` (distinct variants are distinct strings); any other constraint falls back |
//! | a `#[model]` struct with named fields (no generics, no field attributes; container `rename_all`/`rename`/`deny_unknown_fields` only) | every field checked as its type is (a field of a type not in this table falls back); any constraint on the struct itself falls back |
//!
//! Any other parameter type falls back whenever the parameter is sent (an absent `Option` of a
//! user type passes; a required one of a user type means the tool has no fast path at all).
//! `#[model]` types of other shapes (`tag`, `untagged`, `content`, `default`, `transparent`,
//! `#[schemars(...)]`, field or variant renames, generics, tuple structs, data variants) are such
//! types: `#[model]` implements the check only where it can prove it.
//!
//! Why a decoded `#[model]` value satisfies its schema, against what schemars 1.x generates
//! (for deserialization) and the input schema's hygiene ([`crate::schema`]):
//!
//! - **Unknown fields.** serde's derived struct skips them; the input schema closes every object
//!   (`additionalProperties: false`). A `#[model]` parameter is therefore decoded through a
//!   guard that fails on any skipped value (`deserialize_ignored_any`, at every depth), so an
//!   unknown field falls back (an unknown parameter is refused by [`fill`] itself).
//! - **Other forms serde accepts.** A derived struct also reads an array of its field values and
//!   a unit variant also reads `{"Variant": null}`; the schema has an object and a string. The
//!   guard refuses both: a struct must be a JSON object, an enum a JSON string.
//! - **Missing fields.** serde fails on a missing field unless its type is an `Option`; schemars
//!   lists exactly the non-`Option` fields in `required`.
//! - **`null`.** serde reads `null` as `None` for an `Option` field; the field's schema no longer
//!   admits `null` (hygiene strips it from optional properties), but the validator first drops a
//!   `null` optional at every depth, as absent, which schemars does not require either. A
//!   non-`Option` field's `null` fails in serde.
//! - **Duplicate keys** (text only). serde fails on a repeated field (`duplicate field`), and
//!   [`fill`] on a repeated parameter, so they fall back; the validator sees the last one, as the parsed value keeps it.
//! - **Names.** serde and schemars apply `rename_all` with the same rules; a type whose names
//!   could collide under a rule (same letters ignoring case, `_` and `-`) gets no check.
//!
//! The later stages that read the arguments as a JSON value (before- and after-hooks, approval,
//! idempotency keys, the audit digest, paging, and the host's own pipeline stages) get exactly
//! the value they always got: a call that has any of them configured takes the general path
//! (the pipeline's `decode` stage decides).

use crate::context::Context;
use crate::error::ToolError;
use crate::reply::BoxFuture;
use crate::reply::{Encoded, Encoding, Reply};
use crate::schema::Constraint;
use crate::validate;
use regex::Regex;
use serde_json::{Number, Value};
use std::any::Any;
use std::cmp::Ordering;
use std::sync::OnceLock;

mod fill;
mod guard;

pub use fill::{fill, filled, Slot};
/// The error of [`fill`] (serde_json's).
#[doc(hidden)]
pub use serde_json::Error as DecodeError;

/// Decoded and checked arguments, as the generated decoder's argument struct.
pub type TypedArgs = Box<dyn Any + Send>;

/// The generated executor of decoded arguments (async form), its result encoded as asked.
pub(crate) type TypedInvokeFn = for<'a> fn(
    &'a Context,
    TypedArgs,
    Encoding<'a>,
) -> BoxFuture<'a, Result<Reply<Encoded>, ToolError>>;

/// The generated executor of decoded arguments (sync tools), its result encoded as asked.
pub(crate) type TypedBlockingFn =
    fn(&Context, TypedArgs, Encoding<'_>) -> Result<Reply<Encoded>, ToolError>;

/// A sync tool's arguments decoded, checked and run in one call, with no boxed arguments in
/// between (the pipeline takes it when no stage between `decode` and `execute` has work).
pub(crate) type TypedRunFn = for<'a> fn(&'a Context, Input<'_>, Encoding<'a>) -> Fused;

/// What [`TypedRunFn`] made of a call. Built by generated code.
#[doc(hidden)]
pub enum Fused {
    /// The arguments decoded and passed every check, and the tool ran: its result (a panic
    /// unwinds to the caller, which catches it around the whole call).
    Ran(Result<Reply<Encoded>, ToolError>),
    /// The arguments did not decode or pass the checks: what [`Decoded`] says (never
    /// [`Decoded::Args`]); the tool did not run.
    Declined(Decoded),
}

/// What the fast path made of a call's arguments. Built by generated code.
#[doc(hidden)]
pub enum Decoded {
    /// Decoded, and every check passed.
    Args(TypedArgs),
    /// Decoded, and every parameter passed its checks but this one (its name, and its value as
    /// the validator sees it): the validator's own checks of that one value are the problems
    /// of the whole call, so it need not parse and validate everything again
    /// ([`crate::validate::Validator::parameter_errors`]). Only a parameter that was sent
    /// (no default filled in) of a type whose value is its JSON as sent ([`Fast::json`]).
    OneInvalid(&'static str, Value),
    /// The general path decides.
    Fallback,
}

impl Decoded {
    /// The decoded arguments, when every check passed.
    pub fn args(self) -> Option<TypedArgs> {
        match self {
            Decoded::Args(args) => Some(args),
            _ => None,
        }
    }
}

/// The fast path the macro generates for one tool. Built by generated code.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct TypedDef {
    /// Decodes and checks the arguments (JSON text or a parsed value).
    pub decode: fn(Input<'_>) -> Decoded,
    /// Runs the tool on decoded arguments.
    pub exec: TypedExec,
}

/// How a tool runs on decoded arguments. Built by generated code.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub enum TypedExec {
    /// A sync tool: as a plain function, and decoding, the checks and the run in one call
    /// (when the call runs in the caller's task).
    Sync {
        /// The tool run on decoded arguments.
        blocking: TypedBlockingFn,
        /// Decoding, the checks and the run in one call.
        run: TypedRunFn,
    },
    /// An async tool.
    Async(TypedInvokeFn),
}

impl TypedDef {
    /// A sync tool's plain function.
    pub(crate) fn blocking(&self) -> Option<TypedBlockingFn> {
        match self.exec {
            TypedExec::Sync { blocking, .. } => Some(blocking),
            TypedExec::Async(_) => None,
        }
    }

    /// A sync tool's decode-check-run function.
    pub(crate) fn run(&self) -> Option<TypedRunFn> {
        match self.exec {
            TypedExec::Sync { run, .. } => Some(run),
            TypedExec::Async(_) => None,
        }
    }
}

/// The input of a call, as the fast path sees it.
#[derive(Clone, Copy)]
pub enum Input<'a> {
    /// JSON text.
    Text(&'a str),
    /// A parsed value.
    Value(&'a Value),
}

/// Tries the fast path: the decoded arguments, the one parameter that fails its checks, or
/// [`Decoded::Fallback`] when the general path must decide (the tool has no fast path, or the
/// input is not one the fast path can prove valid or invalid).
pub(crate) fn decode(def: Option<&TypedDef>, input: Input<'_>) -> Decoded {
    let Some(def) = def else {
        return Decoded::Fallback;
    };
    (def.decode)(input)
}

/// A compiled `pattern`: `None` when the validator cannot run it itself (it then leaves it to
/// the full JSON Schema validator, and so does the fast path).
pub type PatternCell = OnceLock<Option<Regex>>;

fn compiled<'a>(cell: &'a PatternCell, pattern: &str) -> Option<&'a Regex> {
    cell.get_or_init(|| validate::compile_pattern(pattern))
        .as_ref()
}

/// The probe the generated checks dispatch on: the type's own [`Fast`] check when it has one,
/// otherwise [`Unknown`], which always falls back.
#[doc(hidden)]
pub struct Probe<'a, T: ?Sized>(pub &'a T);

/// A type the fast path can check: whether a decoded value certainly satisfies the type's own
/// schema and its `#[arg]` constraints. The built-in types' every decoded value satisfies their
/// schema, so only constraints are checked; a `#[model]` type checks its fields (and has an
/// impl only for the shapes listed in the module docs).
#[doc(hidden)]
pub trait Fast {
    /// Whether serde's derived decoding of the type accepts inputs its schema does not (a
    /// `#[model]` struct or enum), so the arguments must be decoded through the guard, which
    /// refuses them (see the module docs).
    const GUARDED: bool = false;

    /// Whether the value certainly satisfies its schema and the constraints (`false` falls
    /// back).
    fn fast_ok(&self, constraints: &[Constraint], pattern: &PatternCell) -> bool;

    /// Whether two decoded values are certainly different JSON values as the validator
    /// compares them (for `unique_items`). `false` when they may be equal or the type cannot
    /// tell, which falls back: a type whose Rust equality is not JSON Schema equality or
    /// coarser keeps this default.
    fn json_ne(&self, _other: &Self) -> bool
    where
        Self: Sized,
    {
        false
    }

    /// The value as the validator sees it in the arguments it came from, when that is certain
    /// from the decoded value alone (a string, an integer); `None` otherwise. A parameter that
    /// fails its checks is then reported from this value ([`Decoded::OneInvalid`]).
    fn json(&self) -> Option<Value> {
        None
    }
}

/// The known types' check.
#[doc(hidden)]
pub trait Known {
    /// See [`Fast::fast_ok`].
    fn typed_ok(self, constraints: &[Constraint], pattern: &PatternCell) -> bool;

    /// See [`Fast::json`].
    fn typed_json(self) -> Option<Value>;
}

impl<T: Fast + ?Sized> Known for &&Probe<'_, T> {
    fn typed_ok(self, constraints: &[Constraint], pattern: &PatternCell) -> bool {
        self.0.fast_ok(constraints, pattern)
    }

    fn typed_json(self) -> Option<Value> {
        self.0.json()
    }
}

/// Every other type: the general path decides.
#[doc(hidden)]
pub trait Unknown {
    /// Always `false`.
    fn typed_ok(self, constraints: &[Constraint], pattern: &PatternCell) -> bool;

    /// Always `None`.
    fn typed_json(self) -> Option<Value>;
}

impl<T: ?Sized> Unknown for &Probe<'_, T> {
    fn typed_ok(self, _: &[Constraint], _: &PatternCell) -> bool {
        false
    }

    fn typed_json(self) -> Option<Value> {
        None
    }
}

/// The type-level probe: whether a parameter type has a [`Fast`] check at all, decided once when
/// the tool is built (a required parameter of a type without one means no fast path).
#[doc(hidden)]
pub struct TypeProbe<T: ?Sized>(pub std::marker::PhantomData<T>);

/// See [`TypeProbe`].
#[doc(hidden)]
pub trait KnownType {
    /// `true`.
    fn known(self) -> bool;

    /// [`Fast::GUARDED`].
    fn guarded(self) -> bool;
}

impl<T: Fast + ?Sized> KnownType for &&TypeProbe<T> {
    fn known(self) -> bool {
        true
    }

    fn guarded(self) -> bool {
        T::GUARDED
    }
}

/// See [`TypeProbe`].
#[doc(hidden)]
pub trait UnknownType {
    /// `false`.
    fn known(self) -> bool;

    /// `false`: a value of the type falls back whatever decodes, so no guard is needed.
    fn guarded(self) -> bool;
}

impl<T: ?Sized> UnknownType for &TypeProbe<T> {
    fn known(self) -> bool {
        false
    }

    fn guarded(self) -> bool {
        false
    }
}

impl Fast for String {
    fn fast_ok(&self, constraints: &[Constraint], pattern: &PatternCell) -> bool {
        let mut chars = None;
        let mut len = || *chars.get_or_insert_with(|| self.chars().count() as u64);
        constraints.iter().all(|c| match *c {
            Constraint::MinLength(min) => len() >= min,
            Constraint::MaxLength(max) => len() <= max,
            Constraint::Pattern(p) => compiled(pattern, p).is_some_and(|re| re.is_match(self)),
            _ => false,
        })
    }

    fn json_ne(&self, other: &Self) -> bool {
        self != other
    }

    fn json(&self) -> Option<Value> {
        Some(Value::String(self.clone()))
    }
}

/// Checks a number, as the validator sees it, against numeric constraints.
fn number_ok(n: &Number, constraints: &[Constraint]) -> bool {
    constraints.iter().all(|c| {
        let (bound, ok): (_, fn(Ordering) -> bool) = match *c {
            Constraint::Minimum(b) => (b, |o| o != Ordering::Less),
            Constraint::Maximum(b) => (b, |o| o != Ordering::Greater),
            Constraint::ExclusiveMinimum(b) => (b, |o| o == Ordering::Greater),
            Constraint::ExclusiveMaximum(b) => (b, |o| o == Ordering::Less),
            Constraint::MultipleOf(m) => {
                return match m.to_value().as_f64() {
                    Some(m) => validate::is_multiple_of(n, m),
                    None => false,
                };
            }
            _ => return false,
        };
        match validate::Bound::of_num(bound) {
            Some(b) => ok(validate::cmp_bound(n, &b)),
            None => false,
        }
    })
}

macro_rules! fast_int {
    ($($t:ty),*) => {$(
        impl Fast for $t {
            fn fast_ok(&self, constraints: &[Constraint], _: &PatternCell) -> bool {
                constraints.is_empty() || number_ok(&Number::from(*self), constraints)
            }

            fn json_ne(&self, other: &Self) -> bool {
                self != other
            }

            // serde reads an integer type only from an integer, which parses to this number.
            fn json(&self) -> Option<Value> {
                Some(Value::Number(Number::from(*self)))
            }
        }
    )*};
}
fast_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// Below this magnitude every integer is an exact `f64`, so an `f64` argument compares like the
/// number that was sent, whether it was written `3` or `3.0`.
const EXACT_F64: f64 = 9_007_199_254_740_992.0;

impl Fast for f64 {
    fn fast_ok(&self, constraints: &[Constraint], _: &PatternCell) -> bool {
        if constraints.is_empty() {
            return true;
        }
        if self.is_nan() || self.abs() >= EXACT_F64 {
            return false;
        }
        let n = if self.fract() == 0.0 {
            // Sent as `3` the validator compares it as an integer; sent as `3.0` as a float:
            // for values below 2^53 both compare alike, and an exact multiple is one in
            // floating point too.
            Number::from(*self as i64)
        } else {
            match Number::from_f64(*self) {
                Some(n) => n,
                None => return false,
            }
        };
        number_ok(&n, constraints)
    }

    fn json_ne(&self, other: &Self) -> bool {
        // `0.0 == -0.0`, as in JSON Schema; JSON holds no NaN.
        self != other
    }
}

macro_rules! fast_unconstrained {
    ($($t:ty),*) => {$(
        impl Fast for $t {
            fn fast_ok(&self, constraints: &[Constraint], _: &PatternCell) -> bool {
                constraints.is_empty()
            }

            fn json_ne(&self, other: &Self) -> bool {
                self != other
            }
        }
    )*};
}
// `f32` rounds what was sent, so a bound could compare differently: no constraints only.
fast_unconstrained!(bool, char, f32);

impl<T: Fast> Fast for Vec<T> {
    const GUARDED: bool = T::GUARDED;

    fn fast_ok(&self, constraints: &[Constraint], _: &PatternCell) -> bool {
        let len = self.len() as u64;
        self.iter().all(|item| item.fast_ok(&[], &NO_PATTERN))
            && constraints.iter().all(|c| match *c {
                Constraint::MinItems(min) => len >= min,
                Constraint::MaxItems(max) => len <= max,
                Constraint::UniqueItems => distinct(self),
                _ => false,
            })
    }

    fn json_ne(&self, other: &Self) -> bool {
        self.len() != other.len() || self.iter().zip(other).any(|(a, b)| a.json_ne(b))
    }
}

/// An item of a list or a field: no constraints of its own, and no absent value (a field of an
/// `Option` type that is absent or `null` is `None`, which the validator sees as absent after it
/// drops `null` optionals).
impl<T: Fast> Fast for Option<T> {
    const GUARDED: bool = T::GUARDED;

    fn fast_ok(&self, constraints: &[Constraint], pattern: &PatternCell) -> bool {
        match self {
            Some(v) => v.fast_ok(constraints, pattern),
            None => constraints.is_empty(),
        }
    }

    fn json_ne(&self, other: &Self) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => a.json_ne(b),
            (None, None) => false,
            _ => true,
        }
    }
}

/// The same schema and decoding as `T` (a recursive `#[model]`'s link).
impl<T: Fast> Fast for Box<T> {
    const GUARDED: bool = T::GUARDED;

    fn fast_ok(&self, constraints: &[Constraint], pattern: &PatternCell) -> bool {
        (**self).fast_ok(constraints, pattern)
    }

    fn json_ne(&self, other: &Self) -> bool {
        (**self).json_ne(other)
    }
}

/// The pattern cell of a check without constraints (never compiled).
#[doc(hidden)]
pub static NO_PATTERN: PatternCell = PatternCell::new();

/// Whether no two items are equal. Quadratic, but only up to a size where that is cheap; a
/// longer list falls back to the validator's near-linear check.
fn distinct<T: Fast>(items: &[T]) -> bool {
    if items.len() > 64 {
        return false;
    }
    items
        .iter()
        .enumerate()
        .all(|(j, b)| items[..j].iter().all(|a| a.json_ne(b)))
}

/// The error of a typed executor handed arguments of another tool (a bug in the toolbox).
pub(crate) fn wrong_arguments() -> ToolError {
    ToolError::failed(
        "INTERNAL",
        "The tool failed unexpectedly and did not complete. Retrying the same call is unlikely to help; tell the user the action could not be done.",
    )
}

/// [`wrong_arguments`] as an async executor's answer.
fn wrong_arguments_future<'a>() -> BoxFuture<'a, Result<Reply<Encoded>, ToolError>> {
    Box::pin(std::future::ready(Err(wrong_arguments())))
}

// The bodies of a `#[tool]`'s entry points, generic over its argument struct `A`, its decoder
// (`fill`), its checks (`check`) and its run (`run`; for an async tool `start`, which makes the
// tool's future, and `finish`, which encodes its output). The expansion of each tool is a one-line
// call of these: a generic body is type-checked and borrow-checked once, here, where the same
// body generated per tool was checked again in every tool of the user's crate (and again after
// an edit that moves the text of the tools below it; BENCHMARKS.md, section 3).

/// What an entry point answers: the tool's reply, or its error.
type Answer<T> = Result<Reply<T>, ToolError>;

/// An async tool's entry point on validated arguments: decoded by `fill`, the tool's future
/// made by `start` (which fetches the context) and awaited, its output encoded by `finish` as a
/// value; all when the future is first polled.
#[doc(hidden)]
pub fn invoke_async<'a, A, D, S, F, E>(
    ctx: &'a Context,
    raw: &'a Value,
    fill: D,
    start: S,
    finish: E,
) -> BoxFuture<'a, Answer<Value>>
where
    A: Send + 'a,
    D: FnOnce(Input<'_>) -> Result<A, DecodeError> + Send + 'a,
    S: FnOnce(&'a Context, A) -> Result<F, ToolError> + Send + 'a,
    F: std::future::Future + Send + 'a,
    E: FnOnce(F::Output, Encoding<'a>) -> Answer<Encoded> + Send + 'a,
{
    Box::pin(async move {
        let args = fill(Input::Value(raw)).map_err(crate::__private::unreadable)?;
        let output = start(ctx, args)?.await;
        crate::__private::value_reply(finish(output, Encoding::Value))
    })
}

/// An async tool's entry point on arguments the fast path decoded and checked: as
/// [`invoke_async`], its output encoded as `encoding` asks.
#[doc(hidden)]
pub fn invoke_typed_async<'a, A, S, F, E>(
    ctx: &'a Context,
    typed: TypedArgs,
    encoding: Encoding<'a>,
    start: S,
    finish: E,
) -> BoxFuture<'a, Answer<Encoded>>
where
    A: Send + 'static,
    S: FnOnce(&'a Context, A) -> Result<F, ToolError> + Send + 'a,
    F: std::future::Future + Send + 'a,
    E: FnOnce(F::Output, Encoding<'a>) -> Answer<Encoded> + Send + 'a,
{
    match typed.downcast::<A>() {
        Ok(args) => Box::pin(async move {
            let output = start(ctx, *args)?.await;
            finish(output, encoding)
        }),
        Err(_) => wrong_arguments_future(),
    }
}

/// A sync tool's entry point on validated arguments.
#[doc(hidden)]
pub fn invoke_blocking<A>(
    ctx: &Context,
    raw: &Value,
    fill: impl FnOnce(Input<'_>) -> Result<A, DecodeError>,
    run: impl FnOnce(&Context, A, Encoding<'_>) -> Answer<Encoded>,
) -> Answer<Value> {
    let args = fill(Input::Value(raw)).map_err(crate::__private::unreadable)?;
    crate::__private::value_reply(run(ctx, args, Encoding::Value))
}

/// A sync tool's entry point on arguments the fast path decoded and checked.
#[doc(hidden)]
pub fn invoke_typed_blocking<'a, A: 'static>(
    ctx: &'a Context,
    typed: TypedArgs,
    encoding: Encoding<'a>,
    run: impl FnOnce(&'a Context, A, Encoding<'a>) -> Answer<Encoded>,
) -> Answer<Encoded> {
    match typed.downcast::<A>() {
        Ok(args) => run(ctx, *args, encoding),
        Err(_) => Err(wrong_arguments()),
    }
}

/// The arguments decoded by `fill` and passed by `check`, or what the general path is to make
/// of them.
fn decode_checked<A>(
    input: Input<'_>,
    fill: impl FnOnce(Input<'_>) -> Result<A, DecodeError>,
    check: impl FnOnce(&A) -> Result<(), Decoded>,
) -> Result<A, Decoded> {
    let args = fill(input).map_err(|_| Decoded::Fallback)?;
    check(&args)?;
    Ok(args)
}

/// A tool's fast-path decoder ([`TypedDef::decode`]).
#[doc(hidden)]
pub fn decoded<A: Send + 'static>(
    input: Input<'_>,
    fill: impl FnOnce(Input<'_>) -> Result<A, DecodeError>,
    check: impl FnOnce(&A) -> Result<(), Decoded>,
) -> Decoded {
    match decode_checked(input, fill, check) {
        Ok(args) => Decoded::Args(Box::new(args)),
        Err(why) => why,
    }
}

/// A sync tool's decoding, checks and run in one call ([`TypedExec::Sync`]'s `run`).
#[doc(hidden)]
pub fn run_fused<'a, A>(
    ctx: &'a Context,
    input: Input<'_>,
    encoding: Encoding<'a>,
    fill: impl FnOnce(Input<'_>) -> Result<A, DecodeError>,
    check: impl FnOnce(&A) -> Result<(), Decoded>,
    run: impl FnOnce(&'a Context, A, Encoding<'a>) -> Answer<Encoded>,
) -> Fused {
    match decode_checked(input, fill, check) {
        Ok(args) => Fused::Ran(run(ctx, args, encoding)),
        Err(why) => Fused::Declined(why),
    }
}

impl crate::arguments::Arguments<'_> {
    /// The arguments as the typed fast path reads them.
    pub(crate) fn as_input(&self) -> Input<'_> {
        match self {
            crate::arguments::Arguments::Text(text) => Input::Text(text),
            crate::arguments::Arguments::TextRef(text) => Input::Text(text),
            crate::arguments::Arguments::Value(value) => Input::Value(value),
            crate::arguments::Arguments::ValueRef(value) => Input::Value(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Num;

    fn ok<T: Fast>(v: T, cs: &[Constraint]) -> bool {
        v.fast_ok(cs, &PatternCell::new())
    }

    #[test]
    fn strings_count_characters_and_match_patterns() {
        let cs = [Constraint::MinLength(2), Constraint::MaxLength(3)];
        assert!(ok("ab".to_string(), &cs));
        assert!(ok("ééé".to_string(), &cs), "three characters, six bytes");
        assert!(!ok("a".to_string(), &cs));
        assert!(!ok("abcd".to_string(), &cs));
        let p = [Constraint::Pattern(r"^\d+$")];
        assert!(ok("123".to_string(), &p));
        // ECMA-262 `\d` is ASCII only, as the validator reads it.
        assert!(!ok("١٢٣".to_string(), &p));
        assert!(!ok(String::new(), &[Constraint::Minimum(Num::UInt(1))]));
    }

    #[test]
    fn numbers_compare_like_the_validator() {
        let cs = [
            Constraint::Minimum(Num::Int(-5)),
            Constraint::ExclusiveMaximum(Num::Float(10.5)),
        ];
        assert!(ok(-5i32, &cs));
        assert!(!ok(-6i64, &cs));
        assert!(ok(10u8, &cs));
        assert!(!ok(11u64, &cs));
        assert!(ok(10.4f64, &cs));
        assert!(!ok(10.5f64, &cs));
        let m = [Constraint::MultipleOf(Num::UInt(3))];
        assert!(ok(9u32, &m) && !ok(10u32, &m) && ok(9.0f64, &m) && !ok(9.5f64, &m));
        // Beyond 2^53 an f64 may not be the number that was sent: fall back.
        assert!(!ok(1e300f64, &[Constraint::Maximum(Num::Float(1e301))]));
        assert!(ok(1e300f64, &[]));
        assert!(!ok(1.0f32, &[Constraint::Maximum(Num::UInt(2))]));
        assert!(!ok(true, &[Constraint::MinLength(1)]));
    }

    #[test]
    fn lists_check_sizes_and_uniqueness() {
        let cs = [
            Constraint::MinItems(1),
            Constraint::MaxItems(3),
            Constraint::UniqueItems,
        ];
        assert!(ok(vec![1, 2, 3], &cs));
        assert!(!ok(Vec::<u8>::new(), &cs));
        assert!(!ok(vec![1, 2, 3, 4], &cs));
        assert!(!ok(vec![1, 2, 1], &cs));
        assert!(
            !ok(vec![0.0, -0.0], &cs),
            "JSON Schema equality: 0 equals -0.0"
        );
        assert!(ok(vec![vec!["a".to_string()], vec!["b".to_string()]], &cs));
        assert!(!ok(
            (0..65).collect::<Vec<u32>>(),
            &[Constraint::UniqueItems]
        ));
    }

    #[test]
    fn items_are_checked_and_compared_as_their_type() {
        let unique = [Constraint::UniqueItems];
        assert!(ok(vec![Some(1u8), None, Some(2)], &unique));
        assert!(!ok(vec![Some(1u8), None, Some(1)], &unique));
        assert!(!ok(vec![None::<u8>, None], &unique));
        assert!(ok(vec![Box::new(1u8), Box::new(2)], &unique));
        // A type that cannot tell equality apart, and one whose values may fail their schema.
        struct Opaque(bool);
        impl Fast for Opaque {
            fn fast_ok(&self, constraints: &[Constraint], _: &PatternCell) -> bool {
                constraints.is_empty() && self.0
            }
        }
        assert!(ok(
            vec![Opaque(true), Opaque(true)],
            &[Constraint::MaxItems(2)]
        ));
        assert!(!ok(vec![Opaque(true), Opaque(true)], &unique));
        assert!(
            ok(vec![Opaque(true)], &unique),
            "one item is always distinct"
        );
        assert!(!ok(vec![Opaque(true), Opaque(false)], &[]));
        assert!(!ok(Some(Opaque(false)), &[]));
        assert!(ok(None::<Opaque>, &[]));
        assert!(!ok(
            None::<u8>,
            &[Constraint::Minimum(crate::schema::Num::UInt(1))]
        ));
    }

    #[test]
    // `&&` is the probe's dispatch (as the generated code writes it), not a needless borrow.
    #[allow(clippy::needless_borrow)]
    fn unknown_types_fall_back() {
        struct Mine;
        let cell = PatternCell::new();
        assert!(!(&&Probe(&Mine)).typed_ok(&[], &cell));
        assert!(!(&&Probe(&std::collections::HashMap::<String, u8>::new())).typed_ok(&[], &cell));
        assert!((&&Probe(&"x".to_string())).typed_ok(&[], &cell));
        assert!((&&TypeProbe::<Vec<u8>>(std::marker::PhantomData)).known());
        assert!(!(&&TypeProbe::<Mine>(std::marker::PhantomData)).known());
    }
}
