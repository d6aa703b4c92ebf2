//! Terminal colour: on a terminal only (and not with `NO_COLOR`), unless forced.

use std::io::IsTerminal;

use crate::Color;

/// The ANSI code of [`Style::error`].
pub const ERROR: &str = "1;31";
/// The ANSI code of [`Style::warning`].
pub const WARNING: &str = "1;33";
/// The ANSI code of gutters and arrows: bold blue.
pub const GUTTER: &str = "1;34";
/// The ANSI code of [`Style::bold`].
pub const BOLD: &str = "1";

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
        let mut out = String::new();
        self.wrap(&mut out, code, |o| o.push_str(text));
        out
    }

    /// Appends what `write` appends, in the style of the ANSI `code` (`"1;31"`).
    pub fn wrap(self, out: &mut String, code: &str, write: impl FnOnce(&mut String)) {
        if self.on {
            out.push_str("\x1b[");
            out.push_str(code);
            out.push('m');
            write(out);
            out.push_str("\x1b[0m");
        } else {
            write(out);
        }
    }

    /// Bold red.
    pub fn error(self, t: &str) -> String {
        self.paint(ERROR, t)
    }

    /// Bold yellow.
    pub fn warning(self, t: &str) -> String {
        self.paint(WARNING, t)
    }

    /// Bold.
    pub fn bold(self, t: &str) -> String {
        self.paint(BOLD, t)
    }

    /// Green.
    pub fn good(self, t: &str) -> String {
        self.paint("32", t)
    }
}
