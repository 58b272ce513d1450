//! Frames: a start tag, a block-escaped body, an end tag.

use crate::context::Context;
use crate::escape::escape_into;
use crate::render_error::RenderError;
use crate::tag::StartTag;

/// Renders `<element a="v" ...>` + escape(body, Block) + `</element>` (frame-v1 strict form).
///
/// Guarantees: the output is printable ASCII plus LF; attribute values are escaped in
/// [`Context::Attribute`] and the body in [`Context::Block`], so the body contains no `<` and can
/// never close or open a tag; the header bytes are the only spelling the strict frame grammar
/// accepts for these attributes.
///
/// ```
/// use seal_render::render_frame;
/// let frame = render_frame("channel", &[("source", "telegram"), ("id", "m42")], "hi </channel>").unwrap();
/// assert_eq!(frame, "<channel source=\"telegram\" id=\"m42\">hi \\u{3c}/channel></channel>");
/// ```
///
/// # Errors
/// An element or attribute name outside the grammar, a duplicate attribute name, or `sig` not
/// last (see [`StartTag::new`]).
pub fn render_frame(
    element: &str,
    attributes: &[(&str, &str)],
    body: &str,
) -> Result<String, RenderError> {
    let tag = StartTag::new(element, attributes)?;
    let mut out = String::with_capacity(tag.plain_len() * 2 + body.len() + body.len() / 8 + 16);
    tag.write(&mut out);
    escape_into(&mut out, body, Context::Block);
    tag.write_end(&mut out);
    Ok(out)
}
