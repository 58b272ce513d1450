//! The JSON form of a manifest: writing it, and reading a stored one strictly.

use seal_parse::json::{parse, FieldError, FieldErrorKind, Fields, Number, Value};

use super::{DisclosedFile, LineRange, Manifest, ManifestError, ManifestLimits, Redaction};
use super::{MANIFEST_TYPE, MANIFEST_VERSION};
use crate::digest::Sha256Digest;
use crate::json_form::{number, object};
use crate::path::canonical_path;

const TOP_FIELDS: [&str; 12] = [
    "_type",
    "version",
    "run_id",
    "provider",
    "model",
    "purpose",
    "files",
    "redactions",
    "external_tools",
    "estimated_tokens",
    "payload_sha256",
    "policy_sha256",
];
const FILE_FIELDS: [&str; 3] = ["path", "sha256", "ranges"];
const RANGE_FIELDS: [&str; 3] = ["start", "end", "sha256"];
const REDACTION_FIELDS: [&str; 2] = ["type", "count"];

pub(super) fn to_value(manifest: &Manifest) -> Value<'_> {
    let files = manifest.files.iter().map(file_value).collect::<Vec<_>>();
    let redactions = manifest
        .redactions
        .iter()
        .map(|redaction| {
            object(vec![
                ("type", Value::from(redaction.kind.as_str())),
                ("count", number(redaction.count)),
            ])
        })
        .collect::<Vec<_>>();
    let tools = manifest
        .external_tools
        .iter()
        .map(|tool| Value::from(tool.as_str()))
        .collect::<Vec<_>>();
    object(vec![
        ("_type", Value::from(MANIFEST_TYPE)),
        ("version", number(MANIFEST_VERSION)),
        ("run_id", Value::from(manifest.run_id.as_str())),
        ("provider", Value::from(manifest.provider.as_str())),
        ("model", Value::from(manifest.model.as_str())),
        ("purpose", Value::from(manifest.purpose.as_str())),
        ("files", Value::Array(files)),
        ("redactions", Value::Array(redactions)),
        ("external_tools", Value::Array(tools)),
        ("estimated_tokens", number(manifest.estimated_tokens)),
        (
            "payload_sha256",
            Value::from(manifest.payload_sha256.to_hex()),
        ),
        (
            "policy_sha256",
            Value::from(manifest.policy_sha256.to_hex()),
        ),
    ])
}

