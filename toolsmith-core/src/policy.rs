//! Policy: which tools a caller may use, decided from the tools' declared side effects.
//!
//! The overview is in the docs of [`Policy`], where it is rendered.

use crate::envelope::{Envelope, Status};
use crate::error::ToolError;
use crate::spec::{Effects, ToolSpec};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// One side effect a tool can declare (a field of [`Effects`]), as a policy names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Effect {
    /// Deletes or overwrites state irreversibly.
    Destructive,
    /// Creates or changes state.
    Writes,
    /// Talks to systems outside the host.
    Network,
    /// Interacts with an open world of external entities.
    OpenWorld,
    /// Needs a human to confirm each call.
    RequiresApproval,
    /// Returns text written by third parties.
    UntrustedOutput,
    /// Reads only.
    ReadOnly,
    /// Repeating the call has no additional effect.
    Idempotent,
}

impl Effect {
    /// Every effect, most consequential first (the order denials are reported in).
    pub const ALL: [Effect; 8] = [
        Effect::Destructive,
        Effect::Writes,
        Effect::Network,
        Effect::OpenWorld,
        Effect::RequiresApproval,
        Effect::UntrustedOutput,
        Effect::ReadOnly,
        Effect::Idempotent,
    ];

    /// The declaration keyword, e.g. `open_world`.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Destructive => "destructive",
            Effect::Writes => "writes",
            Effect::Network => "network",
            Effect::OpenWorld => "open_world",
            Effect::RequiresApproval => "requires_approval",
            Effect::UntrustedOutput => "untrusted_output",
            Effect::ReadOnly => "read_only",
            Effect::Idempotent => "idempotent",
        }
    }

    /// What tools with this effect do, in words for a model-facing message ("delete data").
    pub fn describe(self) -> &'static str {
        match self {
            Effect::Destructive => "delete data",
            Effect::Writes => "change data",
            Effect::Network => "reach the network",
            Effect::OpenWorld => "reach outside systems",
            Effect::RequiresApproval => "need a human's approval",
            Effect::UntrustedOutput => "return third-party content",
            Effect::ReadOnly => "only read data",
            Effect::Idempotent => "are safe to repeat",
        }
    }

    /// Whether `effects` declares this effect.
    pub fn is_declared(self, effects: &Effects) -> bool {
        match self {
            Effect::Destructive => effects.destructive,
            Effect::Writes => effects.writes,
            Effect::Network => effects.network,
            Effect::OpenWorld => effects.open_world,
            Effect::RequiresApproval => effects.requires_approval,
            Effect::UntrustedOutput => effects.untrusted_output,
            Effect::ReadOnly => effects.read_only,
            Effect::Idempotent => effects.idempotent,
        }
    }

    /// The effects a policy judges a tool by: the declared ones, with one conservative rule — a
    /// tool that declares neither `read_only` nor `writes` nor `destructive` is treated as
    /// writing, since nothing says it does not.
    pub fn effective(effects: &Effects) -> BTreeSet<Effect> {
        let mut set: BTreeSet<Effect> = Effect::ALL
            .into_iter()
            .filter(|e| e.is_declared(effects))
            .collect();
        if !effects.read_only && !effects.writes && !effects.destructive {
            set.insert(Effect::Writes);
        }
        set
    }
}

impl std::fmt::Display for Effect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Who is calling: an identity with roles and scopes, or nobody in particular.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Caller {
    /// The caller's identity (a user or service id); `None` for an anonymous caller.
    pub id: Option<String>,
    /// Roles the caller holds (e.g. `admin`); policies grant effects to roles.
    pub roles: BTreeSet<String>,
    /// Scopes the caller was granted (e.g. `files:write`); policies can require them per tool.
    pub scopes: BTreeSet<String>,
}

impl Caller {
    /// A caller without identity, roles or scopes.
    pub fn anonymous() -> Self {
        Caller::default()
    }

    /// A caller with the identity `id` and no roles or scopes yet. An empty (or blank) `id` is
    /// no identity: the caller is anonymous.
    ///
    /// ```
    /// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
    /// use toolsmith::Caller;
    /// assert!(Caller::new("").is_anonymous());
    /// assert_eq!(Caller::new("ann").id(), Some("ann"));
    /// ```
    pub fn new(id: impl Into<String>) -> Self {
        let id = id.into();
        Caller {
            id: (!id.trim().is_empty()).then_some(id),
            ..Caller::default()
        }
    }

    /// Adds a role.
    #[must_use]
    pub fn with_role(mut self, role: impl Into<String>) -> Self {
        self.roles.insert(role.into());
        self
    }

