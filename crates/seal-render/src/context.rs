//! Rendering contexts and their byte-class tables.

/// Where escaped text is placed; each context has its own literal set (escape-v1).
///
/// | context     | literal (copied as is)                               | `\n` escape |
/// |-------------|------------------------------------------------------|-------------|
/// | `Inline`    | printable ASCII `0x20..=0x7E` except `\`             | yes         |
/// | `Attribute` | `Inline` minus `"`, `<`, `>`                         | yes         |
/// | `Block`     | printable ASCII except `\` and `<`, plus LF (`0x0A`) | no (LF raw) |
///
/// Everything not literal is written as an escape starting with `\`, so no context ever emits a
/// byte outside printable ASCII (plus LF in `Block`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Context {
    /// Single-line fields and reasons: no raw LF, `"` `<` `>` allowed.
    Inline,
    /// Frame attribute values between `"`: no raw LF, `"`, `<` or `>`.
    Attribute,
    /// Frame and alarm bodies: LF kept, no raw `<`, so a body can never open or close a tag.
    Block,
}

impl Context {
    /// All contexts, in declaration order.
    pub const ALL: [Context; 3] = [Context::Inline, Context::Attribute, Context::Block];

    /// Whether `byte` is copied as is in this context.
    ///
    /// Only bytes `0x20..=0x7E` (and LF in `Block`) can be literal; every other byte is not.
    #[must_use]
    pub fn is_literal(self, byte: u8) -> bool {
        class(self.table(), byte) == Class::Literal as u8
    }

    /// Whether `c` is copied as is in this context (the char form of [`Context::is_literal`]).
    #[must_use]
    pub fn is_literal_char(self, c: char) -> bool {
        u8::try_from(c).is_ok_and(|b| self.is_literal(b))
    }

    /// The lowercase name used in specs and golden vectors: `inline`, `attribute`, `block`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Context::Inline => "inline",
            Context::Attribute => "attribute",
            Context::Block => "block",
        }
    }

    pub(crate) fn table(self) -> &'static [u8; 256] {
        match self {
            Context::Inline => &INLINE,
            Context::Attribute => &ATTRIBUTE,
            Context::Block => &BLOCK,
        }
    }
}

/// What the escaper does with one byte (for non-ASCII bytes: with the scalar it starts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Class {
    /// Copied as is.
    Literal = 0,
    /// `\` -> `\\`.
    Backslash = 1,
    /// LF -> `\n` (never reached in `Block`, where LF is literal).
    LineFeed = 2,
    /// TAB -> `\t`.
    Tab = 3,
    /// Any other ASCII byte not literal in the context -> `\u{h}`.
    OtherAscii = 4,
    /// First or later byte of a multi-byte scalar, or a byte that is not UTF-8.
    NonAscii = 5,
}

/// Class of `byte` in `table`; a `[u8; 256]` lookup that never fails.
#[inline(always)]
pub(crate) fn class(table: &[u8; 256], byte: u8) -> u8 {
    table
        .get(usize::from(byte))
        .copied()
        .unwrap_or(Class::NonAscii as u8)
}

static INLINE: [u8; 256] = inline_table();
static ATTRIBUTE: [u8; 256] = attribute_table();
static BLOCK: [u8; 256] = block_table();

/// The `Inline` class table (also used at compile time to derive codeword tables).
pub(crate) const fn inline_table() -> [u8; 256] {
    build(b"\\")
}

/// The `Attribute` class table.
pub(crate) const fn attribute_table() -> [u8; 256] {
    build(b"\\\"<>")
}

/// The `Block` class table.
pub(crate) const fn block_table() -> [u8; 256] {
    build_block()
}

/// Printable ASCII is literal except the `excluded` bytes; LF is `\n`.
///
/// Evaluated at compile time only: an out-of-range index is a build error, not a panic.
#[allow(clippy::indexing_slicing)]
const fn build(excluded: &[u8]) -> [u8; 256] {
    let mut table = [Class::NonAscii as u8; 256];
    let mut b = 0;
    while b < 0x80 {
        table[b] = if b >= 0x20 && b <= 0x7e {
            Class::Literal as u8
        } else {
            Class::OtherAscii as u8
        };
        b += 1;
    }
    let mut i = 0;
    while i < excluded.len() {
        table[excluded[i] as usize] = Class::OtherAscii as u8;
        i += 1;
    }
    table[b'\\' as usize] = Class::Backslash as u8;
    table[b'\n' as usize] = Class::LineFeed as u8;
    table[b'\t' as usize] = Class::Tab as u8;
    table
}

/// Block context: like inline but `<` escaped and LF literal.
#[allow(clippy::indexing_slicing)]
const fn build_block() -> [u8; 256] {
    let mut table = build(b"\\<");
    table[b'\n' as usize] = Class::Literal as u8;
    table
}
