//! The escalation fields of a call and their validation, which happens before any prompt.

use std::fmt;

use seal_parse::json::Value;

use crate::preset::{Executor, SandboxMode};

/// The argument key naming the sandbox mode a call asks for.
pub const SANDBOX_PERMISSIONS_KEY: &str = "sandbox_permissions";
/// The argument key carrying the reason for the escalation.
pub const JUSTIFICATION_KEY: &str = "justification";

/// The escalation fields as a call carries them, before validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EscalationFields<'a> {
    /// The `sandbox_permissions` value, if present.
    pub sandbox_permissions: Option<&'a str>,
    /// The `justification` value, if present.
    pub justification: Option<&'a str>,
}

impl<'a> EscalationFields<'a> {
    /// A request for `sandbox_permissions`, justified by `justification`: both fields, a
    /// nonblank justification and a mode strictly wider than the call's standing mode make a
    /// valid request, asked through approval and lasting one call; a partial or invalid one
    /// denies the call.
    ///
    /// ```
    /// let escalation = seal_policy::escalation::EscalationFields::new("danger-full-access", "fetch crates");
    /// assert_eq!(escalation.sandbox_permissions, Some("danger-full-access"));
    /// ```
    pub fn new(sandbox_permissions: &'a str, justification: &'a str) -> EscalationFields<'a> {
        EscalationFields {
            sandbox_permissions: Some(sandbox_permissions),
            justification: Some(justification),
        }
    }
}

/// Limits of escalation fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct EscalationLimits {
    /// Longest justification, in Unicode scalar values. Default 1,000 (it is shown to the
    /// approver inside the approval reason); longer is [`EscalationError::JustificationTooLong`].
    pub max_justification_chars: usize,
}

/// A validated escalation: a target strictly wider than the standing mode it was checked
/// against, with a nonblank justification. Only [`check_escalation`] builds one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escalation {
    from: SandboxMode,
    target: SandboxMode,
    justification: String,
}

/// Why a call's escalation fields were refused. Every case is decided before any prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EscalationError {
    /// The executor cannot sandbox, so it advertises no escalation, yet the call carries an
    /// escalation field.
    Unsupported {
        /// The first escalation key present.
        key: &'static str,
    },
    /// An escalation field is present but is not a string.
    NotAString {
        /// The key.
        key: &'static str,
    },
    /// `sandbox_permissions` is present without `justification`.
    MissingJustification,
    /// `justification` is present without `sandbox_permissions`.
    MissingSandboxPermissions,
    /// `sandbox_permissions` names no sandbox mode.
    UnknownMode {
        /// The value given.
        value: String,
    },
    /// The justification is empty, whitespace or invisible characters only.
    BlankJustification,
    /// The justification holds a control, bidi or zero-width character, which would hide or
    /// reorder what the approver reads.
    ForbiddenCharacter {
        /// The character.
        character: char,
    },
    /// The justification is longer than [`EscalationLimits::max_justification_chars`].
    JustificationTooLong {
        /// Its length in Unicode scalar values.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The requested mode is the standing mode or narrower: there is nothing to grant.
    NotWider {
        /// The mode asked for.
        requested: SandboxMode,
        /// The call's effective standing mode.
        standing: SandboxMode,
    },
    /// The requested mode is wider than the ceiling of a delegated child (its parent's
    /// standing mode): no answer can grant it.
    AboveCeiling {
        /// The mode asked for.
        requested: SandboxMode,
        /// The child's ceiling.
        ceiling: SandboxMode,
    },
}

impl EscalationLimits {
    /// The default limits: justifications of at most 1,000 characters.
    pub const DEFAULT: EscalationLimits = EscalationLimits {
        max_justification_chars: 1000,
    };

    /// The same limits with justifications of at most `max_justification_chars` characters.
    pub const fn with_max_justification_chars(
        self,
        max_justification_chars: usize,
    ) -> EscalationLimits {
        EscalationLimits {
            max_justification_chars,
        }
    }
}

impl Default for EscalationLimits {
    fn default() -> Self {
        EscalationLimits::DEFAULT
    }
}

impl<'a> EscalationFields<'a> {
    /// Reads the two fields from a call's arguments object. A field that is present but not a
    /// string is refused (it is never taken as absent). Arguments that are not an object carry
    /// no field.
    pub fn from_arguments(
        arguments: &'a Value<'_>,
    ) -> Result<EscalationFields<'a>, EscalationError> {
        let Some(object) = arguments.as_object() else {
            return Ok(EscalationFields::default());
        };
        let read = |key: &'static str| -> Result<Option<&'a str>, EscalationError> {
            match object.get(key) {
                None => Ok(None),
                Some(value) => value
                    .as_str()
                    .map(Some)
                    .ok_or(EscalationError::NotAString { key }),
            }
        };
        Ok(EscalationFields {
            sandbox_permissions: read(SANDBOX_PERMISSIONS_KEY)?,
            justification: read(JUSTIFICATION_KEY)?,
        })
    }

    /// True when neither field is present.
    pub fn is_empty(&self) -> bool {
        self.sandbox_permissions.is_none() && self.justification.is_none()
    }
}

