//! Build-time checks: a tool becomes a registry [`Entry`] (its validators compiled once) only
//! when its declaration, its schemas, its idempotency key and its context needs are sound. Run
//! by [`ToolboxBuilder::build`](crate::ToolboxBuilder::build) and
//! [`Toolbox::register`](crate::Toolbox::register), which report every problem at once.

use super::registry::Registry;
use super::StageId;
use crate::context::Context;
use crate::tool::Tool;
use crate::validate::Validator;

/// A registered tool, with what the pipeline needs of it precomputed.
pub(crate) struct Entry {
    pub(crate) tool: Tool,
    pub(crate) validator: Validator,
    /// The output schema's validator, when the toolbox checks the contract.
    pub(crate) output_validator: Option<Validator>,
    pub(crate) fingerprint: String,
    /// Whether the tool takes a `cursor` argument, so the toolbox can serve next pages.
    pub(crate) paginated: bool,
    /// What the tool answers with when it answers with content blocks ([`crate::content`]):
    /// its results are not cut, and only their text is redacted.
    pub(crate) content: Option<crate::content::ContentKind>,
    /// The generated typed decoding ([`crate::typed`]); not for schemas whose checks the
    /// validator leaves in part to the full JSON Schema validator.
    pub(crate) typed: Option<crate::typed::TypedDef>,
    /// The output schema's property names the toolbox's redactor leaves alone, found on the
    /// first call (the redactor is the toolbox's; the entry is built before it is known).
    pub(crate) quiet_keys: std::sync::OnceLock<crate::redact::QuietKeys>,
    /// The pipeline stages with nothing to do for any call of this tool in its toolbox, found
    /// on the first call (the pipeline's `Idle`).
    pub(crate) idle: std::sync::OnceLock<u32>,
}

/// Checks one tool against the registry so far and the context, and compiles its validators.
pub(crate) fn prepare(
    tool: &Tool,
    context: &Context,
    registry: &Registry,
    check_output_contract: bool,
) -> Result<Entry, Vec<Problem>> {
    let mut problems = declaration_problems(tool, context, registry);
    let spec = tool.spec();
    let validator = match Validator::new(&spec.input_schema) {
        Ok(v) => Some(v),
        Err(e) => {
            problems.push(schema_problem(tool, e.to_string()));
            None
        }
    };
    if let Some(validator) = &validator {
        problems.extend(example_problems(tool, validator));
    }
    problems.extend(mcp_field_problems(tool));
    let output_validator = if check_output_contract {
        output_validator(tool, &mut problems)
    } else {
        None
    };
    let paginated = spec
        .input_schema
        .pointer("/properties/cursor/type")
        .is_some_and(|t| t == "string");
    match validator {
        Some(validator) if problems.is_empty() => Ok(Entry {
            tool: tool.clone(),
            typed: tool.inner.typed.filter(|_| !validator.uses_fallback()),
            validator,
            output_validator,
            fingerprint: spec.fingerprint(),
            paginated,
            content: spec.content_kind(),
            quiet_keys: std::sync::OnceLock::new(),
            idle: std::sync::OnceLock::new(),
        }),
        _ => Err(problems),
    }
}

fn schema_problem(tool: &Tool, reason: String) -> Problem {
    Problem::InvalidSchema {
        tool: tool.name().to_string(),
        reason,
    }
}

/// Duplicate names, missing context values, declaration rules, schema problems found when the
/// tool was built, and an idempotency key naming no parameter.
fn declaration_problems(tool: &Tool, context: &Context, registry: &Registry) -> Vec<Problem> {
    let name = tool.name().to_string();
    let spec = tool.spec();
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
    for reason in crate::tool::declaration_problems(spec) {
        problems.push(Problem::InvalidDeclaration {
            tool: name.clone(),
            reason,
        });
    }
    for reason in &tool.inner.problems {
        problems.push(schema_problem(tool, reason.clone()));
    }
    let params = spec.param_names();
    for key in &tool.inner.idempotency_key {
        if !params.contains(&key.as_str()) {
            problems.push(schema_problem(
                tool,
                format!("the idempotency key names `{key}`, which is not a parameter"),
            ));
        }
    }
    problems
}

