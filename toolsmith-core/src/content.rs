//! Results that are more than JSON: images, audio, embedded resources, links to resources, and
//! several of them at once, each with its MIME type.
//!
//! A tool returns one of these types as it returns any data, and the spec says what comes back:
//!
//! ```
//! # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
//! use toolsmith::content::{Content, Image, Resource};
//!
//! /// Renders the chart of a series. Returns a PNG image.
//! fn render_chart(series: &[f64]) -> Image {
//!     # let png = series.iter().map(|v| *v as u8).collect::<Vec<u8>>();
//!     Image::png(png)
//! }
//!
//! /// A report: its figures as data, and the full text as an embedded resource.
//! fn report(id: &str) -> Content<serde_json::Value> {
//!     Content::with_data(serde_json::json!({"id": id, "total": 12}))
//!         .text("The full report follows.")
//!         .block(Resource::text(format!("reports://{id}"), "text/markdown", "# Report\n..."))
//! }
//! # let _ = (render_chart(&[1.0]), report("r1"));
//! ```
//!
//! With `#[tool]`, `-> Image` or `-> Result<Content<Summary>, ToolError>` is all it takes. The
//! status is still the envelope's: a tool that fails says so with its `ToolError`, and content
//! is what an `ok` carries.
//!
//! # How it travels
//!
//! - **The envelope**: `data` holds the content as MCP writes it (a block such as
//!   `{"type": "image", "mimeType": "image/png", "data": "<base64>"}`, or for [`Content`]
//!   `{"content": [blocks], "data": ...}`), and the output schema carries the keyword
//!   `x-toolsmith-content` ([`CONTENT_KEYWORD`]) naming the [`ContentKind`].
//! - **MCP** (`tools/call`): the blocks are the result's `content`, the data beside them (of a
//!   [`Content`] that has some) is `structuredContent`, and the tool's `outputSchema` describes
//!   that data only. `tools/list` names the kind under `_meta["toolsmith/content"]`.
//! - **The other platforms** take the envelope and its blocks through
//!   [`export::tool_result`](crate::export::tool_result), which writes what each accepts and
//!   says in text what it cannot carry.
//! - **Boundaries**: the output budget does not cut content blocks (an image cut in half is no
//!   image); the redactor reads text blocks and the text of embedded resources, never the
//!   base64 of binary ones.

use base64::Engine as _;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use std::borrow::Cow;
use std::fmt;

pub use toolsmith_spec::spec::{ContentKind, CONTENT_KEYWORD};

/// The most bytes of JSON (base64 included) the content blocks of one result may take unless
/// the host says otherwise (`ToolboxBuilder::max_content_bytes`): 16 MiB.
pub const DEFAULT_MAX_CONTENT_BYTES: usize = 16 * 1024 * 1024;

/// Why a piece of content could not be made: its MIME type does not fit what it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ContentError(String);

