//! Deferred loading, namespaces, the cache breakpoint and the order of every export: what a
//! list adds to its tools (toolsmith-spec's `export/loading.rs`), through the toolbox that builds it.

use serde_json::{json, Value};
use toolsmith_core::export::{
    check_namespaces, export, export_text, export_with, ExportErrorKind, ExportOptions, McpVersion,
    Target, ToolSearch,
};
use toolsmith_core::{Namespace, Problem, Tool, ToolSpec, Toolbox};

fn spec(name: &str) -> ToolSpec {
    ToolSpec::new(
        name,
        format!("Does {name}. Returns the result."),
        json!({
            "type": "object",
            "properties": {"id": {"type": "string", "description": "The id."}},
            "required": ["id"],
            "additionalProperties": false,
        }),
    )
    .with_version("1.0.0")
}

fn tool(spec: ToolSpec) -> Tool {
    Tool::from_fn(spec, |_, args| Box::pin(async move { Ok(args) }))
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|t| {
            t.get("name")
                .or_else(|| t.get("type"))
                .and_then(Value::as_str)
                .unwrap()
                .to_string()
        })
        .collect()
}

const DEFERRING: [Target; 4] = [
    Target::Anthropic { strict: false },
    Target::Anthropic { strict: true },
    Target::OpenAiResponses { strict: false },
    Target::OpenAiResponses { strict: true },
];

#[test]
fn without_a_core_set_nothing_is_deferred_and_no_search_tool_is_added() {
    let specs = [spec("list_orders"), spec("refund_order")];
    for &target in Target::all() {
        let text = export_text(&specs, target).unwrap();
        assert!(!text.contains("defer_loading"), "{target}: {text}");
        assert!(!text.contains("tool_search"), "{target}: {text}");
        assert!(!text.contains("toolsmith/deferred"), "{target}: {text}");
    }
}

#[test]
fn a_core_set_defers_every_other_tool_where_the_platform_can() {
    let specs = [spec("refund_order"), spec("list_orders").with_core(true)];
    let anthropic = export(&specs, Target::Anthropic { strict: false }).unwrap();
    assert_eq!(
        anthropic[0],
        json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
    );
    assert_eq!(anthropic[1]["name"], "list_orders");
    assert!(anthropic[1].get("defer_loading").is_none());
    assert_eq!(anthropic[2]["name"], "refund_order");
    assert_eq!(anthropic[2]["defer_loading"], true);

    let responses = export(&specs, Target::OpenAiResponses { strict: true }).unwrap();
    assert_eq!(responses[0], json!({"type": "tool_search"}));
    assert!(responses[1].get("defer_loading").is_none());
    assert_eq!(responses[2]["defer_loading"], true);

    // MCP lists every tool and marks the deferred one in `_meta`.
    let mcp = export(&specs, Target::Mcp(McpVersion::V2025_11_25)).unwrap();
    assert_eq!(mcp["tools"].as_array().unwrap().len(), 2);
    assert!(mcp["tools"][0].get("_meta").is_none());
    assert_eq!(mcp["tools"][1]["_meta"]["toolsmith/deferred"], true);

    // No deferral elsewhere: every tool as without a core set.
    for target in [
        Target::OpenAiChat { strict: false },
        Target::Gemini,
        Target::WebMcp,
    ] {
        let plain: Vec<ToolSpec> = specs.iter().cloned().map(|s| s.with_core(false)).collect();
        assert_eq!(
            export_text(&specs, target).unwrap(),
            export_text(&plain, target).unwrap(),
            "{target}"
        );
    }
}

#[test]
fn the_search_tool_follows_the_option() {
    let specs = [spec("list_orders").with_core(true), spec("refund_order")];
    let bm25 = ExportOptions::default().with_tool_search(ToolSearch::Bm25);
    let anthropic = export_with(&specs, Target::Anthropic { strict: false }, &bm25).unwrap();
    assert_eq!(anthropic[0]["type"], "tool_search_tool_bm25_20251119");
    assert_eq!(anthropic[0]["name"], "tool_search_tool_bm25");
    let off = ExportOptions::default().with_tool_search(ToolSearch::Off);
    for target in DEFERRING {
        let list = export_with(&specs, target, &off).unwrap();
        assert_eq!(names(&list), ["list_orders", "refund_order"], "{target}");
        assert_eq!(list[1]["defer_loading"], true, "{target}");
    }
}

