//! [`Toolbox`]: the registry of tools and the call pipeline.

use crate::context::Context;
use crate::envelope::{Envelope, Status};
use crate::error::ToolError;
use crate::spec::ToolSpec;
use crate::tool::{Invoke, Tool};
use crate::validate::{self, Valid, Validator};
use serde_json::Value;
use std::any::Any;
use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::task::{Context as TaskContext, Poll};

/// One problem found while building a toolbox or registering a tool.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    /// Two tools share a name.
    #[error("two tools are named `{name}`; tool names must be unique (rename one with #[tool(name = \"...\")])")]
    DuplicateTool {
        /// The shared name.
        name: String,
    },
    /// A tool needs a context value that was not supplied.
    #[error("tool `{tool}` needs a context value of type `{type_name}` for `{param}`; supply it with .context(...) on the builder")]
    MissingContext {
        /// The tool.
        tool: String,
        /// The parameter that receives the value.
        param: String,
        /// The type, as written in the tool's signature.
        type_name: String,
    },
    /// A tool's schema is unusable.
    #[error("tool `{tool}`: {reason}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
}

/// Error returned by [`ToolboxBuilder::build`] and [`Toolbox::register`]: every problem found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct BuildError {
    /// The problems, in registration order.
    pub problems: Vec<Problem>,
}

/// Error returned by [`Toolbox::deregister`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no tool named `{name}` is registered")]
pub struct NotRegistered {
    /// The name asked for.
    pub name: String,
}

/// The arguments of a call: an already-parsed JSON value (MCP, Anthropic) or JSON text (OpenAI).
#[derive(Debug, Clone)]
pub enum Arguments {
    /// Parsed JSON.
    Value(Value),
    /// JSON text, parsed by the toolbox.
    Text(String),
}

impl From<Value> for Arguments {
    fn from(v: Value) -> Self {
        Arguments::Value(v)
    }
}
impl From<&Value> for Arguments {
    fn from(v: &Value) -> Self {
        Arguments::Value(v.clone())
    }
}
impl From<String> for Arguments {
    fn from(s: String) -> Self {
        Arguments::Text(s)
    }
}
impl From<&str> for Arguments {
    fn from(s: &str) -> Self {
        Arguments::Text(s.to_string())
    }
}

struct Entry {
    tool: Tool,
    validator: Validator,
}

#[derive(Default)]
struct Registry {
    entries: Vec<Arc<Entry>>,
    index: HashMap<String, usize>,
    retired: BTreeSet<String>,
}

impl Registry {
    fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.tool.name()).collect()
    }
}

/// Builds a [`Toolbox`]: register tools and the context values they need.
#[derive(Default)]
pub struct ToolboxBuilder {
    tools: Vec<Tool>,
    context: Context,
}

impl ToolboxBuilder {
    /// Registers one tool (`my_fn::tool()` for a `#[tool]` function).
    #[must_use]
    pub fn tool(mut self, tool: Tool) -> Self {
        self.tools.push(tool);
        self
    }

    /// Registers several tools (`MyServer::tools()` for a `#[tools]` impl block).
    #[must_use]
    pub fn tools(mut self, tools: impl IntoIterator<Item = Tool>) -> Self {
        self.tools.extend(tools);
        self
    }

    /// Supplies a context value, injected into every `#[context] x: &T` parameter of type `T`
    /// (and into `&self` of method tools of type `T`).
    #[must_use]
    pub fn context<T: Any + Send + Sync>(mut self, value: T) -> Self {
        self.context.insert(value);
        self
    }

    /// Supplies a context value the host keeps a handle to.
    #[must_use]
    pub fn shared_context<T: Any + Send + Sync>(mut self, value: Arc<T>) -> Self {
        self.context.insert_shared(value);
        self
    }

    /// Builds the toolbox, reporting every problem at once: duplicate names, missing context
    /// values, unusable schemas.
    pub fn build(self) -> Result<Toolbox, BuildError> {
        let mut registry = Registry::default();
        let mut problems = Vec::new();
        for tool in self.tools {
            match prepare(&tool, &self.context, &registry) {
                Ok(entry) => {
                    registry
                        .index
                        .insert(tool.name().to_string(), registry.entries.len());
                    registry.entries.push(Arc::new(entry));
                }
                Err(mut p) => problems.append(&mut p),
            }
        }
        if !problems.is_empty() {
            return Err(BuildError { problems });
        }
        Ok(Toolbox {
            registry: RwLock::new(Arc::new(registry)),
            context: Arc::new(self.context),
        })
    }
}

