#!/usr/bin/env bash
# Runs toolsmith's benchmarks and rewrites the result tables in BENCHMARKS.md.
#
#   scripts/bench.sh              # everything: call, instructions, context, load, throughput, compile, lint,
#                                 # replicas (when its servers are installed), report
#   scripts/bench.sh call         # per-call overhead (criterion): floor vs toolsmith vs rmcp
#   scripts/bench.sh context      # context cost of the store/helpdesk tool sets vs rmcp
#   scripts/bench.sh throughput   # lint 10,000 specs; export 1,000 specs to every target
#   scripts/bench.sh compile      # build times of generated 100-tool crates (libraries; an application): toolsmith, rmcp, plain
#   scripts/bench.sh instructions # instructions per call (callgrind): floor vs toolsmith, noise-free
#   scripts/bench.sh lint         # `toolsmith lint` on 10,000 catalog tools vs the node reference lint
#   scripts/bench.sh load         # N concurrent streamable-HTTP clients: toolsmith's MCP server vs rmcp
#   scripts/bench.sh replicas     # keyed writes and reads on two replicas sharing a state store
#                                 # (memory, Redis, PostgreSQL) vs one toolbox without one; runs
#                                 # under .ci/services.sh, which installs the servers if missing
#   scripts/bench.sh report       # only rewrite BENCHMARKS.md from the last results
#
# Environment: WARMUP and MEASURE (criterion seconds, default 1 and 3); NO_RMCP=1 leaves rmcp
# out (faster; the rmcp columns then read "n/a"). The lint suite reads the catalogs from
# CATALOGS (default ../shared/catalogs, relative to the repository) and the reference lint from
# REFERENCE (default ../shared/bench/reference_lint_bench.mjs); RUNS sets its repetitions (10).
# LOAD_CLIENTS, LOAD_CALLS, LOAD_SECONDS, LOAD_ROUNDS bound the load run (default 16 clients,
# 400 calls each, 20 s per server, 2 alternating rounds). REPLICAS_CALLS, REPLICAS_READ_CALLS,
# REPLICAS_CONCURRENCY, REPLICAS_ROUNDS bound the replicas run (default 2,000 keyed writes and
# 100,000 reads per state and scenario, 16 in flight, 5 rounds). COMPILE_RUNS sets the compile
# suite's repetitions of each incremental cell (default 3; the tables show medians).
#
# `all` runs `replicas` only when redis-server and PostgreSQL 15 are installed already (it
# never installs them); otherwise it says SKIPPED and leaves that table as it was.
#
# Results land in target/bench-results/*.md; `report` splices them into BENCHMARKS.md between
# the `<!-- bench:NAME:begin/end -->` markers. Generated crates live in target/bench-compile/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
OUT="$ROOT/target/bench-results"
mkdir -p "$OUT"
WARMUP=${WARMUP:-1}
MEASURE=${MEASURE:-3}
if [[ "${NO_RMCP:-0}" == 1 ]]; then FEATURES=bench; else FEATURES=rmcp; fi

