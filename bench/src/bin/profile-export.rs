//! The export bench's work in a loop, for profilers (callgrind, perf): 1,000 generated specs
//! exported to one target and serialized to text (`generate::export_text`), or the baseline,
//! `serde_json::to_string` of the same specs; no criterion machinery around it.
//!
//! ```sh
//! cargo build --release -p toolsmith-bench --bin profile-export
//! valgrind --tool=callgrind target/release/profile-export mcp-2025-06-18 3
//! ```
//!
//! Arguments: a target slug (`toolsmith::export::Target::slug`) or `baseline`, and the number
//! of runs (default 10). The instructions of one run are those of N runs minus those of 0 runs
//! (the spec generation), divided by N. It prints the output length and the fastest run's wall
//! time.

use std::hint::black_box;
use std::time::{Duration, Instant};
use toolsmith::export::Target;
use toolsmith_bench::generate::{export_text, export_unit, specs, ExportUnit};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let what = args.first().map_or("baseline", String::as_str);
    let runs = toolsmith_bench::count_arg(&args, 1, 10, "runs");
    let target = match what {
        "baseline" => None,
        slug => match Target::all().iter().find(|t| t.slug() == slug) {
            Some(&t) => Some(t),
            None => {
                let slugs: Vec<&str> = Target::all().iter().map(|t| t.slug()).collect();
                eprintln!(
                    "unknown target {slug:?}; use baseline or one of {}",
                    slugs.join(", ")
                );
                std::process::exit(2);
            }
        },
    };
    let specs = specs(1_000);
    let unit = target.map_or(ExportUnit::List, |t| export_unit(&specs, t));
    let mut bytes = 0;
    let mut fastest = Duration::MAX;
    for _ in 0..runs {
        let start = Instant::now();
        bytes = match target {
            Some(t) => export_text(black_box(&specs), t, unit).len(),
            None => serde_json::to_string(black_box(&specs)).map_or(0, |s| s.len()),
        };
        fastest = fastest.min(start.elapsed());
    }
    if runs > 0 {
        println!("{what}: {bytes} bytes, fastest of {runs} runs {fastest:.2?}");
    }
}
