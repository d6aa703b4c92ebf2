//! `toolsmith-eval` (also `toolsmith eval`): selection evals of a tool list against a model
//! endpoint. `toolsmith-eval --help` lists the commands; the crate's docs say what the numbers
//! mean. The command itself is `toolsmith_eval::cli`.

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("toolsmith-eval: error: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let exit = runtime.block_on(toolsmith_eval::cli::run(std::env::args_os()));
    let _ = std::io::stdout().write_all(exit.stdout.as_bytes());
    let _ = std::io::stderr().write_all(exit.stderr.as_bytes());
    ExitCode::from(exit.code)
}