#[test]
fn the_cache_breakpoint_is_on_the_last_tool_loaded_up_front() {
    let cached = ExportOptions::default().with_cache_control(true);
    let breakpoints = |list: &Value| -> Vec<usize> {
        list.as_array()
            .unwrap()
            .iter()
            .enumerate()
            .filter(|(_, t)| t.get("cache_control").is_some())
            .map(|(i, _)| i)
            .collect()
    };
    // No core set: the last tool.
    let plain = [spec("b_tool"), spec("a_tool"), spec("c_tool")];
    let list = export_with(&plain, Target::Anthropic { strict: false }, &cached).unwrap();
    assert_eq!(names(&list), ["a_tool", "b_tool", "c_tool"]);
    assert_eq!(breakpoints(&list), [2]);
    assert_eq!(list[2]["cache_control"], json!({"type": "ephemeral"}));
    // A core set: the last core tool, not a deferred one after it.
    let core = [
        spec("b_tool").with_core(true),
        spec("a_tool").with_core(true),
        spec("c_tool"),
    ];
    let list = export_with(&core, Target::Anthropic { strict: true }, &cached).unwrap();
    assert_eq!(
        names(&list),
        ["tool_search_tool_regex", "a_tool", "b_tool", "c_tool"]
    );
    assert_eq!(breakpoints(&list), [2]);
    // Without the option, no breakpoint; other targets never get one.
    assert!(breakpoints(&export(&core, Target::Anthropic { strict: true }).unwrap()).is_empty());
    for &target in Target::all() {
        let text = toolsmith_core::export::export_text_with(&core, target, &cached).unwrap();
        assert_eq!(
            text.contains("cache_control"),
            matches!(target, Target::Anthropic { .. }),
            "{target}"
        );
    }
}

#[test]
fn openai_responses_groups_a_namespace_and_other_targets_list_it_flat() {
    let billing = Namespace::new("billing", "Invoices and refunds.");
    let specs = [
        spec("refund_invoice").with_namespace(billing.clone()),
        spec("search_help").with_core(true),
        spec("list_invoices")
            .with_namespace(billing.clone())
            .with_core(true),
    ];
    let list = export(&specs, Target::OpenAiResponses { strict: true }).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 3);
    assert_eq!(list[0], json!({"type": "tool_search"}));
    assert_eq!(list[1]["name"], "search_help");
    let ns = &list[2];
    assert_eq!(ns["type"], "namespace");
    assert_eq!(ns["name"], "billing");
    assert_eq!(ns["description"], "Invoices and refunds.");
    assert_eq!(ns["tools"][0]["name"], "list_invoices");
    assert_eq!(ns["tools"][0]["type"], "function");
    assert!(ns["tools"][0].get("defer_loading").is_none());
    assert_eq!(ns["tools"][1]["name"], "refund_invoice");
    assert_eq!(ns["tools"][1]["defer_loading"], true);
    // Flat elsewhere, in export order (outside a namespace first).
    let anthropic = export(&specs, Target::Anthropic { strict: false }).unwrap();
    assert_eq!(
        names(&anthropic),
        [
            "tool_search_tool_regex",
            "search_help",
            "list_invoices",
            "refund_invoice"
        ]
    );
    let chat = export_text(&specs, Target::OpenAiChat { strict: true }).unwrap();
    assert!(!chat.contains("namespace"));
}