/// Checks that `mime` is `<top>/<subtype>` with `top` the expected one (`None`: any), both made
/// of the characters RFC 6838 allows, parameters (`; charset=...`) allowed after it.
fn check_mime(mime: &str, top: Option<&str>, what: &str) -> Result<(), ContentError> {
    let essence = mime.split(';').next().unwrap_or_default().trim();
    let token = |s: &str| {
        !s.is_empty()
            && s.len() <= 127
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    let fits = match essence.split_once('/') {
        Some((t, sub)) => token(t) && token(sub) && top.is_none_or(|want| t == want),
        None => false,
    };
    if fits {
        Ok(())
    } else {
        let want = top.map_or_else(|| "type/subtype".to_string(), |t| format!("{t}/..."));
        Err(ContentError(format!(
            "{what} needs a MIME type of the form {want}, such as {}; got {mime:?}",
            match top {
                Some("image") => "image/png",
                Some("audio") => "audio/wav",
                _ => "application/json",
            }
        )))
    }
}

fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// One image: its bytes and MIME type (MCP `image` content).
#[derive(Clone, PartialEq, Eq)]
pub struct Image {
    mime_type: Cow<'static, str>,
    data: Vec<u8>,
}

impl Image {
    /// An image of the given MIME type (`image/...`).
    ///
    /// # Errors
    /// [`ContentError`] when the MIME type is not `image/<subtype>`.
    pub fn new(
        mime_type: impl Into<String>,
        data: impl Into<Vec<u8>>,
    ) -> Result<Image, ContentError> {
        let mime_type = mime_type.into();
        check_mime(&mime_type, Some("image"), "an image")?;
        Ok(Image {
            mime_type: Cow::Owned(mime_type),
            data: data.into(),
        })
    }

    fn of(mime_type: &'static str, data: impl Into<Vec<u8>>) -> Image {
        Image {
            mime_type: Cow::Borrowed(mime_type),
            data: data.into(),
        }
    }

    /// A PNG image (`image/png`).
    pub fn png(data: impl Into<Vec<u8>>) -> Image {
        Image::of("image/png", data)
    }

    /// A JPEG image (`image/jpeg`).
    pub fn jpeg(data: impl Into<Vec<u8>>) -> Image {
        Image::of("image/jpeg", data)
    }

    /// A GIF image (`image/gif`).
    pub fn gif(data: impl Into<Vec<u8>>) -> Image {
        Image::of("image/gif", data)
    }

    /// A WebP image (`image/webp`).
    pub fn webp(data: impl Into<Vec<u8>>) -> Image {
        Image::of("image/webp", data)
    }

    /// The MIME type.
    pub fn mime_type(&self) -> &str {
        &self.mime_type
    }

    /// The bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }
}

/// One audio clip: its bytes and MIME type (MCP `audio` content).
#[derive(Clone, PartialEq, Eq)]
pub struct Audio {
    mime_type: Cow<'static, str>,
    data: Vec<u8>,
}

impl Audio {
    /// Audio of the given MIME type (`audio/...`).
    ///
    /// # Errors
    /// [`ContentError`] when the MIME type is not `audio/<subtype>`.
    pub fn new(
        mime_type: impl Into<String>,
        data: impl Into<Vec<u8>>,
    ) -> Result<Audio, ContentError> {
        let mime_type = mime_type.into();
        check_mime(&mime_type, Some("audio"), "audio")?;
        Ok(Audio {
            mime_type: Cow::Owned(mime_type),
            data: data.into(),
        })
    }

    fn of(mime_type: &'static str, data: impl Into<Vec<u8>>) -> Audio {
        Audio {
            mime_type: Cow::Borrowed(mime_type),
            data: data.into(),
        }
    }

    /// WAV audio (`audio/wav`).
    pub fn wav(data: impl Into<Vec<u8>>) -> Audio {
        Audio::of("audio/wav", data)
    }

    /// MP3 audio (`audio/mpeg`).
    pub fn mp3(data: impl Into<Vec<u8>>) -> Audio {
        Audio::of("audio/mpeg", data)
    }

    /// Ogg audio (`audio/ogg`).
    pub fn ogg(data: impl Into<Vec<u8>>) -> Audio {
        Audio::of("audio/ogg", data)
    }

    /// The MIME type.
    pub fn mime_type(&self) -> &str {
        &self.mime_type
    }

    /// The bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }
}

impl fmt::Debug for Image {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Image")
            .field("mime_type", &self.mime_type)
            .field("bytes", &self.data.len())
            .finish()
    }
}

impl fmt::Debug for Audio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Audio")
            .field("mime_type", &self.mime_type)
            .field("bytes", &self.data.len())
            .finish()
    }
}

/// What an embedded resource holds.
#[derive(Clone, PartialEq, Eq)]
enum Body {
    Text(String),
    Blob(Vec<u8>),
}

/// A resource embedded in the result, text or binary (MCP `resource` content): its URI, MIME
/// type and contents.
#[derive(Clone, PartialEq, Eq)]
pub struct Resource {
    uri: String,
    mime_type: String,
    body: Body,
}

impl Resource {
    /// A text resource (`text/plain`, `text/markdown`, `application/json`, ...).
    pub fn text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Resource {
        Resource {
            uri: uri.into(),
            mime_type: mime_type.into(),
            body: Body::Text(text.into()),
        }
    }

    /// A binary resource (sent base64-encoded).
    pub fn blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        data: impl Into<Vec<u8>>,
    ) -> Resource {
        Resource {
            uri: uri.into(),
            mime_type: mime_type.into(),
            body: Body::Blob(data.into()),
        }
    }

    /// The URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The MIME type.
    pub fn mime_type(&self) -> &str {
        &self.mime_type
    }

    /// The text of a text resource.
    pub fn as_text(&self) -> Option<&str> {
        match &self.body {
            Body::Text(t) => Some(t),
            Body::Blob(_) => None,
        }
    }

    /// The bytes of a binary resource.
    pub fn as_blob(&self) -> Option<&[u8]> {
        match &self.body {
            Body::Blob(b) => Some(b),
            Body::Text(_) => None,
        }
    }
}

