//! Procedural macros of toolsmith. Use them through the `toolsmith` facade.
