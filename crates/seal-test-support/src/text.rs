//! Reading values out of the text a test produced.

#![allow(clippy::panic)]

/// The value of the first `name="…"` in `text`: what follows `name="` up to the next `"`.
///
/// ```
/// let frame = r#"<seal-frame id="m1" sig="abcde">hi</seal-frame>"#;
/// assert_eq!(seal_test_support::quoted_attribute(frame, "sig"), "abcde");
/// ```
///
/// # Panics
///
/// When `text` holds no `name="`.
pub fn quoted_attribute<'a>(text: &'a str, name: &str) -> &'a str {
    let opening = format!("{name}=\"");
    let Some((_, rest)) = text.split_once(opening.as_str()) else {
        panic!("no `{opening}` in `{text}`");
    };
    rest.split('"').next().unwrap_or(rest)
}