machine() {
  {
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit \`$(git rev-parse --short HEAD)\`$(git diff --quiet HEAD -- . ':!BENCHMARKS.md' || echo ' (uncommitted changes)')"
    echo "- CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores ($(lscpu | sed -n 's/^Hypervisor vendor: *//p' | head -1 | sed 's/^\(.\+\)$/virtualized: \1/'))"
    echo "- Memory: $(free -g | awk '/^Mem:/ {print $2 " GiB"}'); $(rustc --version); $(cargo --version)"
    echo "- Criterion: warm-up ${WARMUP} s, measurement ${MEASURE} s per benchmark; figures are medians."
  } > "$OUT/machine.md"
}

run_call() {
  cargo bench -p toolsmith-bench --features "$FEATURES" --bench call -- \
    --warm-up-time "$WARMUP" --measurement-time "$MEASURE" --noplot
}

run_throughput() {
  cargo bench -p toolsmith-bench --features "$FEATURES" --bench throughput -- \
    --warm-up-time "$WARMUP" --measurement-time "$MEASURE" --noplot
}

run_load() {
  # Needs rmcp (it is the baseline), so it ignores NO_RMCP.
  # Both scenarios: the list (rmcp sends it as text only) and the object (the same protocol work).
  cargo build --release -q -p toolsmith-bench --features mcp --bin mcp-load
  for tool in array object; do
    echo "\`--tool $tool\`:"
    echo
    target/release/mcp-load --tool "$tool" \
      --clients "${LOAD_CLIENTS:-16}" --calls "${LOAD_CALLS:-400}" --seconds "${LOAD_SECONDS:-20}" --rounds "${LOAD_ROUNDS:-2}"
    echo
  done > "$OUT/load.md"
  cat "$OUT/load.md"
}

# ---------------------------------------------------------------------------------------------
# Replicas: the cost of a shared state store per call (the `replicas` binary), with Redis and
# PostgreSQL started by .ci/services.sh on free ports for the run and stopped after it.
# ---------------------------------------------------------------------------------------------
run_replicas() {
  cargo build --release -q -p toolsmith-bench --features replicas --bin replicas
  local bin="${CARGO_TARGET_DIR:-$ROOT/target}/release/replicas" raw="$OUT/replicas.raw"
  # Checked before the run: the machine is shared, and the figures mean little without it.
  local load
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  bash "$ROOT/.ci/services.sh" "$bin" --calls "${REPLICAS_CALLS:-2000}" \
    --read-calls "${REPLICAS_READ_CALLS:-100000}" --concurrency "${REPLICAS_CONCURRENCY:-16}" \
    --rounds "${REPLICAS_ROUNDS:-5}" > "$raw"
  {
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); commit \`$(git rev-parse --short HEAD)\`$(git diff --quiet HEAD -- . ':!BENCHMARKS.md' || echo ' (uncommitted changes)'); release build"
    echo "- CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; load average before the run: $load"
    echo "- $(sed -n 's/^services: redis redis_version:\([0-9.]*\), \(.*\)$/Redis \1, PostgreSQL \2/p' "$raw"), both on 127.0.0.1 (.ci/services.sh: no persistence, \`fsync=off\`)"
    echo
    grep -v '^services:' "$raw"
  } > "$OUT/replicas.md"
  rm -f "$raw"
  cat "$OUT/replicas.md"
}

# `all`: the replicas run only where the servers are installed already.
run_replicas_if_installed() {
  if command -v redis-server >/dev/null && [ -x /usr/lib/postgresql/15/bin/initdb ]; then
    run_replicas
  else
    echo "replicas: SKIPPED (redis-server or PostgreSQL 15 not installed; scripts/bench.sh replicas installs them)" >&2
  fi
}

run_context() {
  cargo run --release -q -p toolsmith-bench --features "$FEATURES" --bin context-cost > "$OUT/context.md"
  cat "$OUT/context.md"
}

# ---------------------------------------------------------------------------------------------
# Compile time: three generated crates with the same 100 functions (five signature shapes,
# cycled): `#[tool]` (toolsmith), `#[tool_router]`/`#[tool]` + `Parameters<T>` (rmcp), and plain
# functions (the baseline without any macro). Each crate has its own target dir, so "clean"
# includes its dependencies; "crate only" rebuilds just the crate (`cargo clean -p`); "edit"
# changes one tool description and rebuilds (incremental). Debug profile, as `cargo build`.
# ---------------------------------------------------------------------------------------------
generate_crates() {
  local dir="$1"
  python3 - "$dir" "$ROOT" <<'PY'
import os, sys
dir, root = sys.argv[1], sys.argv[2]
N = 100
def w(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)

w(f"{dir}/Cargo.toml", '[workspace]\nmembers = ["gen-toolsmith", "gen-rmcp", "gen-plain"]\nresolver = "2"\n')
w(f"{dir}/gen-toolsmith/Cargo.toml", f'''[package]
name = "gen-toolsmith"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
toolsmith = {{ path = "{root}" }}
''')
w(f"{dir}/gen-rmcp/Cargo.toml", '''[package]
name = "gen-rmcp"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
rmcp = { version = "3.11", default-features = false, features = ["server", "macros"] }
serde = { version = "1", features = ["derive"] }
schemars = "1"
''')
w(f"{dir}/gen-plain/Cargo.toml", '''[package]
name = "gen-plain"
version = "0.1.0"
edition = "2021"
publish = false
''')

# The five shapes: (toolsmith params, rmcp fields, plain params, return type, body).
VERBS = ["search_records", "get_order", "convert_amount", "count_tags", "set_alert_level"]

def tool_name(i):
    return f"{VERBS[i % 5]}_{i:03}"

def shapes(i):
    k = i % 5
    if k == 0:
        return dict(
            doc=f"Searches the records of collection {i} by text. Returns the matching record ids, newest first.",
            params=[("query", "String", f'Words to look for, e.g. "tent {i}".', "min_length = 2, max_length = 100", "length(min = 2, max = 100)"),
                    ("limit", "Option<u32>", "Most records to return, e.g. 20.", "maximum = 50", "range(max = 50)")],
            ret="Vec<String>", body="vec![query; limit.unwrap_or(1) as usize]", flavor="read_only")
    if k == 1:
        return dict(
            doc=f"Looks up one order in shop {i}. Returns the order's status text.",
            params=[("order_id", "String", 'The order id, e.g. "ORD-1042".', 'pattern = "^ORD-[0-9]+$"', 'regex(pattern = "^ORD-[0-9]+$")')],
            ret="String", body="order_id", flavor="read_only")
    if k == 2:
        return dict(
            doc=f"Converts an amount with rate table {i}. Returns the converted amount.",
            params=[("amount", "f64", "The amount, e.g. 12.5.", "minimum = 0", "range(min = 0)"),
                    ("rate", "f64", "The exchange rate, e.g. 0.086.", "", "")],
            ret="f64", body="amount * rate", flavor="read_only")
    if k == 3:
        return dict(
            doc=f"Counts the distinct tags in list {i}. Returns the count.",
            params=[("tags", "Vec<String>", 'The tags, e.g. ["a", "b"].', "min_items = 1, max_items = 20", "length(min = 1, max = 20)"),
                    ("ignore_case", "Option<bool>", "Whether to compare tags ignoring case.", "", "")],
            ret="u32", body="tags.len() as u32 + ignore_case.map_or(0, u32::from)", flavor="read_only")
    return dict(
        doc=f"Sets the alert level of sensor {i}. Returns the level now in force.",
        params=[("sensor", "String", 'The sensor name, e.g. "boiler".', "max_length = 40", "length(max = 40)"),
                ("level", "Level", "The new alert level.", "", "")],
        ret="String", body='format!("{sensor}: {level:?}")', flavor="writes, idempotent")

LEVEL_DOC = [("Quiet", "No alerts."), ("Normal", "Alerts on failures."), ("Loud", "Alerts on every change.")]

def toolsmith():
    out = ["//! 100 generated `#[tool]` functions.", "#![allow(clippy::all)]", "use toolsmith::{model, tool};", "",
           "/// How loudly a sensor alerts.", "#[model]", "#[serde(rename_all = \"snake_case\")]", "#[derive(Debug)]", "pub enum Level {"]
    for v, d in LEVEL_DOC:
        out += [f"    /// {d}", f"    {v},"]
    out += ["}", ""]
    names = []
    for i in range(N):
        s = shapes(i)
        name = tool_name(i)
        names.append(name)
        out.append(f"/// {s['doc']}")
        out.append(f"#[tool({s['flavor']})]")
        out.append(f"pub fn {name}(")
        for p, t, d, c, _ in s["params"]:
            out.append(f"    /// {d}")
            if c:
                out.append(f"    #[arg({c})]")
            out.append(f"    {p}: {t},")
        out.append(f") -> {s['ret']} {{ {s['body']} }}")
        out.append("")
    out.append("/// Every tool.")
    out.append("pub fn tools() -> Vec<toolsmith::Tool> {")
    out.append("    vec![" + ", ".join(f"{n}::tool()" for n in names) + "]")
    out.append("}")
    return "\n".join(out) + "\n"

def rmcp():
    out = ["//! 100 generated rmcp tools.", "#![allow(clippy::all)]",
           "use rmcp::{tool, tool_router, handler::server::wrapper::Parameters};",
           "use schemars::JsonSchema;", "use serde::Deserialize;", "",
           "/// How loudly a sensor alerts.", "#[derive(Debug, Deserialize, JsonSchema)]",
           "#[serde(rename_all = \"snake_case\")]", "pub enum Level {"]
    for v, d in LEVEL_DOC:
        out += [f"    /// {d}", f"    {v},"]
    out += ["}", ""]
    for i in range(N):
        s = shapes(i)
        out.append(f"/// Arguments of {tool_name(i)}.")
        out.append("#[derive(Debug, Deserialize, JsonSchema)]")
        out.append(f"pub struct Args{i:03} {{")
        for p, t, d, _, c in s["params"]:
            out.append(f"    /// {d}")
            if c:
                out.append(f"    #[schemars({c})]")
            out.append(f"    pub {p}: {t},")
        out.append("}")
        out.append("")
    out.append("/// The server.")
    out.append("#[derive(Debug, Clone, Default)]")
    out.append("pub struct Server;")
    out.append("")
    out.append("#[tool_router]")
    out.append("impl Server {")
    for i in range(N):
        s = shapes(i)
        fields = ", ".join(p for p, *_ in s["params"])
        ann = "read_only_hint = true" if s["flavor"] == "read_only" else "read_only_hint = false, idempotent_hint = true"
        out.append(f"    /// {s['doc']}")
        out.append(f"    #[tool(annotations({ann}))]")
        out.append(f"    pub fn {tool_name(i)}(&self, Parameters(Args{i:03} {{ {fields} }}): Parameters<Args{i:03}>) -> String {{")
        out.append(f"        let r: {s['ret']} = {{ {s['body']} }};")
        out.append("        format!(\"{r:?}\")")
        out.append("    }")
    out.append("}")
    out.append("")
    out.append("/// Every tool's router.")
    out.append("pub fn router() -> rmcp::handler::server::router::tool::ToolRouter<Server> { Server::tool_router() }")
    return "\n".join(out) + "\n"

def plain():
    out = ["//! 100 generated plain functions: the baseline without any macro.", "#![allow(clippy::all)]", "",
           "/// How loudly a sensor alerts.", "#[derive(Debug)]", "pub enum Level {"]
    for v, d in LEVEL_DOC:
        out += [f"    /// {d}", f"    {v},"]
    out += ["}", ""]
    for i in range(N):
        s = shapes(i)
        out.append(f"/// {s['doc']}")
        args = ", ".join(f"{p}: {t}" for p, t, *_ in s["params"])
        out.append(f"pub fn {tool_name(i)}({args}) -> {s['ret']} {{ {s['body']} }}")
        out.append("")
    return "\n".join(out) + "\n"

w(f"{dir}/gen-toolsmith/src/lib.rs", toolsmith())
w(f"{dir}/gen-rmcp/src/lib.rs", rmcp())
w(f"{dir}/gen-plain/src/lib.rs", plain())
PY
}

seconds() { python3 -c "import time; print(f'{time.time():.3f}')"; }

timed_build() { # crate target_dir [cargo command, default build] -> prints seconds
  local crate="$1" tdir="$2" cmd="${3:-build}" start end
  start=$(seconds)
  CARGO_TARGET_DIR="$tdir" cargo "$cmd" -q -p "$crate" >&2
  end=$(seconds)
  python3 -c "print(f'{$end - $start:.1f}')"
}

median() { # numbers -> their median
  python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.1f}')" "$@"
}

# Median seconds of `cargo build` of CRATE alone (after `cargo clean -p CRATE`), over RUNS builds.
crate_only() { # crate dir target_dir runs
  local times=() i
  for ((i = 0; i < $4; i++)); do
    (cd "$2" && CARGO_TARGET_DIR="$3" cargo clean -q -p "$1")
    echo "compile: $1 alone ($((i + 1))/$4)..." >&2
    times+=("$(cd "$2" && timed_build "$1" "$3")")
  done
  median "${times[@]}"
}

# Median seconds of `cargo build` of CRATE after appending a few more words to the description
# SENTENCE (a sed pattern) in FILE, each run adding to the last, as a user grows a description:
# every byte after it moves further each time. Two warm-up edits first; RUNS timed builds.
after_adding_words() { # crate dir target_dir file sentence runs
  local times=() i
  for ((i = 0; i < $6 + 2; i++)); do
    sed -i "s/\($5\)/\1 More words, group $i./" "$4"
    if ((i < 2)); then
      (cd "$2" && CARGO_TARGET_DIR="$3" cargo build -q -p "$1")
      continue
    fi
    echo "compile: $1 after adding words to a description ($((i - 1))/$6)..." >&2
    times+=("$(cd "$2" && timed_build "$1" "$3")")
  done
  median "${times[@]}"
}

# Toggles tool 50's description between two texts of different lengths (an edit that moves
# every byte after it, the costlier kind for incremental builds).
edit_description() { # crate dir
  local file="$2/$1/src/lib.rs"
  if grep -q 'collection 50 by any text\.' "$file"; then
    sed -i 's/Searches the records of collection 50 by any text\./Searches the records of collection 50 by text./' "$file"
  else
    sed -i 's/Searches the records of collection 50 by text\./Searches the records of collection 50 by any text./' "$file"
  fi
}

run_compile() {
  local dir="$ROOT/target/bench-compile" runs="${COMPILE_RUNS:-3}"
  rm -rf "$dir/gen-toolsmith" "$dir/gen-rmcp" "$dir/gen-plain"
  generate_crates "$dir"
  cp "$ROOT/Cargo.lock" "$dir/Cargo.lock"
  local rows=()
  for crate in gen-plain gen-toolsmith gen-rmcp; do
    local tdir="$dir/target-$crate"
    rm -rf "$tdir"
    (cd "$dir" && CARGO_TARGET_DIR="$tdir" cargo fetch -q)
    echo "compile: $crate from clean (dependencies included)..." >&2
    local clean only edit=() check=() words i
    clean=$(cd "$dir" && timed_build "$crate" "$tdir")
    only=$(crate_only "$crate" "$dir" "$tdir" "$runs")
    # Incremental: one description edited, then `cargo build` (each run edits again).
    for ((i = 0; i < runs; i++)); do
      edit_description "$crate" "$dir"
      echo "compile: $crate after editing one description ($((i + 1))/$runs)..." >&2
      edit+=("$(cd "$dir" && timed_build "$crate" "$tdir")")
    done
    # An edit that adds words (what users do), to an early tool's description: the text of the
    # 92 tools after it moves.
    words=$(after_adding_words "$crate" "$dir" "$tdir" "$dir/$crate/src/lib.rs" \
      'rate table 7\. Returns the converted amount\.' "$runs")
    # The same for `cargo check` (what an editor runs on save), after one check to warm it.
    (cd "$dir" && CARGO_TARGET_DIR="$tdir" cargo check -q -p "$crate")
    for ((i = 0; i < runs; i++)); do
      edit_description "$crate" "$dir"
      echo "compile: $crate checked after editing one description ($((i + 1))/$runs)..." >&2
      check+=("$(cd "$dir" && timed_build "$crate" "$tdir" check)")
    done
    rows+=("$crate $clean $only $(median "${edit[@]}") $(median "${check[@]}") $words")
  done
  python3 - "$OUT/compile.md" "${rows[@]}" <<'PY'
import sys
out, rows = sys.argv[1], [r.split() for r in sys.argv[2:]]
t = {r[0]: tuple(map(float, r[1:])) for r in rows}
plain = t["gen-plain"]
lines = ["| Crate (100 tools) | clean, with deps (s) | crate only (s) | crate only − plain (s) | `cargo build` after editing one description (s) | `cargo check` after editing one description (s) | `cargo build` after adding words to tool 7's description (s) |",
         "|---|---:|---:|---:|---:|---:|---:|"]
for name, label in [("gen-plain", "plain functions (baseline)"), ("gen-toolsmith", "toolsmith `#[tool]`"), ("gen-rmcp", "rmcp `#[tool_router]` + `Parameters<T>`")]:
    c, o, e, k, w = t[name]
    lines.append(f"| {label} | {c:.1f} | {o:.1f} | {o - plain[1]:.1f} | {e:.1f} | {k:.1f} | {w:.1f} |")
ts, rm = t["gen-toolsmith"], t["gen-rmcp"]
lines.append("")
lines.append(f"toolsmith / rmcp: clean with deps {ts[0]/rm[0]:.2f}×, crate only {ts[1]/rm[1]:.2f}×, build after an edit {ts[2]/rm[2]:.2f}×, check after an edit {ts[3]/rm[3]:.2f}×, build after adding words {ts[4]/rm[4]:.2f}×. "
             f"The macro's share of the toolsmith crate-only build: {(ts[1]-plain[1])/ts[1]*100:.0f}% ({ts[1]-plain[1]:.1f} s of {ts[1]:.1f} s, expansion plus compiling the generated code).")
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
}

# The shape of a typical application crate: a binary of 100 `async fn` tools, each with three
# documented, constrained parameters (a `String` with a maximum length, an optional `f64` with a
# minimum, a `u32` with a range) returning `Result<Out, ToolError>`, all registered in `main` by
# one `Toolbox::builder()` chain; rmcp's twin has an async `#[tool_router]` method per tool with
# `Parameters<T>`. Crate-only builds, and builds after adding words to tool 7's description (two
# warm-up edits first), medians of COMPILE_RUNS.
run_compile_app() {
  local dir="$ROOT/target/bench-compile/app" runs="${COMPILE_RUNS:-3}"
  rm -rf "$dir"
  python3 - "$dir" "$ROOT" <<'PY'
import os, sys
d, root = sys.argv[1], sys.argv[2]
N = 100
def w(p, t):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(t)
w(f"{d}/Cargo.toml", '[workspace]\nmembers = ["app-toolsmith", "app-rmcp"]\nresolver = "2"\n')
w(f"{d}/app-toolsmith/Cargo.toml", f'[package]\nname = "app-toolsmith"\nversion = "0.1.0"\nedition = "2021"\npublish = false\n\n[dependencies]\ntoolsmith = {{ path = "{root}" }}\ntokio = {{ version = "1", features = ["macros", "rt-multi-thread"] }}\n')
w(f"{d}/app-rmcp/Cargo.toml", '[package]\nname = "app-rmcp"\nversion = "0.1.0"\nedition = "2021"\npublish = false\n\n[dependencies]\nrmcp = { version = "3.11", default-features = false, features = ["server", "macros"] }\nserde = { version = "1", features = ["derive"] }\nschemars = "1"\ntokio = { version = "1", features = ["macros", "rt-multi-thread"] }\n')
OUT = ["/// What a tool returns.", "pub struct Out {", "    /// The answer text.", "    pub text: String,", "    /// How many items matched.", "    pub count: u32,", "}", ""]
def doc(i):
    return f"Looks up entries in ledger {i} by name. Returns the matching entry text and a count."
t = ["use toolsmith::{model, tool, ToolError, Toolbox};", "", "#[model]"] + OUT
for i in range(N):
    t += [f"/// {doc(i)}", "#[tool(read_only)]", f"pub async fn lookup_{i:03}(",
          f'    /// The entry name to look for, e.g. "rent {i}".', "    #[arg(max_length = 64)]", "    name: String,",
          "    /// The smallest amount to include, e.g. 10.5.", "    #[arg(minimum = 0)]", "    floor: Option<f64>,",
          "    /// The page to show, e.g. 2.", "    #[arg(minimum = 1, maximum = 50)]", "    page: u32,",
          ") -> Result<Out, ToolError> {", '    Ok(Out { text: format!("{name} {floor:?}"), count: page })', "}", ""]
t += ["#[tokio::main]", "async fn main() {", "    let toolbox = Toolbox::builder()"]
t += [f"        .tool(lookup_{i:03}::tool())" for i in range(N)]
t += ["        .build()", "        .unwrap();", '    println!("{}", toolbox.specs().len());', "}", ""]
w(f"{d}/app-toolsmith/src/main.rs", "\n".join(t))
r = ["use rmcp::{handler::server::wrapper::Parameters, tool, tool_router, ErrorData};", "use schemars::JsonSchema;", "use serde::{Deserialize, Serialize};", "",
     "#[derive(Serialize, JsonSchema)]"] + OUT
for i in range(N):
    r += [f"/// Arguments of lookup_{i:03}.", "#[derive(Deserialize, JsonSchema)]", f"pub struct Args{i:03} {{",
          f'    /// The entry name to look for, e.g. "rent {i}".', "    #[schemars(length(max = 64))]", "    pub name: String,",
          "    /// The smallest amount to include, e.g. 10.5.", "    #[schemars(range(min = 0))]", "    pub floor: Option<f64>,",
          "    /// The page to show, e.g. 2.", "    #[schemars(range(min = 1, max = 50))]", "    pub page: u32,", "}", ""]
r += ["#[derive(Clone)]", "pub struct Server;", "", "#[tool_router]", "impl Server {"]
for i in range(N):
    r += [f"    /// {doc(i)}", "    #[tool(annotations(read_only_hint = true))]",
          f"    async fn lookup_{i:03}(&self, Parameters(Args{i:03} {{ name, floor, page }}): Parameters<Args{i:03}>) -> Result<rmcp::Json<Out>, ErrorData> {{",
          '        Ok(rmcp::Json(Out { text: format!("{name} {floor:?}"), count: page }))', "    }"]
r += ["}", "", "#[tokio::main]", "async fn main() {", "    let router = Server::tool_router();", '    println!("{}", router.list_all().len());', "}", ""]
w(f"{d}/app-rmcp/src/main.rs", "\n".join(r))
PY
  cp "$ROOT/Cargo.lock" "$dir/Cargo.lock"
  local rows=() crate
  for crate in app-toolsmith app-rmcp; do
    local tdir="$dir/target" only words
    (cd "$dir" && CARGO_TARGET_DIR="$tdir" cargo build -q -p "$crate")
    only=$(crate_only "$crate" "$dir" "$tdir" "$runs")
    words=$(after_adding_words "$crate" "$dir" "$tdir" "$dir/$crate/src/main.rs" \
      'ledger 7 by name\. Returns the matching entry text and a count\.' "$runs")
    rows+=("$crate $only $words")
  done
  python3 - "$OUT/compile-app.md" "${rows[@]}" <<'PY'
import sys
out, rows = sys.argv[1], [r.split() for r in sys.argv[2:]]
t = {r[0]: tuple(map(float, r[1:])) for r in rows}
ts, rm = t["app-toolsmith"], t["app-rmcp"]
lines = ["| Application crate (100 async tools, a binary) | crate only (s) | `cargo build` after adding words to tool 7's description (s) |",
         "|---|---:|---:|",
         f"| toolsmith `#[tool]` | {ts[0]:.1f} | {ts[1]:.1f} |",
         f"| rmcp `#[tool_router]` + `Parameters<T>` | {rm[0]:.1f} | {rm[1]:.1f} |",
         "",
         f"toolsmith / rmcp: crate only {ts[0]/rm[0]:.2f}×, build after adding words {ts[1]/rm[1]:.2f}× (goal: at most 1.0× and 1.2×)."]
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
}

# ---------------------------------------------------------------------------------------------
# Instructions per call under callgrind (deterministic, unlike wall time on a shared machine):
# `profile-call` runs N calls of each path; the fixed start-up cost (a run with 0 calls) is
# subtracted. The value paths include one `Value::clone` per call on every side; rmcp's router
# (`--features rmcp`) runs as in the call bench.
# ---------------------------------------------------------------------------------------------
run_instructions() {
  cargo build --release -q -p toolsmith-bench --features rmcp --bin profile-call
  local bin="$ROOT/target/release/profile-call" calls=2000 rows=() ir
  ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 | sed -n 's/.*refs: *//p' | tr -dc 0-9; }
  local zero
  zero=$(ir valid text 0)
  for sc in valid invalid_type invalid_constraint; do
    for e in text value json-text json-value floor-text floor-value rmcp-text rmcp-value; do
      rows+=("$sc $e $(ir "$sc" "$e" "$calls")")
    done
  done
  for e in json-text-isolated json-text-timeout; do rows+=("valid $e $(ir valid "$e" "$calls")"); done
  python3 - "$OUT/instructions.md" "$zero" "$calls" "${rows[@]}" <<'PY'
import sys
out, zero, calls = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d = {}
for r in sys.argv[4:]:
    sc, e, n = r.split()
    d[(sc, e)] = (int(n) - zero) / calls
lines = ["| Scenario | entry | floor (instructions / call) | toolsmith `call` + `to_json` | toolsmith `call_json` | rmcp | `call` / floor | `call_json` / floor | `call_json` / rmcp |",
         "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
for sc in ["valid", "invalid_type", "invalid_constraint"]:
    for e in ["text", "value"]:
        f, t, j, r = d[(sc, "floor-" + e)], d[(sc, e)], d[(sc, "json-" + e)], d[(sc, "rmcp-" + e)]
        lines.append(f"| {sc} | {e} | {f / 1000:.1f}k | {t / 1000:.1f}k | {j / 1000:.1f}k | {r / 1000:.1f}k | {t / f:.2f}× | {j / f:.2f}× | {j / r:.2f}× |")
base = d[("valid", "json-text")]
lines += ["", "| valid `call_json` from text, where the tool runs | instructions / call | / in the caller's task |", "|---|---:|---:|",
          f"| in the caller's task (no timeout; the default) | {base / 1000:.1f}k | 1.00× |"]
for e, label in [("json-text-isolated", "on a tool thread (`isolate_all_tools`)"), ("json-text-timeout", "on a tool thread with a 5 s timeout")]:
    n = d[("valid", e)]
    lines.append(f"| {label} | {n / 1000:.1f}k | {n / base:.2f}× |")
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
}

# ---------------------------------------------------------------------------------------------
# Lint, whole process: `toolsmith lint` (release build, every rule on, human and JSON output to
# /dev/null) against the reference lint under node, on one 10,000-tool list built by cycling the
# real catalogs' tools. Both run RUNS times, alternating; the table has the median and the
# fastest wall time of each, and what each found.
# ---------------------------------------------------------------------------------------------
run_lint() {
  local catalogs="${CATALOGS:-../shared/catalogs}" reference="${REFERENCE:-../shared/bench/reference_lint_bench.mjs}"
  cargo build --release -q -p toolsmith-cli
  mkdir -p "$ROOT/target/bench-lint"
  python3 - "$ROOT" "$catalogs" "$reference" "${RUNS:-10}" "$OUT/lint.md" <<'PY'
import glob, json, os, statistics, subprocess, sys, time
root, catalogs, reference, runs, out = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
tools = []
for f in sorted(glob.glob(os.path.join(catalogs, "*.json"))):
    tools += json.load(open(f))["tools"]
if not tools:
    sys.exit(f"no catalogs in {catalogs}")
lst = f"{root}/target/bench-lint/list-10000.json"
json.dump({"tools": [tools[i % len(tools)] for i in range(10000)]}, open(lst, "w"))
size = os.path.getsize(lst)
cmds = {
    "toolsmith lint (human)": [f"{root}/target/release/toolsmith", "lint", "--color", "never", lst],
    "toolsmith lint --format json": [f"{root}/target/release/toolsmith", "lint", "--format", "json", lst],
    "reference (node)": ["node", reference, lst],
}
# What each found: one untimed run each, output captured. The timed runs write to /dev/null, as
# `time CMD > /dev/null` would: a pipe into this script would time Python reading megabytes of
# diagnostics too, which only the commands with a long report pay.
for k, c in cmds.items():
    p = subprocess.run(c, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if k.startswith("toolsmith") and p.returncode not in (0, 1):
        sys.exit(f"{k} failed with {p.returncode}")
    if k == "reference (node)":
        ref_line = p.stdout.decode().strip()
    if k == "toolsmith lint --format json":
        summary = json.loads(p.stdout)["summary"]
times = {k: [] for k in cmds}
for _ in range(runs):
    for k, c in cmds.items():
        t = time.perf_counter()
        p = subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times[k].append(time.perf_counter() - t)
        if k.startswith("toolsmith") and p.returncode not in (0, 1):
            sys.exit(f"{k} failed with {p.returncode}")
ref = statistics.median(times["reference (node)"])
nrules = open(f"{root}/toolsmith-lint/src/rules.rs").read().count('id: "')
lines = [f"10,000 tools ({len(tools)} catalog tools cycled, {size / 1e6:.1f} MB), {runs} runs each, whole process (start, read, parse, lint, print).",
         "",
         "| Command | median | fastest | tools / s (median) | speed vs reference |",
         "|---|---:|---:|---:|---:|"]
for k, ts in times.items():
    m = statistics.median(ts)
    lines.append(f"| {k} | {m * 1000:.0f} ms | {min(ts) * 1000:.0f} ms | {10000 / m:,.0f} | {ref / m:.2f}× |" if k != "reference (node)"
                 else f"| {k} | {m * 1000:.0f} ms | {min(ts) * 1000:.0f} ms | {10000 / m:,.0f} | 1.00× |")
lines += ["",
          f"toolsmith found {summary['errors']:,} errors and {summary['warnings']:,} warnings with all {nrules} rules of its table on; the reference printed: `{ref_line}`."]
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
}

# ---------------------------------------------------------------------------------------------
# Report: criterion medians → ratios, spliced into BENCHMARKS.md.
# ---------------------------------------------------------------------------------------------
report() {
  python3 - "$ROOT" "$OUT" <<'PY'
import json, os, re, sys
root, out = sys.argv[1], sys.argv[2]
crit = f"{root}/target/criterion"

def median(group, fn):
    p = f"{crit}/{group}/{fn}/new/estimates.json"
    try:
        return json.load(open(p))["median"]["point_estimate"]
    except (OSError, KeyError, ValueError):
        return None

def ns(x):
    if x is None: return "n/a"
    if x >= 1e9: return f"{x/1e9:.2f} s"
    if x >= 1e6: return f"{x/1e6:.2f} ms"
    if x >= 1e3: return f"{x/1e3:.2f} µs"
    return f"{x:.0f} ns"

def ratio(a, b):
    return "n/a" if a is None or b is None or b == 0 else f"{a/b:.2f}×"

if os.path.isdir(f"{crit}/call_valid_text"):
    lines = ["| Scenario | entry | floor | toolsmith `call` | toolsmith `call_json` | rmcp | `call` / floor | `call_json` / floor | `call` / rmcp | `call_json` / rmcp |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for sc in ["valid", "invalid_type", "invalid_constraint"]:
        for entry in ["text", "value"]:
            g = f"call_{sc}_{entry}"
            f, t, j, r = median(g, "floor"), median(g, "toolsmith"), median(g, "toolsmith_json"), median(g, "rmcp")
            lines.append(f"| {sc} | {entry} | {ns(f)} | {ns(t)} | {ns(j)} | {ns(r)} | {ratio(t, f)} | {ratio(j, f)} | {ratio(t, r)} | {ratio(j, r)} |")
    open(f"{out}/call.md", "w").write("\n".join(lines) + "\n")

if os.path.isdir(f"{crit}/export_1000"):
    lines = ["| Lint, 10,000 specs | time | tools / s |", "|---|---:|---:|"]
    for fn in ["lint_with", "lint_tool_list"]:
        m = median("lint_10000", fn)
        lines.append(f"| `{fn}` | {ns(m)} | {'n/a' if m is None else f'{10000 / (m / 1e9):,.0f}'} |")
    lines += ["", "| Export, 1,000 specs, to text | time | tools / s | vs `serde_json::to_string(&specs)` |", "|---|---:|---:|---:|"]
    base = median("export_1000", "baseline_serde_specs")
    lines.append(f"| baseline: serialize the canonical specs | {ns(base)} | {'n/a' if base is None else f'{1000 / (base / 1e9):,.0f}'} | 1.00× |")
    for d in sorted(os.listdir(f"{crit}/export_1000")):
        if d in ("baseline_serde_specs", "report"): continue
        m = median("export_1000", d)
        lines.append(f"| `{d}` | {ns(m)} | {'n/a' if m is None else f'{1000 / (m / 1e9):,.0f}'} | {ratio(m, base)} |")
    open(f"{out}/throughput.md", "w").write("\n".join(lines) + "\n")

path = f"{root}/BENCHMARKS.md"
text = open(path).read()
for name in ["machine", "call", "instructions", "context", "load", "throughput", "compile", "compile-app", "lint", "replicas"]:
    f = f"{out}/{name}.md"
    if not os.path.exists(f): continue
    body = open(f).read().rstrip("\n")
    pat = re.compile(rf"(<!-- bench:{name}:begin -->\n).*?(<!-- bench:{name}:end -->)", re.S)
    text, n = pat.subn(lambda m: m.group(1) + body + "\n" + m.group(2), text)
    if n == 0:
        print(f"BENCHMARKS.md has no bench:{name} markers; left out", file=sys.stderr)
open(path, "w").write(text)
print(f"updated {path}")
PY
}

case "${1:-all}" in
  call) machine; run_call; report ;;
  context) run_context; report ;;
  throughput) machine; run_throughput; report ;;
  compile) run_compile; run_compile_app; report ;;
  instructions) run_instructions; report ;;
  lint) machine; run_lint; report ;;
  load) run_load; report ;;
  replicas) run_replicas; report ;;
  report) report ;;
  all) machine; run_call; run_instructions; run_context; run_load; run_throughput; run_compile; run_compile_app; run_lint; run_replicas_if_installed; report ;;
  *) echo "usage: scripts/bench.sh [all|call|instructions|context|load|throughput|compile|lint|replicas|report]" >&2; exit 2 ;;
esac