fn prepare(tool: &Tool, context: &Context, registry: &Registry) -> Result<Entry, Vec<Problem>> {
    let name = tool.name().to_string();
    let mut problems = Vec::new();
    if registry.index.contains_key(&name) {
        problems.push(Problem::DuplicateTool { name: name.clone() });
    }
    for c in tool.contexts() {
        if !context.contains((c.type_id)()) {
            problems.push(Problem::MissingContext {
                tool: name.clone(),
                param: c.param.to_string(),
                type_name: c.type_name.to_string(),
            });
        }
    }
    for reason in &tool.inner.problems {
        problems.push(Problem::InvalidSchema {
            tool: name.clone(),
            reason: reason.clone(),
        });
    }
    let validator = match Validator::new(&tool.spec().input_schema) {
        Ok(v) => Some(v),
        Err(e) => {
            problems.push(Problem::InvalidSchema {
                tool: name.clone(),
                reason: e.to_string(),
            });
            None
        }
    };
    match validator {
        Some(validator) if problems.is_empty() => Ok(Entry {
            tool: tool.clone(),
            validator,
        }),
        _ => Err(problems),
    }
}

/// The registry of tools and the call pipeline: lookup → validation → execution → envelope.
///
/// A toolbox is shared by reference across concurrent calls (`Arc<Toolbox>`); registering and
/// retiring tools take `&self`.
pub struct Toolbox {
    registry: RwLock<Arc<Registry>>,
    context: Arc<Context>,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reg = self.snapshot();
        f.debug_struct("Toolbox")
            .field("tools", &reg.names())
            .finish()
    }
}

impl Toolbox {
    /// Starts building a toolbox.
    pub fn builder() -> ToolboxBuilder {
        ToolboxBuilder::default()
    }

