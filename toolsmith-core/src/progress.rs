//! Progress reports from a running tool to whoever called it.
//!
//! The overview is in the docs of [`Progress`], where it is rendered.

use std::future::Future;
use std::sync::Arc;

/// One progress report: how far the work is, out of how much, and a short note.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ProgressReport {
    /// Work done so far; increases with every report of one call.
    pub progress: f64,
    /// The total amount of work, when known.
    pub total: Option<f64>,
    /// A short human-readable note, e.g. "3 of 10 files".
    pub message: Option<String>,
}

/// Receives the progress reports of one call (implemented by transports).
pub trait ProgressSink: Send + Sync {
    /// Delivers one report. Called on the tool's task: must not block.
    fn report(&self, report: ProgressReport);
}

tokio::task_local! {
    static SINK: Arc<dyn ProgressSink>;
}

/// The handle a tool reports progress through (a context value every toolbox supplies).
///
/// # Overview
///
/// Progress reports from a running tool to whoever called it.
///
/// A tool takes the handle as a context parameter (`#[context] progress: &Progress`); every
/// toolbox supplies one. A transport that can deliver reports (the MCP server, when the client
/// sent a progress token) runs the call inside [`with_progress`]; everywhere else
/// [`Progress::report`] does nothing, so a tool never has to ask whether anyone listens.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use std::sync::{Arc, Mutex};
/// use toolsmith::Progress;
/// use toolsmith::client::{with_progress, ProgressReport, ProgressSink};
///
/// struct Collect(Mutex<Vec<f64>>);
/// impl ProgressSink for Collect {
///     fn report(&self, report: ProgressReport) {
///         self.0.lock().unwrap().push(report.progress);
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let sink = Arc::new(Collect(Mutex::new(Vec::new())));
/// let progress = Progress::default();
/// progress.report(1.0, None, None); // outside a scope: a no-op
/// with_progress(sink.clone(), async { progress.report(2.0, Some(4.0), Some("half way")) }).await;
/// assert_eq!(*sink.0.lock().unwrap(), vec![2.0]);
/// # });
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    _private: (),
}

impl Progress {
    /// Reports progress to the caller of the current call, if it asked for reports; a no-op
    /// otherwise.
    pub fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let _ = SINK.try_with(|sink| {
            sink.report(ProgressReport {
                progress,
                total,
                message: message.map(String::from),
            })
        });
    }

    /// Whether reports of the current call reach anyone.
    pub fn is_observed(&self) -> bool {
        SINK.try_with(|_| ()).is_ok()
    }
}

/// Runs `fut` (a toolbox call) with `sink` receiving the reports of [`Progress::report`].
pub async fn with_progress<F: Future>(sink: Arc<dyn ProgressSink>, fut: F) -> F::Output {
    SINK.scope(sink, fut).await
}

/// The sink of the current call, if a transport set one (carried to the tool threads).
pub(crate) fn current() -> Option<Arc<dyn ProgressSink>> {
    SINK.try_with(Arc::clone).ok()
}

/// Runs `f` with `sink` as the current call's sink (on a tool thread).
pub(crate) fn sync_scope<R>(sink: Option<Arc<dyn ProgressSink>>, f: impl FnOnce() -> R) -> R {
    match sink {
        Some(sink) => SINK.sync_scope(sink, f),
        None => f(),
    }
}

/// Polls `fut` with `sink` as the current call's sink (on a tool thread).
pub(crate) async fn scope<F: Future>(sink: Option<Arc<dyn ProgressSink>>, fut: F) -> F::Output {
    match sink {
        Some(sink) => SINK.scope(sink, fut).await,
        None => fut.await,
    }
}
