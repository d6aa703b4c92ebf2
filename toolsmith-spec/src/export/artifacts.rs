//! Build artifacts: one pretty JSON file per target plus an `index.json`.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::error::ExportError;
use super::loading::{finish, order, ExportOptions};
use super::lower::{assemble, wrap_list, Until};
use super::target::Target;
use crate::spec::ToolSpec;

/// What [`write_artifacts`] wrote.
#[derive(Debug)]
#[non_exhaustive]
pub struct ArtifactReport {
    /// The directory written to.
    pub dir: PathBuf,
    /// Every file written (`<slug>.json` per target, then `index.json`, then `ui/<tool>.html`
    /// per tool).
    pub files: Vec<PathBuf>,
    /// Every (tool, target) pair that could not be exported; these tools are left out of that
    /// target's file and listed under `failed` in `index.json`.
    pub failures: Vec<ExportError>,
}

/// Writing artifacts failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ArtifactError {
    /// A directory or file could not be created or written.
    #[error("cannot write tool artifacts to {}: {source}", path.display())]
    Io {
        /// The path that failed.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// The artifact files as (file name, pretty JSON text), plus the export failures.
pub(crate) fn render(
    specs: &[ToolSpec],
    options: &ExportOptions,
) -> (Vec<(String, String)>, Vec<ExportError>) {
    let mut files = Vec::new();
    let mut failures = Vec::new();
    let mut exported: Vec<Vec<&'static str>> = vec![Vec::new(); specs.len()];
    for &target in Target::all() {
        let assembled = assemble(specs, target, Until::End);
        for &(i, _) in &assembled.tools {
            exported[i].push(target.slug());
        }
        failures.extend(assembled.failures);
        let doc = wrap_list(target, finish(specs, target, options, assembled.tools));
        let mut text = doc.to_pretty_text();
        text.push('\n');
        files.push((format!("{}.json", target.slug()), text));
    }
    // In export order, like the tool lists.
    let tools: Vec<Value> = order(specs)
        .into_iter()
        .map(|i| (i, &specs[i]))
        .map(|(i, spec)| {
            let failed: Vec<Value> = failures
                .iter()
                .filter(|f| f.tool == spec.name)
                .map(|f| {
                    json!({"target": f.target.slug(), "pointer": f.pointer, "reason": f.to_string()})
                })
                .collect();
            let mut entry = json!({
                "name": spec.name,
                "fingerprint": spec.fingerprint(),
                "version": spec.version,
                "exported": exported[i],
                "failed": failed,
            });
            if !spec.allows.is_empty() {
                entry["allows"] = json!(spec
                    .allows
                    .iter()
                    .map(|a| json!({"rule": a.rule, "reason": a.reason}))
                    .collect::<Vec<_>>());
            }
            entry
        })
        .collect();
    let slugs: Vec<&str> = Target::all().iter().map(|t| t.slug()).collect();
    let index = json!({"generator": "toolsmith", "targets": slugs, "tools": tools});
    files.push(("index.json".to_string(), pretty(&index)));
    // The person's side: each tool's form, so a reworded description that changes what people
    // read is seen in review too.
    for spec in specs {
        files.push((form_file(&spec.name), form_page(spec)));
    }
    (files, failures)
}

/// The artifact file of a tool's form: `ui/<tool>.html`.
pub(crate) fn form_file(tool: &str) -> String {
    format!("{FORMS_DIR}/{tool}.html")
}

/// The folder of the forms among the artifacts.
pub(crate) const FORMS_DIR: &str = "ui";

/// A tool's form as a page of its own (`toolsmith::ui::page` with one spec).
fn form_page(spec: &ToolSpec) -> String {
    let title = spec.title.clone().unwrap_or_else(|| spec.name.clone());
    crate::ui::page(
        &title,
        std::slice::from_ref(spec),
        &crate::ui::FormOptions::default(),
    )
}

fn pretty(v: &Value) -> String {
    let mut s = serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string());
    s.push('\n');
    s
}

/// Writes one pretty JSON file per target (`<slug>.json`, see [`Target::slug`]), `index.json`
/// and each tool's form (`ui/<tool>.html`, a page of `toolsmith_spec::ui::page`) into `dir` (created
/// if missing), overwriting earlier files.
///
/// `index.json` lists every tool with its `name`, `fingerprint` ([`ToolSpec::fingerprint`]),
/// `version`, the targets it was `exported` to, the targets it `failed` for (slug, JSON pointer
/// and the full reason) and its lint `allows`. A tool that cannot be lowered for a target is left
/// out of that target's file and reported, never silently dropped.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// # use toolsmith::ToolSpec;
/// # let spec = ToolSpec::new("get_time", "Returns the current UTC time.",
/// #     serde_json::json!({"type": "object", "additionalProperties": false}))
/// #     .with_version("1.0.0");
/// let dir = std::env::temp_dir().join(format!("toolsmith-doc-{}", std::process::id()));
/// let report = toolsmith::export::write_artifacts(&[spec], &dir).unwrap();
/// assert_eq!(report.files.len(), 13); // 11 targets, index.json, ui/get_time.html
/// assert!(report.failures.is_empty());
/// assert!(dir.join("openai-chat-strict.json").exists());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn write_artifacts(
    specs: &[ToolSpec],
    dir: impl AsRef<Path>,
) -> Result<ArtifactReport, ArtifactError> {
    write_artifacts_with(specs, dir, &ExportOptions::default())
}

/// [`write_artifacts`] with [`ExportOptions`] (each target's file as
/// [`export_with`](super::export_with) writes it).
pub fn write_artifacts_with(
    specs: &[ToolSpec],
    dir: impl AsRef<Path>,
    options: &ExportOptions,
) -> Result<ArtifactReport, ArtifactError> {
    let dir = dir.as_ref();
    std::fs::create_dir_all(dir).map_err(|source| ArtifactError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let (files, failures) = render(specs, options);
    let forms = dir.join(FORMS_DIR);
    std::fs::create_dir_all(&forms).map_err(|source| ArtifactError::Io {
        path: forms.clone(),
        source,
    })?;
    let mut written = Vec::new();
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|source| ArtifactError::Io {
            path: path.clone(),
            source,
        })?;
        written.push(path);
    }
    Ok(ArtifactReport {
        dir: dir.to_path_buf(),
        files: written,
        failures,
    })
}

/// The default artifact directory: `$CARGO_TARGET_DIR/tool-specs` when `CARGO_TARGET_DIR` is
/// set, otherwise `<workspace>/target/tool-specs`, where the workspace is the nearest ancestor
/// of `CARGO_MANIFEST_DIR` (or of the current directory) whose `Cargo.toml` has a
/// `[workspace]` table, else that directory itself.
///
/// ```
/// # mod toolsmith { pub use toolsmith_spec::*; pub mod spec { pub use toolsmith_spec::*; } }
/// let dir = toolsmith::export::default_artifact_dir();
/// assert!(dir.ends_with("tool-specs"));
/// ```
pub fn default_artifact_dir() -> PathBuf {
    if let Some(t) = std::env::var_os("CARGO_TARGET_DIR").filter(|t| !t.is_empty()) {
        return PathBuf::from(t).join("tool-specs");
    }
    let start = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    let root = start
        .ancestors()
        .find(|d| {
            std::fs::read_to_string(d.join("Cargo.toml"))
                .map(|t| t.lines().any(|l| l.trim() == "[workspace]"))
                .unwrap_or(false)
        })
        .unwrap_or(&start)
        .to_path_buf();
    root.join("target").join("tool-specs")
}
