//! The JSON form of a manifest: writing it, and reading a stored one strictly.

use seal_parse::json::{parse, Number, Object, Value};

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
    let top = as_object(&value, "$")?;
    let kind = string(top, "_type", "")?;
    if kind != MANIFEST_TYPE {
        return Err(ManifestError::WrongRecordType {
            found: kind.to_owned(),
        });
    }
    check_members(top, &TOP_FIELDS, "")?;
    let version = member(top, "version", "")?;
    if version.as_number().and_then(Number::as_i64) != Some(1) {
        return Err(ManifestError::UnsupportedVersion {
            found: String::from_utf8_lossy(&version.canonical_bytes()).into_owned(),
        });
    }
    let mut builder = Manifest::builder()
        .run_id(string(top, "run_id", "")?)
        .provider(string(top, "provider", "")?)
        .model(string(top, "model", "")?)
        .purpose(string(top, "purpose", "")?);

    let files = array(top, "files", "")?;
    check_limit("files", files.len(), limits.max_files)?;
    let mut stored_paths = Vec::with_capacity(files.len());
    for (index, file) in files.iter().enumerate() {
        let at = format!("files[{index}]");
        let file = as_object(file, &at)?;
        check_members(file, &FILE_FIELDS, &at)?;
        let path = string(file, "path", &at)?;
        let sha256 = digest(file, "sha256", &at)?;
        let ranges_at = format!("{at}.ranges");
        let raw_ranges = array(file, "ranges", &at)?;
        check_limit(&ranges_at, raw_ranges.len(), limits.max_ranges_per_file)?;
        let mut ranges = Vec::with_capacity(raw_ranges.len());
        for (index, range) in raw_ranges.iter().enumerate() {
            let at = format!("{ranges_at}[{index}]");
            let range = as_object(range, &at)?;
            check_members(range, &RANGE_FIELDS, &at)?;
            ranges.push(LineRange {
                start: unsigned(range, "start", &at)?,
                end: unsigned(range, "end", &at)?,
                sha256: digest(range, "sha256", &at)?,
            });
        }
        stored_paths.push(path);
        builder = builder.file(path, sha256, &ranges);
    }

    let redactions = array(top, "redactions", "")?;
    check_limit("redactions", redactions.len(), limits.max_redactions)?;
    let mut stored_kinds = Vec::with_capacity(redactions.len());
    for (index, redaction) in redactions.iter().enumerate() {
        let at = format!("redactions[{index}]");
        let redaction = as_object(redaction, &at)?;
        check_members(redaction, &REDACTION_FIELDS, &at)?;
        let kind = string(redaction, "type", &at)?;
        stored_kinds.push(kind);
        builder = builder.redaction(kind, unsigned(redaction, "count", &at)?);
    }

    let tools = array(top, "external_tools", "")?;
    check_limit("external_tools", tools.len(), limits.max_external_tools)?;
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
        .estimated_tokens(unsigned(top, "estimated_tokens", "")?)
        .payload_sha256(digest(top, "payload_sha256", "")?)
        .policy_sha256(digest(top, "policy_sha256", "")?)
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

fn field_name(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.to_owned()
    } else {
        format!("{at}.{name}")
    }
}

fn as_object<'v, 'a>(value: &'v Value<'a>, at: &str) -> Result<&'v Object<'a>, ManifestError> {
    value.as_object().ok_or_else(|| ManifestError::WrongType {
        field: at.to_owned(),
        expected: "an object",
    })
}

fn check_members(object: &Object<'_>, known: &[&str], at: &str) -> Result<(), ManifestError> {
    if let Some((key, _)) = object.iter().find(|(key, _)| !known.contains(key)) {
        return Err(ManifestError::UnknownField {
            field: field_name(at, key),
        });
    }
    Ok(())
}

fn member<'v, 'a>(
    object: &'v Object<'a>,
    name: &str,
    at: &str,
) -> Result<&'v Value<'a>, ManifestError> {
    object.get(name).ok_or_else(|| ManifestError::MissingField {
        field: field_name(at, name),
    })
}

fn string<'v>(object: &'v Object<'_>, name: &str, at: &str) -> Result<&'v str, ManifestError> {
    member(object, name, at)?
        .as_str()
        .ok_or_else(|| ManifestError::WrongType {
            field: field_name(at, name),
            expected: "a string",
        })
}

fn array<'v, 'a>(
    object: &'v Object<'a>,
    name: &str,
    at: &str,
) -> Result<&'v [Value<'a>], ManifestError> {
    member(object, name, at)?
        .as_array()
        .ok_or_else(|| ManifestError::WrongType {
            field: field_name(at, name),
            expected: "an array",
        })
}

fn unsigned(object: &Object<'_>, name: &str, at: &str) -> Result<u64, ManifestError> {
    member(object, name, at)?
        .as_number()
        .and_then(Number::as_i64)
        .and_then(|value| u64::try_from(value).ok())
        .ok_or_else(|| ManifestError::WrongType {
            field: field_name(at, name),
            expected: "a non-negative integer",
        })
}

fn digest(object: &Object<'_>, name: &str, at: &str) -> Result<Sha256Digest, ManifestError> {
    let text = string(object, name, at)?;
    Sha256Digest::from_hex(text).map_err(|_| ManifestError::InvalidDigest {
        field: field_name(at, name),
        text: text.to_owned(),
    })
}

fn check_limit(field: &str, count: usize, max: usize) -> Result<(), ManifestError> {
    if count > max {
        return Err(ManifestError::TooMany {
            field: field.to_owned(),
            count,
            max,
        });
    }
    Ok(())
}
