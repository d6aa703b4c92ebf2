//! The registered tools as a call finds them ([`Registry`], a snapshot replaced whole on each
//! change) and what every call reads: the registry and the stages ([`Engine`]). The
//! toolbox owns an engine and changes its registry; the pipeline runs on the engine alone.

use super::{Entry, Stages};
use crate::fault::Faults;
use crate::spec::ToolSpec;
use arc_swap::ArcSwap;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::SystemTime;

/// The registered tools: a snapshot, replaced whole on each change.
#[derive(Default, Clone)]
pub(crate) struct Registry {
    pub(crate) entries: Vec<Arc<Entry>>,
    pub(crate) index: HashMap<String, usize, foldhash::fast::RandomState>,
    /// Tools no longer listed whose calls answer `TOOL_RETIRED`: deregistered (`None`) or
    /// retired after their deprecation window (their entry, for the answer and the audit).
    pub(crate) retired: BTreeMap<String, Option<Arc<Entry>>>,
    /// When listed deprecated tools retire ([`super::retire`]); empty for most toolboxes.
    pub(crate) retire_at: HashMap<String, std::time::SystemTime>,
    /// How many changes made this registry ([`Toolbox::generation`](crate::Toolbox::generation)).
    pub(crate) generation: u64,
}

impl Registry {
    pub(crate) fn names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.tool.name()).collect()
    }

    pub(crate) fn push(&mut self, entry: Entry) {
        self.index
            .insert(entry.tool.name().to_string(), self.entries.len());
        self.entries.push(Arc::new(entry));
    }
}

/// What a call reads: the registry (loaded once per call) and the settings fixed at build time.
pub(crate) struct Engine {
    /// The tools as a call finds them: replaced whole by `register` and `deregister`.
    pub(crate) registry: ArcSwap<Registry>,
    /// The stages a call runs through, each with its configuration.
    pub(crate) stages: Stages,
    /// The faults of the host's parts, counted for [`Toolbox::faults`](crate::Toolbox::faults)
    /// (the stages that meet them hold the same counter).
    pub(crate) faults: Arc<Faults>,
    /// When deprecated tools retire, and the clock that says when it is.
    pub(crate) retirement: Retirement,
}

impl Engine {
    /// The current registry.
    pub(crate) fn registry(&self) -> arc_swap::Guard<Arc<Registry>> {
        self.registry.load()
    }
}

/// Where a toolbox reads the time its retirements are judged by
/// ([`ToolboxBuilder::clock`](crate::ToolboxBuilder::clock)); `SystemTime::now` unless set.
pub(crate) type Clock = Arc<dyn Fn() -> SystemTime + Send + Sync>;

/// When deprecated tools leave the list: the host's schedule, fixed when the toolbox is built.
#[derive(Clone)]
pub(crate) struct Retirement {
    pub(crate) clock: Clock,
    /// Per tool ([`ToolboxBuilder::retire_at`](crate::ToolboxBuilder::retire_at)).
    pub(crate) at: BTreeMap<String, SystemTime>,
    /// Every deprecated tool without a time of its own
    /// ([`ToolboxBuilder::retire_deprecated_after`](crate::ToolboxBuilder::retire_deprecated_after)).
    pub(crate) deprecated_at: Option<SystemTime>,
}

impl Default for Retirement {
    fn default() -> Self {
        Retirement {
            clock: Arc::new(SystemTime::now),
            at: BTreeMap::new(),
            deprecated_at: None,
        }
    }
}

impl Retirement {
    /// The time now, by the toolbox's clock.
    pub(crate) fn now(&self) -> SystemTime {
        (self.clock)()
    }

    /// When `spec` retires: only a deprecated tool does.
    pub(crate) fn time_for(&self, spec: &ToolSpec) -> Option<SystemTime> {
        spec.deprecated.as_ref()?;
        self.at.get(&spec.name).copied().or(self.deprecated_at)
    }
}