/// Validates the escalation fields of one call against the call's effective standing mode.
///
/// `Ok(None)` when the call carries neither field. Otherwise, in order: the executor must be
/// able to sandbox; both fields must be present; the mode must be a known name; the
/// justification must be nonblank ([`is_blank_justification`]), free of forbidden characters
/// and within the limit; and the mode must be strictly wider than `standing`. A same-level or
/// narrowing request is refused here, before any prompt.
pub fn check_escalation(
    fields: &EscalationFields<'_>,
    standing: SandboxMode,
    executor: Executor,
    limits: EscalationLimits,
) -> Result<Option<Escalation>, EscalationError> {
    if fields.is_empty() {
        return Ok(None);
    }
    if !executor.can_sandbox {
        let key = if fields.sandbox_permissions.is_some() {
            SANDBOX_PERMISSIONS_KEY
        } else {
            JUSTIFICATION_KEY
        };
        return Err(EscalationError::Unsupported { key });
    }
    let (target, justification) = match (fields.sandbox_permissions, fields.justification) {
        (Some(target), Some(justification)) => (target, justification),
        (Some(_), None) => return Err(EscalationError::MissingJustification),
        _ => return Err(EscalationError::MissingSandboxPermissions),
    };
    let target = SandboxMode::from_name(target).ok_or_else(|| EscalationError::UnknownMode {
        value: target.to_owned(),
    })?;
    if is_blank_justification(justification) {
        return Err(EscalationError::BlankJustification);
    }
    if let Some(character) = justification
        .chars()
        .find(|&c| seal_record::is_forbidden_text_char(c))
    {
        return Err(EscalationError::ForbiddenCharacter { character });
    }
    let len = justification.chars().count();
    if len > limits.max_justification_chars {
        return Err(EscalationError::JustificationTooLong {
            len,
            max: limits.max_justification_chars,
        });
    }
    if !target.is_wider_than(standing) {
        return Err(EscalationError::NotWider {
            requested: target,
            standing,
        });
    }
    Ok(Some(Escalation {
        from: standing,
        target,
        justification: justification.to_owned(),
    }))
}

/// True when `text` shows nothing to a reader: every character is Unicode whitespace
/// (`char::is_whitespace`), a control, format, bidi or tag character
/// (`seal_record::is_forbidden_text_char`), or another character that renders as nothing
/// (soft hyphen, combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian
/// free variation selectors and vowel separator, variation selectors, the Braille blank).
pub fn is_blank_justification(text: &str) -> bool {
    text.chars().all(|c| {
        c.is_whitespace() || seal_record::is_forbidden_text_char(c) || renders_as_nothing(c)
    })
}

impl Escalation {
    /// The standing mode the request was checked against.
    pub fn standing(&self) -> SandboxMode {
        self.from
    }

    /// The mode asked for (strictly wider than [`Escalation::standing`]).
    pub fn target(&self) -> SandboxMode {
        self.target
    }

    /// The justification, as given.
    pub fn justification(&self) -> &str {
        &self.justification
    }

    /// The approval reason: the standing and target modes, then the justification.
    pub fn reason(&self) -> String {
        format!(
            "sandbox escalation from `{}` to `{}`: {}",
            self.from, self.target, self.justification
        )
    }
}

impl fmt::Display for EscalationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EscalationError::Unsupported { key } => write!(
                f,
                "`{key}` is not supported: the executor cannot sandbox calls"
            ),
            EscalationError::NotAString { key } => write!(f, "`{key}` must be a string"),
            EscalationError::MissingJustification => write!(
                f,
                "`{SANDBOX_PERMISSIONS_KEY}` needs a `{JUSTIFICATION_KEY}`"
            ),
            EscalationError::MissingSandboxPermissions => write!(
                f,
                "`{JUSTIFICATION_KEY}` needs a `{SANDBOX_PERMISSIONS_KEY}`"
            ),
            EscalationError::UnknownMode { value } => {
                write!(f, "`{}` is not a sandbox mode", value.escape_debug())
            }
            EscalationError::BlankJustification => {
                write!(f, "the `{JUSTIFICATION_KEY}` is blank")
            }
            EscalationError::ForbiddenCharacter { character } => write!(
                f,
                "the `{JUSTIFICATION_KEY}` holds the character `{}`",
                character.escape_unicode()
            ),
            EscalationError::JustificationTooLong { len, max } => write!(
                f,
                "the `{JUSTIFICATION_KEY}` has {len} characters, more than {max}"
            ),
            EscalationError::NotWider {
                requested,
                standing,
            } => write!(
                f,
                "escalation to `{requested}` is not wider than the standing mode `{standing}`"
            ),
            EscalationError::AboveCeiling { requested, ceiling } => write!(
                f,
                "escalation to `{requested}` is wider than `{ceiling}`, the most this delegated session may hold"
            ),
        }
    }
}

impl std::error::Error for EscalationError {}

fn renders_as_nothing(c: char) -> bool {
    matches!(
        c,
        '\u{00ad}'
            | '\u{034f}'
            | '\u{115f}'
            | '\u{1160}'
            | '\u{17b4}'
            | '\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{2800}'
            | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{ffa0}'
            | '\u{e0100}'..='\u{e01ef}'
    )
}