    fn snapshot(&self) -> Arc<Registry> {
        match self.registry.read() {
            Ok(r) => Arc::clone(&r),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    fn update(&self, f: impl FnOnce(&Registry) -> Registry) {
        let mut guard = match self.registry.write() {
            Ok(g) => g,
            Err(poisoned) => poisoned.into_inner(),
        };
        let next = f(&guard);
        *guard = Arc::new(next);
    }

    /// The specs of the registered tools, in registration order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.snapshot()
            .entries
            .iter()
            .map(|e| e.tool.spec().clone())
            .collect()
    }

    /// The spec of one registered tool.
    pub fn spec(&self, name: &str) -> Option<ToolSpec> {
        let reg = self.snapshot();
        reg.index
            .get(name)
            .map(|&i| reg.entries[i].tool.spec().clone())
    }

    /// Lints every registered tool's spec (full schemas included) with the given budgets.
    pub fn lint(&self, config: &crate::lint::LintConfig) -> Vec<crate::lint::Finding> {
        self.snapshot()
            .entries
            .iter()
            .flat_map(|e| crate::lint::lint_with(e.tool.spec(), config))
            .collect()
    }

    /// The names of the registered tools, in registration order.
    pub fn names(&self) -> Vec<String> {
        self.snapshot()
            .names()
            .into_iter()
            .map(String::from)
            .collect()
    }

    /// Registers a tool on a running toolbox (with the same checks as [`ToolboxBuilder::build`]).
    pub fn register(&self, tool: Tool) -> Result<(), BuildError> {
        let mut result = Ok(());
        self.update(|reg| match prepare(&tool, &self.context, reg) {
            Ok(entry) => {
                let mut next = Registry {
                    entries: reg.entries.clone(),
                    index: reg.index.clone(),
                    retired: reg.retired.clone(),
                };
                next.retired.remove(tool.name());
                next.index
                    .insert(tool.name().to_string(), next.entries.len());
                next.entries.push(Arc::new(entry));
                next
            }
            Err(problems) => {
                result = Err(BuildError { problems });
                Registry {
                    entries: reg.entries.clone(),
                    index: reg.index.clone(),
                    retired: reg.retired.clone(),
                }
            }
        });
        result
    }

    /// Retires a tool: it leaves [`specs`](Self::specs), and calls to it return `invalid_input`
    /// (code `TOOL_RETIRED`) naming the tools that remain.
    pub fn deregister(&self, name: &str) -> Result<(), NotRegistered> {
        let mut found = false;
        self.update(|reg| {
            found = reg.index.contains_key(name);
            let entries: Vec<Arc<Entry>> = reg
                .entries
                .iter()
                .filter(|e| e.tool.name() != name)
                .cloned()
                .collect();
            let index = entries
                .iter()
                .enumerate()
                .map(|(i, e)| (e.tool.name().to_string(), i))
                .collect();
            let mut retired = reg.retired.clone();
            if found {
                retired.insert(name.to_string());
            }
            Registry {
                entries,
                index,
                retired,
            }
        });
        if found {
            Ok(())
        } else {
            Err(NotRegistered {
                name: name.to_string(),
            })
        }
    }

    /// Calls a tool. Never panics and never fails: every outcome is an [`Envelope`].
    ///
    /// `args` is a `serde_json::Value` or JSON text (`&str`/`String`).
    pub async fn call(&self, name: &str, args: impl Into<Arguments>) -> Envelope {
        let mut env = self.run(name, args.into()).await;
        env.operation_id = Some(new_operation_id());
        env
    }

    async fn run(&self, name: &str, args: Arguments) -> Envelope {
        let reg = self.snapshot();
        let Some(&i) = reg.index.get(name) else {
            return unknown_tool(&reg, name);
        };
        let entry = Arc::clone(&reg.entries[i]);
        drop(reg);
        let mut args = match args {
            Arguments::Value(v) => v,
            Arguments::Text(text) => match parse_text(&text) {
                Ok(v) => v,
                Err(env) => return *env,
            },
        };
        if args.is_null() {
            // "No arguments" is sent as null by some clients.
            args = Value::Object(Default::default());
        }
        match entry.validator.validate(&args) {
            Ok(Valid::AsIs) => {}
            Ok(Valid::NormalizeIntegers) => validate::normalize_integers(&mut args),
            Err(errors) => return invalid_arguments(errors),
        }
        let outcome = match &entry.tool.inner.invoke {
            Invoke::Generated(f) => CatchUnwind(f(&self.context, &args)).await,
            Invoke::Dynamic(f) => CatchUnwind(f(Arc::clone(&self.context), args)).await,
        };
        match outcome {
            Ok(Ok(data)) => Envelope::ok(data),
            Ok(Err(e)) => e.into_envelope(),
            Err(()) => ToolError::failed(
                "INTERNAL",
                "The tool failed unexpectedly and did not complete. Retrying the same call is unlikely to help; tell the user the action could not be done.",
            )
            .into_envelope(),
        }
    }
}

fn parse_text(text: &str) -> Result<Value, Box<Envelope>> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(text).map_err(|e| {
        Box::new(Envelope::error(
            Status::InvalidInput,
            "INVALID_INPUT",
            format!(
                "The arguments are not valid JSON ({e}). Send one JSON object, e.g. {{\"name\": \"value\"}}."
            ),
        ))
    })
}

fn unknown_tool(reg: &Registry, name: &str) -> Envelope {
    let names: Vec<String> = reg.names().iter().map(|n| format!("\"{n}\"")).collect();
    let available = if names.is_empty() {
        "No tools are available.".to_string()
    } else {
        format!("The tools are {}.", names.join(", "))
    };
    if reg.retired.contains(name) {
        Envelope::error(
            Status::InvalidInput,
            "TOOL_RETIRED",
            format!("The tool \"{name}\" was retired and can no longer be called. {available}"),
        )
    } else {
        Envelope::error(
            Status::InvalidInput,
            "UNKNOWN_TOOL",
            format!("No tool is named \"{name}\". {available}"),
        )
    }
}

fn invalid_arguments(errors: Vec<validate::ArgError>) -> Envelope {
    let code = errors.first().map_or("INVALID_ARGUMENT", |e| e.code);
    let message = errors
        .iter()
        .map(|e| e.message.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let mut env = Envelope::error(Status::InvalidInput, code, message);
    if errors.len() > 1 {
        let list: Vec<Value> = errors
            .iter()
            .map(|e| serde_json::json!({"path": e.path, "code": e.code, "message": e.message}))
            .collect();
        env.data = Some(serde_json::json!({ "errors": list }));
    }
    env
}

fn new_operation_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{SystemTime, UNIX_EPOCH};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let t = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    format!("op-{t:x}-{n:x}")
}

/// Turns a panic inside a future into an error result.
struct CatchUnwind<F>(F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, ()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let inner = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(Err(())),
        }
    }
}