impl fmt::Debug for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Resource");
        d.field("uri", &self.uri)
            .field("mime_type", &self.mime_type);
        match &self.body {
            Body::Text(t) => d.field("text", t),
            Body::Blob(b) => d.field("blob_bytes", &b.len()),
        };
        d.finish()
    }
}

/// A link to a resource the client can read (MCP `resource_link` content): its URI and name,
/// and what else is known of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceLink {
    uri: String,
    name: String,
    title: Option<String>,
    description: Option<String>,
    mime_type: Option<String>,
    size: Option<u64>,
}

impl ResourceLink {
    /// A link to `uri`, named `name` (a short identifier, such as a file name).
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> ResourceLink {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
        }
    }

    /// Sets the human-readable title.
    #[must_use]
    pub fn with_title(mut self, title: impl Into<String>) -> ResourceLink {
        self.title = Some(title.into());
        self
    }

    /// Sets what the resource is, for the model.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> ResourceLink {
        self.description = Some(description.into());
        self
    }

    /// Sets the MIME type.
    #[must_use]
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> ResourceLink {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// Sets the size in bytes.
    #[must_use]
    pub fn with_size(mut self, bytes: u64) -> ResourceLink {
        self.size = Some(bytes);
        self
    }

    /// The URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// One block of a [`Content`] result.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Block {
    /// Text for the model.
    Text(String),
    /// An image.
    Image(Image),
    /// An audio clip.
    Audio(Audio),
    /// An embedded resource.
    Resource(Resource),
    /// A link to a resource.
    Link(ResourceLink),
}

impl From<Image> for Block {
    fn from(v: Image) -> Block {
        Block::Image(v)
    }
}

impl From<Audio> for Block {
    fn from(v: Audio) -> Block {
        Block::Audio(v)
    }
}

impl From<Resource> for Block {
    fn from(v: Resource) -> Block {
        Block::Resource(v)
    }
}

impl From<ResourceLink> for Block {
    fn from(v: ResourceLink) -> Block {
        Block::Link(v)
    }
}

impl From<String> for Block {
    fn from(v: String) -> Block {
        Block::Text(v)
    }
}

impl From<&str> for Block {
    fn from(v: &str) -> Block {
        Block::Text(v.to_string())
    }
}

/// A result of several blocks (text, images, audio, resources, links, in order), with JSON data
/// beside them when `T` is not `()`: the data is what MCP clients get as `structuredContent`,
/// and what the tool's output schema describes.
///
/// ```
/// # mod toolsmith { pub use toolsmith_core::*; pub mod approval { pub use toolsmith_core::*; } pub mod client { pub use toolsmith_core::*; } pub mod fault { pub use toolsmith_core::*; } pub mod spec { pub use toolsmith_core::*; } }
/// use toolsmith::content::{Content, Image};
/// let mixed: Content = Content::new().text("The chart:").block(Image::png(vec![0x89, b'P']));
/// assert_eq!(mixed.blocks().len(), 2);
/// let with_data = Content::with_data(serde_json::json!({"points": 2})).block(Image::png(vec![1]));
/// assert!(with_data.data().is_some());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Content<T = ()> {
    data: Option<T>,
    blocks: Vec<Block>,
}

impl Content<()> {
    /// Blocks only, no data.
    pub fn new() -> Content<()> {
        Content {
            data: None,
            blocks: Vec::new(),
        }
    }
}

impl Default for Content<()> {
    fn default() -> Self {
        Content::new()
    }
}

impl<T> Content<T> {
    /// `data`, with the blocks added after.
    pub fn with_data(data: T) -> Content<T> {
        Content {
            data: Some(data),
            blocks: Vec::new(),
        }
    }

    /// Adds a block.
    #[must_use]
    pub fn block(mut self, block: impl Into<Block>) -> Content<T> {
        self.blocks.push(block.into());
        self
    }

    /// Adds a text block.
    #[must_use]
    pub fn text(self, text: impl Into<String>) -> Content<T> {
        self.block(Block::Text(text.into()))
    }

    /// The blocks, in order.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// The data beside the blocks.
    pub fn data(&self) -> Option<&T> {
        self.data.as_ref()
    }
}

// ---------------------------------------------------------------- serialization (MCP's shapes)

