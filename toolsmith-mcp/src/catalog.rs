//! The tool catalog: what the server derives from the toolbox's tool list (the specs by name,
//! and the `tools/list` result of each version), rebuilt when the list changes.

use crate::apps;
use crate::errors::internal;
use arc_swap::ArcSwap;
use rmcp::model::ListToolsResult;
use rmcp::ErrorData;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use toolsmith_core::export::{McpVersion, Target};
use toolsmith_core::{ToolSpec, Toolbox};

/// What the server derives from the tool list, rebuilt only when the list changes (every
/// register or deregister ticks [`Toolbox::generation`]).
pub(crate) struct Catalog {
    generation: u64,
    pub(crate) specs: HashMap<String, ToolSpec>,
    /// The `tools/list` result per version, lowered on first use, and whether its tools link
    /// their MCP App (for clients that announced the extension, [`apps`]).
    lists: Mutex<HashMap<(McpVersion, bool), Arc<ListToolsResult>>>,
}

/// The current [`Catalog`], shared by every session of one server.
///
/// Every call reads it, so it is held in an `ArcSwap` and the generation is an atomic load: a
/// lock or a reference count would be written on every call, on a line every thread shares.
#[derive(Clone)]
pub(crate) struct Catalogs {
    current: Arc<ArcSwap<Catalog>>,
}

impl Catalogs {
    pub(crate) fn new(toolbox: &Toolbox) -> Self {
        Catalogs {
            current: Arc::new(ArcSwap::from_pointee(Catalog::of(toolbox))),
        }
    }

    /// The catalog of the toolbox's current tools, rebuilt when they have changed.
    pub(crate) fn get(&self, toolbox: &Toolbox) -> arc_swap::Guard<Arc<Catalog>> {
        let cached = self.current.load();
        if cached.generation == toolbox.generation() {
            return cached;
        }
        drop(cached);
        // Sessions that see the change at once each build a catalog; the last stored stands,
        // and every one of them is of the tools as they are now.
        self.current.store(Arc::new(Catalog::of(toolbox)));
        self.current.load()
    }
}

impl Catalog {
    fn of(toolbox: &Toolbox) -> Self {
        // Read before the specs: a change in between leaves this catalog one generation
        // behind, so the next `get` rebuilds it (never the other way round).
        let generation = toolbox.generation();
        Catalog {
            generation,
            specs: toolbox
                .specs()
                .into_iter()
                .map(|s| (s.name.clone(), s))
                .collect(),
            lists: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn list(
        &self,
        toolbox: &Toolbox,
        version: McpVersion,
        apps: bool,
    ) -> Result<Arc<ListToolsResult>, ErrorData> {
        if let Some(list) = self
            .lists
            .lock()
            .ok()
            .and_then(|l| l.get(&(version, apps)).cloned())
        {
            return Ok(list);
        }
        if apps {
            let linked = Arc::new(apps::linked(&*self.list(toolbox, version, false)?));
            if let Ok(mut lists) = self.lists.lock() {
                lists.insert((version, true), Arc::clone(&linked));
            }
            return Ok(linked);
        }
        let mut list = toolbox.export(Target::Mcp(version)).map_err(|e| {
            ErrorData::internal_error(format!("the tool list cannot be exported: {e}"), None)
        })?;
        // rmcp drops `resultType` for peers before 2026-07-28, which define none.
        list["resultType"] = Value::String("complete".into());
        let list: Arc<ListToolsResult> = Arc::new(serde_json::from_value(list).map_err(internal)?);
        if let Ok(mut lists) = self.lists.lock() {
            lists.insert((version, false), Arc::clone(&list));
        }
        Ok(list)
    }
}
