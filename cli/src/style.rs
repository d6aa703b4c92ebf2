//! Terminal colour: on a terminal only (and not with `NO_COLOR`), unless forced.

use std::io::IsTerminal;

use crate::Color;

/// ANSI styles, or none.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    on: bool,
}

impl Style {
    /// The style for standard output under `choice`.
    pub fn stdout(choice: Color) -> Style {
        let on = match choice {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => {
                std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
            }
        };
        Style { on }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// Bold red.
    pub fn error(self, t: &str) -> String {
        self.paint("1;31", t)
    }

    /// Bold yellow.
    pub fn warning(self, t: &str) -> String {
        self.paint("1;33", t)
    }

    /// Bold blue (gutters and arrows).
    pub fn gutter(self, t: &str) -> String {
        self.paint("1;34", t)
    }

    /// Bold.
    pub fn bold(self, t: &str) -> String {
        self.paint("1", t)
    }

    /// Green.
    pub fn good(self, t: &str) -> String {
        self.paint("32", t)
    }
}