/// Writes one `{"type": ..., ...}` block.
fn write_block<S: Serializer>(s: S, block: &Block) -> Result<S::Ok, S::Error> {
    match block {
        Block::Text(text) => {
            let mut m = s.serialize_map(Some(2))?;
            m.serialize_entry("type", "text")?;
            m.serialize_entry("text", text)?;
            m.end()
        }
        Block::Image(v) => binary(s, "image", &v.mime_type, &v.data),
        Block::Audio(v) => binary(s, "audio", &v.mime_type, &v.data),
        Block::Resource(r) => {
            let mut m = s.serialize_map(Some(2))?;
            m.serialize_entry("type", "resource")?;
            m.serialize_entry("resource", &ResourceContents(r))?;
            m.end()
        }
        Block::Link(l) => {
            let mut m = s.serialize_map(None)?;
            m.serialize_entry("type", "resource_link")?;
            m.serialize_entry("uri", &l.uri)?;
            m.serialize_entry("name", &l.name)?;
            for (key, value) in [
                ("title", &l.title),
                ("description", &l.description),
                ("mimeType", &l.mime_type),
            ] {
                if let Some(v) = value {
                    m.serialize_entry(key, v)?;
                }
            }
            if let Some(size) = l.size {
                m.serialize_entry("size", &size)?;
            }
            m.end()
        }
    }
}

fn binary<S: Serializer>(s: S, kind: &str, mime: &str, data: &[u8]) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(3))?;
    m.serialize_entry("type", kind)?;
    m.serialize_entry("mimeType", mime)?;
    m.serialize_entry("data", &base64(data))?;
    m.end()
}

/// MCP's `TextResourceContents` / `BlobResourceContents`.
struct ResourceContents<'a>(&'a Resource);

impl Serialize for ResourceContents<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("uri", &r.uri)?;
        m.serialize_entry("mimeType", &r.mime_type)?;
        match &r.body {
            Body::Text(t) => m.serialize_entry("text", t)?,
            Body::Blob(b) => m.serialize_entry("blob", &base64(b))?,
        }
        m.end()
    }
}

impl Serialize for Block {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        write_block(s, self)
    }
}

impl Serialize for Image {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        binary(s, "image", &self.mime_type, &self.data)
    }
}

impl Serialize for Audio {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        binary(s, "audio", &self.mime_type, &self.data)
    }
}

impl Serialize for Resource {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("type", "resource")?;
        m.serialize_entry("resource", &ResourceContents(self))?;
        m.end()
    }
}

impl Serialize for ResourceLink {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        write_block(s, &Block::Link(self.clone()))
    }
}

impl<T: Serialize> Serialize for Content<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("content", &self.blocks)?;
        if let Some(data) = &self.data {
            m.serialize_entry("data", data)?;
        }
        m.end()
    }
}

// ---------------------------------------------------------------- schemas

/// The schema of one binary block (`image` or `audio`).
fn binary_schema(kind: &str) -> Schema {
    json_schema!({
        "type": "object",
        "properties": {
            "type": {"const": kind},
            "mimeType": {"type": "string"},
            "data": {"type": "string", "contentEncoding": "base64"},
        },
        "required": ["type", "mimeType", "data"],
    })
}

fn resource_schema() -> Schema {
    json_schema!({
        "type": "object",
        "properties": {
            "type": {"const": "resource"},
            "resource": {
                "type": "object",
                "properties": {
                    "uri": {"type": "string"},
                    "mimeType": {"type": "string"},
                    "text": {"type": "string"},
                    "blob": {"type": "string", "contentEncoding": "base64"},
                },
                "required": ["uri"],
            },
        },
        "required": ["type", "resource"],
    })
}

fn link_schema() -> Schema {
    json_schema!({
        "type": "object",
        "properties": {
            "type": {"const": "resource_link"},
            "uri": {"type": "string"},
            "name": {"type": "string"},
            "title": {"type": "string"},
            "description": {"type": "string"},
            "mimeType": {"type": "string"},
            "size": {"type": "integer", "minimum": 0},
        },
        "required": ["type", "uri", "name"],
    })
}

/// `schema` marked as the output of a tool that answers with `kind`.
fn marked(mut schema: Schema, kind: ContentKind) -> Schema {
    schema.insert(CONTENT_KEYWORD.into(), kind.as_str().into());
    schema
}