#[test]
fn a_bad_namespace_is_an_export_error_for_openai_responses_only() {
    let cases = [
        (
            vec![spec("a_tool").with_namespace(Namespace::new("crm.contacts", "Contacts."))],
            "/namespace/name",
            "the name must be",
        ),
        (
            vec![spec("a_tool").with_namespace(Namespace::new("crm", "  "))],
            "/namespace/description",
            "the description is empty",
        ),
        (
            vec![
                spec("crm"),
                spec("a_tool").with_namespace(Namespace::new("crm", "Contacts.")),
            ],
            "/namespace/name",
            "a tool of the list has the same name",
        ),
        (
            vec![
                spec("a_tool").with_namespace(Namespace::new("crm", "Contacts.")),
                spec("b_tool").with_namespace(Namespace::new("crm", "Companies.")),
            ],
            "/namespace/description",
            "another tool describes it differently",
        ),
    ];
    for (specs, pointer, says) in cases {
        let err = export(&specs, Target::OpenAiResponses { strict: false }).unwrap_err();
        assert_eq!(err.pointer, pointer, "{err}");
        assert!(
            matches!(err.kind, ExportErrorKind::InvalidNamespace { .. }),
            "{err}"
        );
        assert!(err.to_string().contains(says), "{err}");
        assert_eq!(check_namespaces(&specs).len(), 1);
        export(&specs, Target::Anthropic { strict: false }).unwrap();
        export(&specs, Target::Mcp(McpVersion::V2026_07_28)).unwrap();
    }
}

