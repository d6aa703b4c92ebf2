//! Lint and export throughput on generated spec lists.
//!
//! - `lint`: 10,000 specs through `toolsmith_core::lint::lint_with` (default budgets), and the same
//!   list as an MCP `{"tools": [...]}` document through `lint_tool_list`. Throughput is in
//!   tools per second.
//! - `export`: 1,000 specs to every `Target::all()` as JSON text (`export::export_text`), beside
//!   the baseline `serde_json::to_string` of the canonical specs. Targets with a per-request tool
//!   limit (OpenAI: 128, Anthropic strict: 20) refuse a 1,000-tool list, so for them the bench
//!   lowers each spec with `export_tool_text` and joins the texts into the array (the same
//!   per-tool work; see `generate::export_text`, which the `profile-export` binary runs too).
//!   Which of the two a target takes is decided before timing (`generate::export_unit`).
//!
//! ```sh
//! cargo bench -p toolsmith-bench --features bench --bench throughput -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use toolsmith::export::{export_tool, Target};
use toolsmith::lint::{lint_tool_list, lint_with, LintConfig};
use toolsmith_bench::generate::{self, export_text, export_unit};

const LINT_TOOLS: usize = 10_000;
const EXPORT_TOOLS: usize = 1_000;

fn bench_lint(c: &mut Criterion) {
    let specs = generate::specs(LINT_TOOLS);
    let list = generate::tool_list(&specs);
    let config = LintConfig::default();
    // Not timed: the fixtures must lint clean, or the bench measures error paths.
    let findings: usize = specs.iter().map(|s| lint_with(s, &config).len()).sum();
    assert_eq!(findings, 0, "the generated specs have lint findings");

    let mut group = c.benchmark_group("lint_10000");
    group.throughput(Throughput::Elements(LINT_TOOLS as u64));
    group.sample_size(10);
    group.bench_function("lint_with", |b| {
        b.iter(|| {
            specs
                .iter()
                .map(|s| lint_with(black_box(s), &config).len())
                .sum::<usize>()
        })
    });
    group.bench_function("lint_tool_list", |b| {
        b.iter(|| lint_tool_list(black_box(&list), &config).map(|f| f.len()))
    });
    group.finish();
}

fn bench_export(c: &mut Criterion) {
    let specs = generate::specs(EXPORT_TOOLS);
    // Not timed: every spec must lower for every target, or the bench measures error paths.
    for &target in Target::all() {
        for s in &specs {
            if let Err(e) = export_tool(s, target) {
                panic!("{} does not export to {target}: {e}", s.name);
            }
        }
    }

    let mut group = c.benchmark_group("export_1000");
    group.throughput(Throughput::Elements(EXPORT_TOOLS as u64));
    group.bench_function("baseline_serde_specs", |b| {
        b.iter(|| serde_json::to_string(black_box(&specs)).map(|s| s.len()))
    });
    for &target in Target::all() {
        // Decided before timing: a target that refuses the whole list is timed tool by tool.
        let unit = export_unit(&specs, target);
        group.bench_function(target.slug(), |b| {
            b.iter(|| export_text(black_box(&specs), target, unit).len())
        });
    }
    group.finish();
}

criterion_group!(benches, bench_lint, bench_export);
criterion_main!(benches);
