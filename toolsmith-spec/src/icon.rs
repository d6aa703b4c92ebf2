//! A tool's icons: MCP's `Icon` (protocol revisions 2025-11-25 and 2026-07-28), which clients
//! show beside a tool in their user interface. The model never reads them: they are no part of
//! a spec's fingerprint, and only the MCP export of those revisions carries them.

use serde::{Deserialize, Serialize};
use toolsmith_lint::mcp_fields;

/// The background an icon is drawn for (MCP's `Icon.theme`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// For a light background.
    Light,
    /// For a dark background.
    Dark,
}

impl IconTheme {
    /// `light` or `dark`, as MCP writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            IconTheme::Light => "light",
            IconTheme::Dark => "dark",
        }
    }

    /// The theme written `text` (`light` or `dark`).
    pub fn parse(text: &str) -> Option<IconTheme> {
        match text {
            "light" => Some(IconTheme::Light),
            "dark" => Some(IconTheme::Dark),
            _ => None,
        }
    }
}

/// One icon of a tool, as MCP's `Icon`: where the image is (`src`: an `https`/`http` URL or a
/// `data:image/...;base64,` URI), and optionally its MIME type, the sizes it suits (`"48x48"`,
/// `"any"`) and the theme it is drawn for.
///
/// `#[tool(icon = "...")]` and `#[tool(icon(src = ..., mime_type = ..., sizes = [...], theme =
/// ...))]` declare icons and check them at compile time; [`ToolSpec::with_icon`] adds one at run
/// time, and the toolbox checks it when the tool is registered ([`Icon::problems`]).
///
/// ```
/// use toolsmith_spec::spec::{Icon, IconTheme};
/// let icon = Icon::new("https://example.com/search.png")
///     .with_mime_type("image/png")
///     .with_sizes(["48x48"])
///     .with_theme(IconTheme::Dark);
/// assert!(icon.problems().is_empty());
/// assert_eq!(
///     serde_json::to_value(&icon).unwrap(),
///     serde_json::json!({"src": "https://example.com/search.png", "mimeType": "image/png",
///                        "sizes": ["48x48"], "theme": "dark"})
/// );
/// assert!(!Icon::new("icon.png").problems().is_empty());
/// ```
///
/// [`ToolSpec::with_icon`]: crate::ToolSpec::with_icon
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// The image: an `https`/`http` URL or a `data:` URI with Base64 image data.
    pub src: String,
    /// The image's MIME type (`image/png`, `image/svg+xml`), when the source does not say it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The sizes the icon suits: `WxH` in pixels or `any` (a scalable image); empty means any.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    /// The background it is drawn for; `None` suits both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

impl Icon {
    /// An icon at `src`, with no MIME type, sizes or theme.
    pub fn new(src: impl Into<String>) -> Icon {
        Icon {
            src: src.into(),
            mime_type: None,
            sizes: Vec::new(),
            theme: None,
        }
    }

    /// Sets the MIME type.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Icon {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the sizes (replacing any set before).
    #[must_use]
    pub fn with_sizes<S: Into<String>>(mut self, sizes: impl IntoIterator<Item = S>) -> Icon {
        self.sizes = sizes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the theme.
    #[must_use]
    pub fn with_theme(mut self, theme: IconTheme) -> Icon {
        self.theme = Some(theme);
        self
    }

    /// What is wrong with the icon, one sentence each: a `src` that is no http(s) URL or Base64
    /// `data:` image URI (or a `data:` URI over 16 KiB), a MIME type that is not `image/...` or
    /// that contradicts the `data:` URI's own, a size that is neither `WxH` nor `any`. The same
    /// rules `#[tool(icon)]` applies at compile time (`toolsmith_lint::mcp_fields`).
    pub fn problems(&self) -> Vec<String> {
        // The theme is typed, so it is always one MCP knows.
        mcp_fields::icon_problems(
            &self.src,
            self.mime_type.as_deref(),
            self.sizes.iter().map(String::as_str),
            None,
        )
    }
}