pub(super) fn from_json(input: &[u8], limits: &ManifestLimits) -> Result<Manifest, ManifestError> {
    let value = parse(input, &limits.json).map_err(ManifestError::Json)?;
    let mut top = Fields::of(&value, "")?;
    let kind = top.string("_type")?;
    if kind != MANIFEST_TYPE {
        return Err(ManifestError::WrongRecordType {
            found: kind.to_owned(),
        });
    }
    top.only(&TOP_FIELDS)?;
    let version = top.value("version")?;
    if version.as_number().and_then(Number::as_i64) != Some(1) {
        return Err(ManifestError::UnsupportedVersion {
            found: String::from_utf8_lossy(&version.canonical_bytes()).into_owned(),
        });
    }
    let mut builder = Manifest::builder()
        .run_id(top.string("run_id")?)
        .provider(top.string("provider")?)
        .model(top.string("model")?)
        .purpose(top.string("purpose")?);

    let files = top.array("files", limits.max_files)?;
    let mut stored_paths = Vec::with_capacity(files.len());
    for (index, file) in files.iter().enumerate() {
        let mut file = Fields::of(file, &format!("files[{index}]"))?;
        file.only(&FILE_FIELDS)?;
        let path = file.string("path")?;
        let sha256 = digest(&mut file, "sha256")?;
        let raw_ranges = file.array("ranges", limits.max_ranges_per_file)?;
        let mut ranges = Vec::with_capacity(raw_ranges.len());
        for (index, range) in raw_ranges.iter().enumerate() {
            let mut range = Fields::of(range, &format!("{}[{index}]", file.path("ranges")))?;
            range.only(&RANGE_FIELDS)?;
            ranges.push(LineRange {
                start: range.integer("start")?,
                end: range.integer("end")?,
                sha256: digest(&mut range, "sha256")?,
            });
        }
        stored_paths.push(path);
        builder = builder.file(path, sha256, &ranges);
    }

    let redactions = top.array("redactions", limits.max_redactions)?;
    let mut stored_kinds = Vec::with_capacity(redactions.len());
    for (index, redaction) in redactions.iter().enumerate() {
        let mut redaction = Fields::of(redaction, &format!("redactions[{index}]"))?;
        redaction.only(&REDACTION_FIELDS)?;
        let kind = redaction.string("type")?;
        stored_kinds.push(kind);
        builder = builder.redaction(kind, redaction.integer("count")?);
    }

    let tools = top.array("external_tools", limits.max_external_tools)?;
    let mut stored_tools = Vec::with_capacity(tools.len());
    for (index, tool) in tools.iter().enumerate() {
        let tool = tool.as_str().ok_or_else(|| ManifestError::WrongType {
            field: format!("external_tools[{index}]"),
            expected: "a string",
        })?;
        stored_tools.push(tool);
        builder = builder.external_tool(tool);
    }

    let manifest = builder
        .estimated_tokens(top.integer("estimated_tokens")?)
        .payload_sha256(digest(&mut top, "payload_sha256")?)
        .policy_sha256(digest(&mut top, "policy_sha256")?)
        .build(limits)?;

    for path in &stored_paths {
        let canonical = canonical_path(path).map_err(|error| ManifestError::InvalidPath {
            field: "files".to_owned(),
            error,
        })?;
        if canonical.as_str() != *path {
            return Err(ManifestError::NonCanonicalPath {
                path: (*path).to_owned(),
                canonical: canonical.as_str().to_owned(),
            });
        }
    }
    let built_paths = manifest.files.iter().map(|file| file.path.as_str());
    if !built_paths.eq(stored_paths.iter().copied()) {
        return Err(ManifestError::NotInCanonicalOrder {
            field: "files".to_owned(),
        });
    }
    if !manifest
        .redactions
        .iter()
        .map(Redaction::kind)
        .eq(stored_kinds.iter().copied())
    {
        return Err(ManifestError::NotInCanonicalOrder {
            field: "redactions".to_owned(),
        });
    }
    if !manifest
        .external_tools
        .iter()
        .map(String::as_str)
        .eq(stored_tools.iter().copied())
    {
        return Err(ManifestError::NotInCanonicalOrder {
            field: "external_tools".to_owned(),
        });
    }
    Ok(manifest)
}

fn file_value(file: &DisclosedFile) -> Value<'_> {
    let ranges = file
        .ranges
        .iter()
        .map(|range| {
            object(vec![
                ("start", number(range.start)),
                ("end", number(range.end)),
                ("sha256", Value::from(range.sha256.to_hex())),
            ])
        })
        .collect::<Vec<_>>();
    object(vec![
        ("path", Value::from(file.path.as_str())),
        ("sha256", Value::from(file.sha256.to_hex())),
        ("ranges", Value::Array(ranges)),
    ])
}

impl From<FieldError> for ManifestError {
    fn from(error: FieldError) -> ManifestError {
        let field = match error.path() {
            path if path.is_empty() => "$".to_owned(),
            path => path,
        };
        match error.kind {
            FieldErrorKind::Missing { .. } => ManifestError::MissingField { field },
            FieldErrorKind::Unknown { .. } => ManifestError::UnknownField { field },
            FieldErrorKind::WrongType { expected, .. } => {
                ManifestError::WrongType { field, expected }
            }
            FieldErrorKind::NotAnInteger { .. } => ManifestError::WrongType {
                field,
                expected: "a non-negative integer",
            },
            FieldErrorKind::TooMany { count, max, .. } => {
                ManifestError::TooMany { field, count, max }
            }
            // `NotAnObject`, and any refusal added later.
            _ => ManifestError::WrongType {
                field,
                expected: "an object",
            },
        }
    }
}

/// The SHA-256 digest (lowercase hex) member `name` of `fields`.
fn digest(fields: &mut Fields<'_, '_>, name: &'static str) -> Result<Sha256Digest, ManifestError> {
    let field = fields.path(name);
    let text = fields.string(name)?;
    Sha256Digest::from_hex(text).map_err(|_| ManifestError::InvalidDigest {
        field,
        text: text.to_owned(),
    })
}