/// Two toolboxes with the same tools registered in opposite orders export the same bytes to
/// every target, every time.
#[test]
fn every_export_is_byte_stable_across_registration_orders() {
    let billing = Namespace::new("billing", "Invoices and refunds.");
    let specs = vec![
        spec("search_help").with_core(true),
        spec("refund_invoice").with_namespace(billing.clone()),
        spec("list_invoices")
            .with_namespace(billing.clone())
            .with_core(true),
        spec("cancel_order"),
        spec("add_note").with_example(json!({"id": "n1"})),
    ];
    let build = |order: &mut dyn Iterator<Item = ToolSpec>| {
        let mut b = Toolbox::builder();
        for s in order {
            b = b.tool(tool(s));
        }
        b.build().unwrap()
    };
    let forward = build(&mut specs.clone().into_iter());
    let backward = build(&mut specs.clone().into_iter().rev());
    assert_ne!(
        forward.names(),
        backward.names(),
        "registration orders differ"
    );
    let options = ExportOptions::default().with_cache_control(true);
    for &target in Target::all() {
        let first = serde_json::to_string(&forward.export_with(target, &options).unwrap()).unwrap();
        let again = serde_json::to_string(&forward.export_with(target, &options).unwrap()).unwrap();
        let other =
            serde_json::to_string(&backward.export_with(target, &options).unwrap()).unwrap();
        assert_eq!(first, again, "{target}: not stable between runs");
        assert_eq!(first, other, "{target}: depends on registration order");
        assert_eq!(
            forward.export_text(target).unwrap(),
            backward.export_text(target).unwrap()
        );
    }
    // The artifacts too, index.json included.
    let dir = std::env::temp_dir().join(format!("toolsmith-order-{}", std::process::id()));
    let (a, b) = (dir.join("a"), dir.join("b"));
    forward.write_artifacts(&a).unwrap();
    backward.write_artifacts(&b).unwrap();
    for &target in Target::all() {
        let file = format!("{}.json", target.slug());
        assert_eq!(
            std::fs::read(a.join(&file)).unwrap(),
            std::fs::read(b.join(&file)).unwrap(),
            "{file}"
        );
    }
    assert_eq!(
        std::fs::read(a.join("index.json")).unwrap(),
        std::fs::read(b.join("index.json")).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_builder_marks_core_tools_and_namespaces_by_name() {
    let tb = Toolbox::builder()
        .tool(tool(spec("list_invoices")))
        .tool(tool(spec("refund_invoice")))
        .tool(tool(spec("search_help")))
        .core(["search_help"])
        .namespace(
            "billing",
            "Invoices and refunds.",
            ["list_invoices", "refund_invoice"],
        )
        .build()
        .unwrap();
    assert!(tb.spec("search_help").unwrap().core);
    assert!(!tb.spec("list_invoices").unwrap().core);
    assert_eq!(
        tb.spec("refund_invoice").unwrap().namespace,
        Some(Namespace::new("billing", "Invoices and refunds."))
    );
    let list = tb.export(Target::OpenAiResponses { strict: true }).unwrap();
    assert_eq!(names(&list), ["tool_search", "search_help", "billing"]);
    assert_eq!(list[2]["tools"][0]["defer_loading"], true);
    // The mark is part of the agent-facing definition: it changes the fingerprint.
    assert_ne!(
        tb.spec("search_help").unwrap().fingerprint(),
        spec("search_help").fingerprint()
    );
    assert_eq!(
        spec("search_help").fingerprint(),
        spec("search_help").with_core(false).fingerprint()
    );
}

#[test]
fn the_builder_refuses_names_that_are_no_tool_and_bad_namespaces() {
    let err = Toolbox::builder()
        .tool(tool(spec("search_help")))
        .core(["serch_help"])
        .namespace("billing", "Invoices.", ["list_invoices"])
        .build()
        .unwrap_err();
    let unknown: Vec<(&str, &str)> = err
        .problems
        .iter()
        .filter_map(|p| match p {
            Problem::UnknownTool { setting, name, .. } => Some((*setting, name.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        unknown,
        [("core", "serch_help"), ("namespace", "list_invoices")]
    );
    assert!(err.to_string().contains(
        "`.core(...)` names `serch_help`, which is not a registered tool; registered: search_help"
    ));

    let err = Toolbox::builder()
        .tool(tool(spec("billing")))
        .tool(tool(spec("refund_invoice")))
        .namespace("billing", "Invoices.", ["refund_invoice"])
        .build()
        .unwrap_err();
    assert!(
        matches!(&err.problems[..], [Problem::InvalidNamespace { tool, reason }]
            if tool == "refund_invoice" && reason.contains("a tool of the list has the same name")),
        "{err}"
    );
}

#[test]
fn a_tool_registered_later_cannot_break_a_namespace() {
    let tb = Toolbox::builder()
        .tool(tool(spec("refund_invoice")))
        .namespace("billing", "Invoices.", ["refund_invoice"])
        .build()
        .unwrap();
    let err = tb.register(tool(spec("billing"))).unwrap_err();
    assert!(err.to_string().contains("namespace `billing`"), "{err}");
    assert!(tb.spec("billing").is_none());
    tb.register(tool(
        spec("list_invoices").with_namespace(Namespace::new("billing", "Invoices.")),
    ))
    .unwrap();
    let err = tb
        .register(tool(
            spec("void_invoice").with_namespace(Namespace::new("billing", "Other words.")),
        ))
        .unwrap_err();
    assert!(
        err.to_string().contains("describes it differently"),
        "{err}"
    );
}

/// A tool inside a namespace is called by its own name (OpenAI's call item carries `name` and,
/// beside it, `namespace`): the toolbox dispatches on the name, which is unique in a toolbox.
#[tokio::test]
async fn a_namespaced_tool_is_called_by_its_name() {
    let tb = Toolbox::builder()
        .tool(tool(spec("refund_invoice")))
        .namespace("billing", "Invoices.", ["refund_invoice"])
        .build()
        .unwrap();
    let env = tb.call("refund_invoice", json!({"id": "inv_1"})).await;
    assert_eq!(env.status, toolsmith_core::Status::Ok, "{env:?}");
    // Two tools of one name in two namespaces cannot be registered: dispatch is by name.
    let err = Toolbox::builder()
        .tool(tool(
            spec("refund").with_namespace(Namespace::new("billing", "Invoices.")),
        ))
        .tool(tool(
            spec("refund").with_namespace(Namespace::new("orders", "Orders.")),
        ))
        .build()
        .unwrap_err();
    assert!(
        matches!(&err.problems[0], Problem::DuplicateTool { name } if name == "refund"),
        "{err}"
    );
}
