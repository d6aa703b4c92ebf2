//! Policy decisions over declared effects, tool lists, scopes and callers.

use crate::common;

use serde_json::json;
use toolsmith_core::codes::POLICY_DENIED;
use toolsmith_core::Status;
use toolsmith_core::{Caller, Denial, DenialReason, Effect, Policy};
use toolsmith_core::{Effects, ToolSpec};

fn spec(name: &str, effects: Effects) -> ToolSpec {
    common::spec(
        name,
        &format!("{name}. Returns a result."),
        json!({"type": "object", "properties": {}, "additionalProperties": false}),
        effects,
    )
}

fn read() -> ToolSpec {
    spec("read_file", Effects::none().with_read_only(true))
}
fn search_web() -> ToolSpec {
    spec(
        "search_web",
        Effects::none()
            .with_read_only(true)
            .with_network(true)
            .with_open_world(true)
            .with_untrusted_output(true),
    )
}
fn write() -> ToolSpec {
    spec(
        "write_file",
        Effects::none().with_writes(true).with_idempotent(true),
    )
}
fn delete() -> ToolSpec {
    spec(
        "delete_file",
        Effects::none()
            .with_writes(true)
            .with_destructive(true)
            .with_requires_approval(true),
    )
}
fn undeclared() -> ToolSpec {
    spec("mystery", Effects::default())
}

fn reason(r: Result<(), Denial>) -> DenialReason {
    r.expect_err("expected a denial").reason
}

#[test]
fn allow_all_allows_everything() {
    let p = Policy::allow_all();
    for s in [read(), search_web(), write(), delete(), undeclared()] {
        assert!(p.check(&s, &Caller::anonymous()).is_ok(), "{}", s.name);
    }
}

#[test]
fn read_only_allows_reads_and_refuses_changes() {
    let p = Policy::read_only();
    let anon = Caller::anonymous();
    assert!(p.check(&read(), &anon).is_ok());
    assert!(
        p.check(&search_web(), &anon).is_ok(),
        "network reads stay allowed"
    );
    assert_eq!(
        reason(p.check(&write(), &anon)),
        DenialReason::Effect(Effect::Writes)
    );
    // The most consequential effect is the one reported.
    assert_eq!(
        reason(p.check(&delete(), &anon)),
        DenialReason::Effect(Effect::Destructive)
    );
    // A tool that declares nothing is treated as writing.
    assert_eq!(
        reason(p.check(&undeclared(), &anon)),
        DenialReason::Effect(Effect::Writes)
    );
}

#[test]
fn effects_can_be_denied_and_allowed_again() {
    let p = Policy::read_only().deny_effect(Effect::Network);
    assert_eq!(
        reason(p.check(&search_web(), &Caller::anonymous())),
        DenialReason::Effect(Effect::Network)
    );
    let p = p.allow_effect(Effect::Network).allow_effect(Effect::Writes);
    assert!(p.check(&search_web(), &Caller::anonymous()).is_ok());
    assert!(p.check(&write(), &Caller::anonymous()).is_ok());
    assert!(p.check(&delete(), &Caller::anonymous()).is_err());
    let untrusted = Policy::allow_all().deny_effect(Effect::UntrustedOutput);
    assert_eq!(
        reason(untrusted.check(&search_web(), &Caller::anonymous())),
        DenialReason::Effect(Effect::UntrustedOutput)
    );
}

