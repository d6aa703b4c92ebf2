//! Host-supplied values injected into `#[context]` parameters (and `&self` of method tools).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

/// A map from type to one value of that type, shared by every call of a toolbox.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// let mut ctx = toolsmith::Context::new();
/// ctx.insert(String::from("workspace"));
/// assert_eq!(ctx.get::<String>().map(String::as_str), Some("workspace"));
/// assert!(ctx.get::<u32>().is_none());
/// ```
#[derive(Default, Clone)]
pub struct Context {
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl Context {
    /// An empty context.
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `value`, replacing any earlier value of the same type.
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) {
        self.values.insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// Stores a value the host keeps a handle to; tools see it as `&T`.
    pub fn insert_shared<T: Any + Send + Sync>(&mut self, value: Arc<T>) {
        self.values.insert(TypeId::of::<T>(), value);
    }

    /// The value of type `T`, if one was stored.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.values
            .get(&TypeId::of::<T>())
            .and_then(|v| v.as_ref().downcast_ref::<T>())
    }

    /// Whether a value of the given type was stored.
    pub fn contains(&self, id: TypeId) -> bool {
        self.values.contains_key(&id)
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("values", &self.values.len())
            .finish()
    }
}
