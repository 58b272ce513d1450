//! The typed field of a call, read once for matching: a command's segments, a placed path, a
//! URL's host, a name.

use seal_parse::shell::{segment_into, SegmentBuffer, SegmentsRef};

use crate::chain::{url_host, Subject};

use super::evaluation::{Input, Unanalysed};
use super::index::Applicable;
use super::placed::{place, Placed};
use super::rule::{FieldKind, Specifier};
use super::set::RuleSet;

/// The typed field, ready for matching.
pub(super) enum Field<'b> {
    /// The segments, in a buffer, and the command as written.
    Command(SegmentsRef<'b>, &'b str),
    Path(Placed),
    Host(String),
    Name(&'b str),
    /// Only rules without a specifier apply.
    Opaque,
    /// Rules without a specifier apply (and, for a command, deny and ask rules matching the
    /// command as written); no rule may allow.
    Unanalysed(Unanalysed, Option<&'b str>),
}

impl RuleSet {
    pub(super) fn field<'b>(
        &self,
        rules: Applicable<'_>,
        subject: Subject<'b>,
        input: Input,
        buffer: &'b mut SegmentBuffer,
    ) -> Field<'b> {
        let kind = FieldKind::of(rules.tool);
        let specified = rules
            .iter()
            .any(|(_, e)| !matches!(e.rule.specifier(), Specifier::Any));
        let unanalysed = |code: &'static str, reason: String| {
            Field::Unanalysed(
                Unanalysed {
                    input,
                    code,
                    reason,
                },
                None,
            )
        };
        match (kind, subject) {
            (FieldKind::Command, Subject::Command(command)) => {
                match segment_into(command, &self.limits.shell, buffer) {
                    Ok(segments) => Field::Command(segments, command),
                    Err(e) => Field::Unanalysed(
                        Unanalysed {
                            input,
                            code: e.reason.code(),
                            reason: e.to_string(),
                        },
                        Some(command),
                    ),
                }
            }
            (FieldKind::Command, _) => unanalysed(
                "field_missing",
                "the call gives no command to check rules against".to_owned(),
            ),
            (FieldKind::Path, Subject::Path(path)) => {
                match place(path, self.workspace_root.as_deref()) {
                    Ok(placed) => Field::Path(placed),
                    Err(why) if specified => {
                        unanalysed("path_outside_workspace", format!("path `{path}`: {why}"))
                    }
                    Err(_) => Field::Opaque,
                }
            }
            (FieldKind::Url, Subject::Url(url)) => match url_host(url) {
                Ok(host) => Field::Host(host),
                Err(why) if specified => unanalysed("url_not_plain", format!("URL `{url}`: {why}")),
                Err(_) => Field::Opaque,
            },
            (FieldKind::Name, Subject::Name(name)) => Field::Name(name),
            (FieldKind::Path | FieldKind::Url | FieldKind::Name, _) if specified => unanalysed(
                "field_missing",
                "the call gives no field for the tool's rules to check".to_owned(),
            ),
            _ => Field::Opaque,
        }
    }
}