#[test]
fn tool_lists_override_effects_and_deny_wins() {
    let anon = Caller::anonymous();
    let p = Policy::read_only().allow_tool("write_file");
    assert!(p.check(&write(), &anon).is_ok());
    assert!(p.check(&delete(), &anon).is_err());

    let p = Policy::allow_all().deny_tool("read_file");
    assert_eq!(reason(p.check(&read(), &anon)), DenialReason::ToolDenied);
    assert!(p.check(&write(), &anon).is_ok());

    // The later of allow/deny for the same tool decides.
    let p = Policy::allow_all()
        .deny_tool("read_file")
        .allow_tool("read_file");
    assert!(p.check(&read(), &anon).is_ok());

    let p = Policy::allow_all()
        .only_tools(["read_file"])
        .only_tools(["search_web"]);
    assert!(p.check(&read(), &anon).is_ok());
    assert!(p.check(&search_web(), &anon).is_ok());
    assert_eq!(reason(p.check(&write(), &anon)), DenialReason::NotListed);
    // allow_tool counts as listed.
    let p = p.allow_tool("write_file");
    assert!(p.check(&write(), &anon).is_ok());
}

#[test]
fn callers_get_grants_by_role_and_by_id() {
    let p = Policy::read_only()
        .grant_role("editor", [Effect::Writes])
        .grant_caller("root", [Effect::Writes, Effect::Destructive]);
    let editor = Caller::new("ann").with_role("editor");
    assert!(p.check(&write(), &editor).is_ok());
    assert_eq!(
        reason(p.check(&delete(), &editor)),
        DenialReason::Effect(Effect::Destructive)
    );
    assert!(p.check(&delete(), &Caller::new("root")).is_ok());
    // A role name used as an id grants nothing, and vice versa.
    assert!(p.check(&write(), &Caller::new("editor")).is_err());
    assert!(p
        .check(&delete(), &Caller::new("x").with_role("root"))
        .is_err());
}

#[test]
fn scopes_and_identity_are_required_where_configured() {
    let p = Policy::allow_all()
        .require_scope("delete_file", "files:delete")
        .allow_tool("delete_file");
    let ann = Caller::new("ann");
    assert_eq!(
        reason(p.check(&delete(), &ann)),
        DenialReason::MissingScope("files:delete".into()),
        "allow_tool does not skip scopes"
    );
    assert!(p
        .check(&delete(), &ann.clone().with_scope("files:delete"))
        .is_ok());
    assert!(p.check(&read(), &ann).is_ok());

    let p = Policy::allow_all().require_identity();
    assert_eq!(
        reason(p.check(&read(), &Caller::anonymous())),
        DenialReason::Anonymous
    );
    assert!(p.check(&read(), &ann).is_ok());
}

#[test]
fn denials_speak_to_the_model() {
    let d = Policy::read_only()
        .check(&delete(), &Caller::anonymous())
        .unwrap_err();
    assert_eq!(d.code(), POLICY_DENIED);
    assert_eq!(
        d.message(),
        "The call to \"delete_file\" was refused: this session may not use tools that delete data \
         (destructive). Retrying will not help; ask the user to grant access."
    );
    assert_eq!(d.to_string(), d.message());
    for r in [
        DenialReason::Effect(Effect::Network),
        DenialReason::ToolDenied,
        DenialReason::NotListed,
        DenialReason::MissingScope("s".into()),
        DenialReason::Anonymous,
    ] {
        let m = Denial::new("t", r).message();
        assert!(m.starts_with("The call to \"t\" was refused: "), "{m}");
        assert!(m.contains("Retrying will not help"), "{m}");
    }
    let env = d.into_envelope();
    assert_eq!(env.status, Status::Denied);
    assert_eq!(env.code.as_deref(), Some("POLICY_DENIED"));
    assert_eq!(
        env.data,
        Some(json!({"tool": "delete_file", "effect": "destructive", "reason": "effect"}))
    );
}

#[test]
fn effective_effects_treat_undeclared_tools_as_writing() {
    assert!(Effect::effective(&Effects::default()).contains(&Effect::Writes));
    let ro = Effects::none().with_read_only(true);
    assert!(!Effect::effective(&ro).contains(&Effect::Writes));
    for e in Effect::ALL {
        assert!(!e.describe().is_empty());
        assert_eq!(serde_json::to_value(e).unwrap(), json!(e.as_str()));
    }
}