    /// Adds a scope.
    #[must_use]
    pub fn with_scope(mut self, scope: impl Into<String>) -> Self {
        self.scopes.insert(scope.into());
        self
    }

    /// Whether the caller has no identity (no id, or a blank one).
    pub fn is_anonymous(&self) -> bool {
        self.id().is_none()
    }

    /// The caller's identity, if any; a blank id counts as none.
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref().filter(|id| !id.trim().is_empty())
    }

    /// Whether the caller holds `role`.
    pub fn has_role(&self, role: &str) -> bool {
        self.roles.contains(role)
    }

    /// Whether the caller was granted `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.contains(scope)
    }
}

/// Why a call was refused by a [`Policy`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DenialReason {
    /// The tool declares an effect this session does not allow.
    Effect(Effect),
    /// The tool is on the policy's deny list.
    ToolDenied,
    /// The policy allows only listed tools, and this one is not listed.
    NotListed,
    /// The tool requires a scope the caller was not granted.
    MissingScope(String),
    /// The policy requires an identified caller.
    Anonymous,
}

/// A refusal by a [`Policy`]: what was refused and why, in a message the model can act on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
#[non_exhaustive]
pub struct Denial {
    /// The tool the call was for.
    pub tool: String,
    /// Why it was refused.
    pub reason: DenialReason,
}

/// The code every policy denial carries.
pub(crate) use crate::codes::POLICY_DENIED;

impl Denial {
    /// A refusal of a call to `tool` for `reason`.
    pub fn new(tool: impl Into<String>, reason: DenialReason) -> Self {
        Denial {
            tool: tool.into(),
            reason,
        }
    }

    /// The stable code: [`POLICY_DENIED`].
    pub fn code(&self) -> &'static str {
        POLICY_DENIED
    }

    /// The model-facing message: what was refused, why, that retrying will not help, and who can
    /// change it.
    pub fn message(&self) -> String {
        let why = match &self.reason {
            DenialReason::Effect(e) => format!(
                "this session may not use tools that {} ({})",
                e.describe(),
                e.as_str()
            ),
            DenialReason::ToolDenied => "this tool is blocked for this session".to_string(),
            DenialReason::NotListed => {
                "this session may use only an approved list of tools, and this tool is not on it"
                    .to_string()
            }
            DenialReason::MissingScope(scope) => {
                format!("the caller lacks the permission scope \"{scope}\" this tool requires")
            }
            DenialReason::Anonymous => "this tool requires a signed-in caller".to_string(),
        };
        format!(
            "The call to \"{}\" was refused: {why}. Retrying will not help; ask the user to grant access.",
            self.tool
        )
    }

    /// The denial as a `denied` tool error with structured details
    /// (`{"tool": ..., "reason": ..., "effect"|"scope": ...}`).
    pub fn into_tool_error(self) -> ToolError {
        let mut details = serde_json::json!({ "tool": self.tool });
        let reason = match &self.reason {
            DenialReason::Effect(e) => {
                details["effect"] = serde_json::Value::String(e.as_str().into());
                "effect"
            }
            DenialReason::ToolDenied => "tool_denied",
            DenialReason::NotListed => "not_listed",
            DenialReason::MissingScope(s) => {
                details["scope"] = serde_json::Value::String(s.clone());
                "missing_scope"
            }
            DenialReason::Anonymous => "anonymous",
        };
        details["reason"] = serde_json::Value::String(reason.into());
        ToolError::new(Status::Denied, POLICY_DENIED, self.message()).with_details(details)
    }

    /// The denial as a `denied` envelope.
    pub fn into_envelope(self) -> Envelope {
        self.into_tool_error().into_envelope()
    }
}