/// Each example call that the tool's own validator refuses, as a declaration problem naming
/// the example (1-based, in declaration order) and each argument at fault with its rule: the
/// check `#[tool(example(...))]` makes at compile time, made again for tools built at run time
/// (and for what the macro cannot see, such as a pattern or a parameter of a user type).
fn example_problems(tool: &Tool, validator: &Validator) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (i, example) in tool.spec().examples.iter().enumerate() {
        let n = i + 1;
        let reason = if !example.is_object() {
            Some(format!(
                "example {n} is not an object of arguments: {}",
                toolsmith_spec::canonical_json(example)
            ))
        } else {
            match validator.validate(example) {
                Ok(_) => None,
                Err(errors) => {
                    let faults: Vec<String> = errors
                        .iter()
                        .map(|e| {
                            let at = if e.path.is_empty() {
                                "the arguments".to_string()
                            } else {
                                format!("argument `{}`", e.path)
                            };
                            format!("{at} ({}): {}", e.code, e.message)
                        })
                        .collect();
                    Some(format!(
                        "example {n} ({}) does not fit the input schema: {}",
                        toolsmith_spec::canonical_json(example),
                        faults.join("; ")
                    ))
                }
            }
        };
        if let Some(reason) = reason {
            problems.push(Problem::InvalidDeclaration {
                tool: tool.name().to_string(),
                reason,
            });
        }
    }
    problems
}

/// The MCP fields a client would refuse or a tool built at run time may get wrong: each icon
/// against MCP's `Icon` rules ([`toolsmith_spec::spec::Icon::problems`]), and the input schema's
/// `x-mcp-header` annotations against the 2026-07-28 rules (`toolsmith_lint::mcp_fields`): a client
/// drops a tool whose annotation breaks them, so the tool would vanish from its list unseen.
/// `#[tool(icon)]` and `#[arg(header)]` make the same checks at compile time.
fn mcp_field_problems(tool: &Tool) -> Vec<Problem> {
    let spec = tool.spec();
    let icons = spec.icons.iter().enumerate().flat_map(|(i, icon)| {
        icon.problems()
            .into_iter()
            .map(move |p| format!("icon {}: {p}", i + 1))
    });
    let headers = toolsmith_lint::mcp_fields::header_problems(&spec.input_schema)
        .into_iter()
        .map(|p| format!("x-mcp-header: {p}"));
    icons
        .chain(headers)
        .map(|reason| Problem::InvalidDeclaration {
            tool: tool.name().to_string(),
            reason,
        })
        .collect()
}

/// The validator of the output contract (`ToolboxBuilder::check_output_contract`).
fn output_validator(tool: &Tool, problems: &mut Vec<Problem>) -> Option<Validator> {
    match tool.spec().output_schema.as_ref().map(Validator::new) {
        Some(Ok(v)) => Some(v),
        Some(Err(e)) => {
            problems.push(schema_problem(tool, format!("output schema: {e}")));
            None
        }
        None => None,
    }
}

/// One problem found while building a toolbox or registering a tool.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
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
    /// A tool's declared effects break a declaration rule `#[tool]` enforces at compile time
    /// (checked again for tools built at run time).
    #[error("tool `{tool}`: {reason}")]
    InvalidDeclaration {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// A tool's schema is unusable.
    #[error("tool `{tool}`: {reason}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// A deprecated tool's replacement is not registered, or the replacements form a cycle.
    #[error("tool `{tool}`: {reason}")]
    InvalidReplacement {
        /// The deprecated tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// A retirement time ([`ToolboxBuilder::retire_at`](crate::ToolboxBuilder::retire_at))
    /// names a tool that is not registered, or one that is not deprecated.
    #[error("tool `{tool}`: {reason}")]
    InvalidRetirement {
        /// The tool the time was set for.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// A setting of the builder names a tool that is not registered
    /// ([`ToolboxBuilder::core`](crate::ToolboxBuilder::core),
    /// [`ToolboxBuilder::namespace`](crate::ToolboxBuilder::namespace)).
    #[error("`.{setting}(...)` names `{name}`, which is not a registered tool; registered: {registered}")]
    UnknownTool {
        /// The builder method, e.g. `core`.
        setting: &'static str,
        /// The name it gave.
        name: String,
        /// The registered tools' names, comma-separated.
        registered: String,
    },
    /// A tool's namespace cannot be exported (see `toolsmith_spec::export::check_namespaces`): a
    /// name OpenAI does not accept, an empty description, one namespace described two ways, or
    /// a namespace named like a tool.
    #[error("tool `{tool}`: {reason}")]
    InvalidNamespace {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// A host stage was placed where host stages cannot run
    /// ([`StageId::accepts_host_stage`]).
    #[error("a host stage cannot run before `{before}`: host stages run before one of the stages from `lookup` to `output_contract`")]
    InvalidStage {
        /// The stage it was placed before.
        before: StageId,
    },
}