impl JsonSchema for Image {
    fn schema_name() -> Cow<'static, str> {
        "ImageContent".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        marked(binary_schema("image"), ContentKind::Image)
    }
}

impl JsonSchema for Audio {
    fn schema_name() -> Cow<'static, str> {
        "AudioContent".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        marked(binary_schema("audio"), ContentKind::Audio)
    }
}

impl JsonSchema for Resource {
    fn schema_name() -> Cow<'static, str> {
        "EmbeddedResource".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        marked(resource_schema(), ContentKind::Resource)
    }
}

impl JsonSchema for ResourceLink {
    fn schema_name() -> Cow<'static, str> {
        "ResourceLink".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        marked(link_schema(), ContentKind::ResourceLink)
    }
}

impl JsonSchema for Block {
    fn schema_name() -> Cow<'static, str> {
        "ContentBlock".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let text = json_schema!({
            "type": "object",
            "properties": {"type": {"const": "text"}, "text": {"type": "string"}},
            "required": ["type", "text"],
        });
        json_schema!({
            "oneOf": [text, binary_schema("image"), binary_schema("audio"), resource_schema(),
                      link_schema()],
        })
    }
}

impl<T: JsonSchema> JsonSchema for Content<T> {
    fn schema_name() -> Cow<'static, str> {
        format!("Content_{}", T::schema_name()).into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let block = generator.subschema_for::<Block>();
        let mut properties = serde_json::Map::new();
        properties.insert(
            "content".into(),
            serde_json::json!({"type": "array", "items": block}),
        );
        // `()` is no data: its schema is `null`, and the data is never written.
        let unit = <T as JsonSchema>::schema_id() == <() as JsonSchema>::schema_id();
        if !unit {
            properties.insert("data".into(), generator.subschema_for::<T>().to_value());
        }
        marked(
            json_schema!({
                "type": "object",
                "properties": properties,
                "required": ["content"],
            }),
            ContentKind::Mixed,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_serialize_as_mcp_writes_them() {
        let image = serde_json::to_value(Image::png(vec![0xff, 0x00])).unwrap();
        assert_eq!(
            image,
            json!({"type": "image", "mimeType": "image/png", "data": "/wA="})
        );
        let link = ResourceLink::new("file:///a.txt", "a.txt")
            .with_mime_type("text/plain")
            .with_size(3);
        assert_eq!(
            serde_json::to_value(link).unwrap(),
            json!({"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt",
                   "mimeType": "text/plain", "size": 3})
        );
        let res = Resource::blob("x://b", "application/octet-stream", vec![1, 2, 3]);
        assert_eq!(
            serde_json::to_value(res).unwrap(),
            json!({"type": "resource", "resource": {"uri": "x://b",
                   "mimeType": "application/octet-stream", "blob": "AQID"}})
        );
        let mixed = Content::with_data(json!({"n": 1}))
            .text("hi")
            .block(Audio::wav(vec![0]));
        assert_eq!(
            serde_json::to_value(mixed).unwrap(),
            json!({"content": [{"type": "text", "text": "hi"},
                               {"type": "audio", "mimeType": "audio/wav", "data": "AA=="}],
                   "data": {"n": 1}})
        );
        assert_eq!(
            serde_json::to_value(Content::new().text("only")).unwrap(),
            json!({"content": [{"type": "text", "text": "only"}]})
        );
    }

    #[test]
    fn a_mime_type_that_does_not_fit_is_an_error() {
        assert!(Image::new("image/svg+xml", vec![]).is_ok());
        let e = Image::new("audio/wav", vec![]).unwrap_err();
        assert!(e.to_string().contains("image/..."), "{e}");
        assert!(Audio::new("audio", vec![]).is_err());
        assert!(Audio::new("audio/ogg; codecs=opus", vec![]).is_ok());
        assert!(Image::new("image/p ng", vec![]).is_err());
    }

    #[test]
    fn schemas_carry_the_content_keyword() {
        let mut g = SchemaGenerator::default();
        let s = Image::json_schema(&mut g);
        assert_eq!(s.get(CONTENT_KEYWORD), Some(&json!("image")));
        let s = <Content<u32>>::json_schema(&mut g);
        assert_eq!(s.get(CONTENT_KEYWORD), Some(&json!("mixed")));
        assert!(s.get("properties").unwrap().get("data").is_some());
        let s = <Content>::json_schema(&mut g);
        assert!(s.get("properties").unwrap().get("data").is_none());
    }
}