/// What a session may do: allowed effects, per-tool exceptions, scope requirements and
/// per-caller grants.
///
/// Decision order in [`Policy::check`]:
/// 1. a tool on the deny list ([`Policy::deny_tool`]) is refused;
/// 2. a tool whose required scope ([`Policy::require_scope`]) the caller lacks is refused;
/// 3. with [`Policy::require_identity`], an anonymous caller is refused;
/// 4. a tool on the allow list ([`Policy::allow_tool`]) is allowed whatever its effects;
/// 5. with [`Policy::only_tools`], a tool not listed is refused;
/// 6. a tool is refused when one of its [effective effects](Effect::effective) is denied and not
///    granted to the caller (by id or role); otherwise it is allowed.
///
/// # Overview
///
/// Policy: which tools a caller may use, decided from the tools' declared side effects.
///
/// A [`Policy`] is checked at the execution boundary before any tool runs. [`Policy::check`] is a
/// pure function of the policy, the tool's [`ToolSpec`] and the [`Caller`]; a refusal is a
/// [`Denial`] whose message tells the model what was refused and that retrying will not help.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::{Caller, Effect, Policy};
/// # use toolsmith::{Effects, ToolSpec};
/// # let spec = |name: &str, effects: Effects| {
/// #     ToolSpec::new(name, "", serde_json::json!({"type": "object"}))
/// #         .with_effects(effects).with_version("1.0.0")
/// # };
/// let delete = spec("delete_file", Effects::none().with_writes(true).with_destructive(true));
/// let policy = Policy::read_only().grant_role("admin", [Effect::Writes, Effect::Destructive]);
///
/// let denial = policy.check(&delete, &Caller::anonymous()).unwrap_err();
/// assert_eq!(denial.code(), "POLICY_DENIED");
/// assert_eq!(
///     denial.message(),
///     "The call to \"delete_file\" was refused: this session may not use tools that delete data \
///      (destructive). Retrying will not help; ask the user to grant access."
/// );
/// assert!(policy.check(&delete, &Caller::new("ann").with_role("admin")).is_ok());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    denied_effects: BTreeSet<Effect>,
    allowed_tools: BTreeSet<String>,
    denied_tools: BTreeSet<String>,
    only_tools: Option<BTreeSet<String>>,
    required_scopes: BTreeMap<String, BTreeSet<String>>,
    role_grants: BTreeMap<String, BTreeSet<Effect>>,
    caller_grants: BTreeMap<String, BTreeSet<Effect>>,
    require_identity: bool,
}

impl Policy {
    /// Every tool is allowed.
    pub fn allow_all() -> Self {
        Policy::default()
    }

    /// Only tools that change nothing: `writes` and `destructive` are denied (and so is any tool
    /// that does not declare `read_only`, see [`Effect::effective`]). Network reads stay allowed;
    /// add [`Policy::deny_effect`]`(Effect::Network)` to forbid them.
    pub fn read_only() -> Self {
        Policy::default()
            .deny_effect(Effect::Writes)
            .deny_effect(Effect::Destructive)
    }

    /// Allows tools with `effect` again.
    #[must_use]
    pub fn allow_effect(mut self, effect: Effect) -> Self {
        self.denied_effects.remove(&effect);
        self
    }

    /// Refuses tools that declare `effect`.
    #[must_use]
    pub fn deny_effect(mut self, effect: Effect) -> Self {
        self.denied_effects.insert(effect);
        self
    }

    /// Allows the tool `name` whatever its effects (deny list, scopes and identity still apply).
    #[must_use]
    pub fn allow_tool(mut self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.denied_tools.remove(&name);
        self.allowed_tools.insert(name);
        self
    }

    /// Refuses the tool `name` always.
    #[must_use]
    pub fn deny_tool(mut self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.allowed_tools.remove(&name);
        self.denied_tools.insert(name);
        self
    }

    /// Allows only the listed tools (plus those given to [`Policy::allow_tool`]); calls to any
    /// other tool are refused. Calling it again adds to the list.
    #[must_use]
    pub fn only_tools<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.only_tools
            .get_or_insert_with(BTreeSet::new)
            .extend(names.into_iter().map(Into::into));
        self
    }

    /// Requires callers of the tool `name` to hold `scope`.
    #[must_use]
    pub fn require_scope(mut self, name: impl Into<String>, scope: impl Into<String>) -> Self {
        self.required_scopes
            .entry(name.into())
            .or_default()
            .insert(scope.into());
        self
    }

    /// Callers holding `role` may use tools with these effects even where the policy denies them.
    #[must_use]
    pub fn grant_role<I>(mut self, role: impl Into<String>, effects: I) -> Self
    where
        I: IntoIterator<Item = Effect>,
    {
        self.role_grants
            .entry(role.into())
            .or_default()
            .extend(effects);
        self
    }

    /// The caller with identity `id` may use tools with these effects even where the policy
    /// denies them.
    #[must_use]
    pub fn grant_caller<I>(mut self, id: impl Into<String>, effects: I) -> Self
    where
        I: IntoIterator<Item = Effect>,
    {
        self.caller_grants
            .entry(id.into())
            .or_default()
            .extend(effects);
        self
    }

    /// Refuses every call from an anonymous caller.
    #[must_use]
    pub fn require_identity(mut self) -> Self {
        self.require_identity = true;
        self
    }

    /// The scopes a caller of the tool `name` must hold ([`Policy::require_scope`]), in
    /// order; none when the tool requires none.
    pub fn required_scopes(&self, name: &str) -> impl Iterator<Item = &str> + '_ {
        self.required_scopes
            .get(name)
            .into_iter()
            .flatten()
            .map(String::as_str)
    }

    /// Every scope some tool requires, once each, in order (what a server can list as the
    /// scopes it supports).
    pub fn scopes(&self) -> impl Iterator<Item = &str> + '_ {
        self.required_scopes
            .values()
            .flatten()
            .map(String::as_str)
            .collect::<BTreeSet<_>>()
            .into_iter()
    }

    /// The effects the policy denies (before caller grants).
    pub fn denied_effects(&self) -> impl Iterator<Item = Effect> + '_ {
        self.denied_effects.iter().copied()
    }

    /// Whether `caller` was granted `effect` by id or by role.
    fn granted(&self, caller: &Caller, effect: Effect) -> bool {
        caller
            .id()
            .and_then(|id| self.caller_grants.get(id))
            .is_some_and(|g| g.contains(&effect))
            || caller
                .roles
                .iter()
                .filter_map(|r| self.role_grants.get(r))
                .any(|g| g.contains(&effect))
    }

    /// Whether [`Policy::check`] admits every caller to every tool (nothing is denied, no
    /// identity or scope is required, no list of tools is set): the pipeline then skips it.
    pub(crate) fn admits_all(&self) -> bool {
        self.denied_tools.is_empty()
            && self.required_scopes.is_empty()
            && !self.require_identity
            && self.only_tools.is_none()
            && self.denied_effects.is_empty()
    }

    /// Decides whether `caller` may call the tool `spec` describes.
    ///
    /// # Errors
    /// A [`Denial`] saying what was refused and why (see the decision order on [`Policy`]).
    pub fn check(&self, spec: &ToolSpec, caller: &Caller) -> Result<(), Denial> {
        let deny = |reason| {
            Err(Denial {
                tool: spec.name.clone(),
                reason,
            })
        };
        if self.denied_tools.contains(&spec.name) {
            return deny(DenialReason::ToolDenied);
        }
        if let Some(scopes) = self.required_scopes.get(&spec.name) {
            if let Some(missing) = scopes.iter().find(|s| !caller.has_scope(s)) {
                return deny(DenialReason::MissingScope(missing.clone()));
            }
        }
        if self.require_identity && caller.is_anonymous() {
            return deny(DenialReason::Anonymous);
        }
        if self.allowed_tools.contains(&spec.name) {
            return Ok(());
        }
        if let Some(only) = &self.only_tools {
            if !only.contains(&spec.name) {
                return deny(DenialReason::NotListed);
            }
        }
        if self.denied_effects.is_empty() {
            return Ok(());
        }
        // BTreeSet iterates in Effect's order: the most consequential effect is reported.
        if let Some(effect) = Effect::effective(&spec.effects)
            .into_iter()
            .find(|e| self.denied_effects.contains(e) && !self.granted(caller, *e))
        {
            return deny(DenialReason::Effect(effect));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{Caller, Effect, Policy};
    use crate::spec::{Effects, ToolSpec};

    /// The pipeline skips the policy stage for a policy that `admits_all`: it must admit every
    /// caller to every tool, and every restriction must make it not admit all.
    #[test]
    fn a_policy_admits_all_only_when_it_restricts_nothing() {
        let open = [
            Policy::allow_all(),
            Policy::allow_all().allow_tool("t"),
            Policy::allow_all().grant_role("admin", [Effect::Writes]),
            Policy::read_only()
                .allow_effect(Effect::Writes)
                .allow_effect(Effect::Destructive),
        ];
        let effects = [
            Effects::none(),
            Effects::none().with_read_only(true),
            Effects::none().with_writes(true).with_destructive(true),
            Effects::none().with_network(true).with_open_world(true),
        ];
        let callers = [
            Caller::anonymous(),
            Caller::new("ann").with_role("admin").with_scope("s"),
        ];
        for policy in &open {
            assert!(policy.admits_all(), "{policy:?}");
            for e in &effects {
                let spec = ToolSpec::new("t", "A tool.", serde_json::json!({"type": "object"}))
                    .with_effects(*e);
                for caller in &callers {
                    assert!(policy.check(&spec, caller).is_ok(), "{policy:?} {e:?}");
                }
            }
        }
        let restricted = [
            Policy::read_only(),
            Policy::allow_all().deny_effect(Effect::Network),
            Policy::allow_all().deny_tool("t"),
            Policy::allow_all().only_tools(["t"]),
            Policy::allow_all().require_scope("t", "s"),
            Policy::allow_all().require_identity(),
        ];
        for policy in &restricted {
            assert!(!policy.admits_all(), "{policy:?}");
        }
    }
}
