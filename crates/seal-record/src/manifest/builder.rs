//! The manifest builder: the one place the rules of spec/manifest-v1.md are enforced.

use seal_parse::json::MAX_EXACT_INTEGER;

use super::PURPOSE_MAX_CHARS;
use super::{DisclosedFile, LineRange, Manifest, ManifestError, ManifestLimits, Redaction};
use crate::digest::Sha256Digest;
use crate::path::canonical_path;
use crate::text::{is_identifier, text_problem, TextProblem};

/// Collects the fields of a manifest; [`ManifestBuilder::build`] checks every rule and names the
/// first one broken.
///
/// ```
/// use seal_record::{LineRange, Manifest, ManifestLimits, Sha256Digest};
///
/// let manifest = Manifest::builder()
///     .run_id("run-1")
///     .provider("example")
///     .model("model-1")
///     .purpose("review the parser")
///     .file("src/./lib.rs", Sha256Digest::of(b"file"), &[LineRange {
///         start: 1,
///         end: 10,
///         sha256: Sha256Digest::of(b"lines"),
///     }])
///     .redaction("api-key", 2)
///     .estimated_tokens(1200)
///     .payload_sha256(Sha256Digest::of(b"payload"))
///     .policy_sha256(Sha256Digest::of(b"policy"))
///     .build(&ManifestLimits::default())?;
/// assert_eq!(manifest.files()[0].path().as_str(), "src/lib.rs");
/// # Ok::<(), seal_record::ManifestError>(())
/// ```
#[derive(Debug, Clone, Default)]
#[must_use]
pub struct ManifestBuilder {
    run_id: Option<String>,
    provider: Option<String>,
    model: Option<String>,
    purpose: Option<String>,
    files: Vec<(String, Sha256Digest, Vec<LineRange>)>,
    redactions: Vec<(String, u64)>,
    external_tools: Vec<String>,
    estimated_tokens: Option<u64>,
    payload_sha256: Option<Sha256Digest>,
    policy_sha256: Option<Sha256Digest>,
    /// The first line range [`ManifestBuilder::file_contents`] could not take.
    line_error: Option<ManifestError>,
}

impl ManifestBuilder {
    /// A builder with no field set.
    pub fn new() -> ManifestBuilder {
        ManifestBuilder::default()
    }

    /// Sets the run id (an identifier: printable ASCII without space).
    pub fn run_id(mut self, run_id: &str) -> Self {
        self.run_id = Some(run_id.to_owned());
        self
    }

    /// Sets the model provider (text).
    pub fn provider(mut self, provider: &str) -> Self {
        self.provider = Some(provider.to_owned());
        self
    }

    /// Sets the model (text).
    pub fn model(mut self, model: &str) -> Self {
        self.model = Some(model.to_owned());
        self
    }

    /// Sets the purpose (text of at most [`PURPOSE_MAX_CHARS`] Unicode scalar values).
    pub fn purpose(mut self, purpose: &str) -> Self {
        self.purpose = Some(purpose.to_owned());
        self
    }

    /// Adds a disclosed file: its path (canonicalized by [`canonical_path`] at build), the SHA-256
    /// of the whole file and the sent line ranges in order.
    pub fn file(mut self, path: &str, sha256: Sha256Digest, ranges: &[LineRange]) -> Self {
        self.files.push((path.to_owned(), sha256, ranges.to_vec()));
        self
    }

    /// Adds a redaction type with its count.
    pub fn redaction(mut self, kind: &str, count: u64) -> Self {
        self.redactions.push((kind.to_owned(), count));
        self
    }

    /// Adds an external tool the run may call.
    pub fn external_tool(mut self, name: &str) -> Self {
        self.external_tools.push(name.to_owned());
        self
    }

    /// Sets the estimated number of tokens sent.
    pub fn estimated_tokens(mut self, tokens: u64) -> Self {
        self.estimated_tokens = Some(tokens);
        self
    }

    /// Adds a file whose `lines` (1-based, inclusive `(start, end)` pairs) are sent, given its
    /// whole `contents`: the file's digest and each range's digest (of the exact bytes of those
    /// lines, line terminators included; a last line without LF counts) are computed here. A
    /// range that is empty, starts at 0 or goes past the last line is
    /// [`ManifestError::LineRange`] at [`ManifestBuilder::build`].
    pub fn file_contents(self, path: &str, contents: &[u8], lines: &[(u64, u64)]) -> Self {
        let mut starts: Vec<usize> = Vec::new();
        if !contents.is_empty() {
            starts.push(0);
        }
        let ends = contents
            .iter()
            .enumerate()
            .filter(|(_, byte)| **byte == b'\n');
        starts.extend(
            ends.map(|(index, _)| index + 1)
                .filter(|&next| next < contents.len()),
        );
        let count = starts.len() as u64;
        let slice = |start: u64, end: u64| {
            let from = *starts.get(usize::try_from(start.checked_sub(1)?).ok()?)?;
            let to = match starts.get(usize::try_from(end).ok()?) {
                Some(next) => *next,
                None => contents.len(),
            };
            contents.get(from..to)
        };
        let mut ranges = Vec::with_capacity(lines.len());
        let mut error = None;
        for &(start, end) in lines {
            match slice(start, end).filter(|_| start >= 1 && start <= end && end <= count) {
                Some(bytes) => ranges.push(LineRange {
                    start,
                    end,
                    sha256: Sha256Digest::of(bytes),
                }),
                None => {
                    error.get_or_insert(ManifestError::LineRange {
                        path: path.to_owned(),
                        start,
                        end,
                        lines: count,
                    });
                }
            }
        }
        let mut builder = self.file(path, Sha256Digest::of(contents), &ranges);
        if let Some(error) = error {
            builder.line_error.get_or_insert(error);
        }
        builder
    }

    /// Sets the SHA-256 of the payload from the payload's bytes.
    pub fn payload(self, payload: &[u8]) -> Self {
        self.payload_sha256(Sha256Digest::of(payload))
    }

    /// Sets the SHA-256 of the payload.
    pub fn payload_sha256(mut self, digest: Sha256Digest) -> Self {
        self.payload_sha256 = Some(digest);
        self
    }

    /// Sets the SHA-256 of the policy.
    pub fn policy_sha256(mut self, digest: Sha256Digest) -> Self {
        self.policy_sha256 = Some(digest);
        self
    }

    /// Checks every rule, in the order of spec/manifest-v1.md, and returns the manifest or the
    /// first rule broken.
    pub fn build(self, limits: &ManifestLimits) -> Result<Manifest, ManifestError> {
        if let Some(error) = self.line_error {
            return Err(error);
        }
        let run_id = required(self.run_id, "run_id")?;
        check_identifier("run_id", &run_id, limits.max_identifier_bytes)?;
        let provider = required(self.provider, "provider")?;
        check_text("provider", &provider, limits.max_name_chars)?;
        let model = required(self.model, "model")?;
        check_text("model", &model, limits.max_name_chars)?;
        let purpose = required(self.purpose, "purpose")?;
        check_text("purpose", &purpose, PURPOSE_MAX_CHARS)?;
        let files = build_files(self.files, limits)?;
        let redactions = build_redactions(self.redactions, limits)?;
        let external_tools = build_tools(self.external_tools, limits)?;
        let estimated_tokens = required(self.estimated_tokens, "estimated_tokens")?;
        check_number("estimated_tokens", estimated_tokens)?;
        let payload_sha256 = required(self.payload_sha256, "payload_sha256")?;
        let policy_sha256 = required(self.policy_sha256, "policy_sha256")?;
        Ok(Manifest {
            run_id,
            provider,
            model,
            purpose,
            files,
            redactions,
            external_tools,
            estimated_tokens,
            payload_sha256,
            policy_sha256,
        })
    }
}

fn required<T>(value: Option<T>, field: &str) -> Result<T, ManifestError> {
    value.ok_or_else(|| ManifestError::MissingField {
        field: field.to_owned(),
    })
}

fn check_identifier(field: &str, value: &str, max: usize) -> Result<(), ManifestError> {
    if value.len() > max {
        return Err(ManifestError::TooLong {
            field: field.to_owned(),
            len: value.len(),
            max,
        });
    }
    if !is_identifier(value, max) {
        return Err(ManifestError::InvalidIdentifier {
            field: field.to_owned(),
            value: value.to_owned(),
        });
    }
    Ok(())
}

fn check_text(field: &str, value: &str, max: usize) -> Result<(), ManifestError> {
    match text_problem(value, max) {
        None => Ok(()),
        Some(TextProblem::Blank) => Err(ManifestError::BlankField {
            field: field.to_owned(),
        }),
        Some(TextProblem::ForbiddenChar(character)) => Err(ManifestError::ForbiddenCharacter {
            field: field.to_owned(),
            character,
        }),
        Some(TextProblem::TooLong(len)) => Err(ManifestError::TooLong {
            field: field.to_owned(),
            len,
            max,
        }),
    }
}

fn check_number(field: &str, value: u64) -> Result<(), ManifestError> {
    if value > MAX_EXACT_INTEGER {
        return Err(ManifestError::NumberOutOfRange {
            field: field.to_owned(),
            value,
        });
    }
    Ok(())
}

fn check_count(field: &str, count: usize, max: usize) -> Result<(), ManifestError> {
    if count > max {
        return Err(ManifestError::TooMany {
            field: field.to_owned(),
            count,
            max,
        });
    }
    Ok(())
}

fn build_files(
    raw: Vec<(String, Sha256Digest, Vec<LineRange>)>,
    limits: &ManifestLimits,
) -> Result<Vec<DisclosedFile>, ManifestError> {
    check_count("files", raw.len(), limits.max_files)?;
    let mut files = Vec::with_capacity(raw.len());
    for (index, (path, sha256, ranges)) in raw.into_iter().enumerate() {
        let path = canonical_path(&path).map_err(|error| ManifestError::InvalidPath {
            field: format!("files[{index}].path"),
            error,
        })?;
        check_count(
            &format!("files[{index}].ranges"),
            ranges.len(),
            limits.max_ranges_per_file,
        )?;
        check_ranges(path.as_str(), &ranges)?;
        files.push(DisclosedFile {
            path,
            sha256,
            ranges,
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    for pair in files.windows(2) {
        if let [a, b] = pair {
            if a.path == b.path {
                return Err(ManifestError::DuplicateFile {
                    path: b.path.as_str().to_owned(),
                });
            }
        }
    }
    Ok(files)
}

fn check_ranges(path: &str, ranges: &[LineRange]) -> Result<(), ManifestError> {
    if ranges.is_empty() {
        return Err(ManifestError::NoRanges {
            path: path.to_owned(),
        });
    }
    let mut previous: Option<&LineRange> = None;
    for range in ranges {
        if range.start == 0 || range.start > range.end || range.end > MAX_EXACT_INTEGER {
            return Err(ManifestError::InvalidRange {
                path: path.to_owned(),
                start: range.start,
                end: range.end,
            });
        }
        if let Some(previous) = previous {
            if range.start < previous.start {
                return Err(ManifestError::UnorderedRanges {
                    path: path.to_owned(),
                    previous_start: previous.start,
                    start: range.start,
                });
            }
            if range.start <= previous.end {
                return Err(ManifestError::OverlappingRanges {
                    path: path.to_owned(),
                    previous_end: previous.end,
                    start: range.start,
                });
            }
        }
        previous = Some(range);
    }
    Ok(())
}

fn build_redactions(
    raw: Vec<(String, u64)>,
    limits: &ManifestLimits,
) -> Result<Vec<Redaction>, ManifestError> {
    check_count("redactions", raw.len(), limits.max_redactions)?;
    let mut redactions = Vec::with_capacity(raw.len());
    for (index, (kind, count)) in raw.into_iter().enumerate() {
        check_identifier(
            &format!("redactions[{index}].type"),
            &kind,
            limits.max_identifier_bytes,
        )?;
        if count == 0 {
            return Err(ManifestError::ZeroRedactionCount { kind });
        }
        check_number(&format!("redactions[{index}].count"), count)?;
        redactions.push(Redaction { kind, count });
    }
    redactions.sort_by(|a, b| a.kind.cmp(&b.kind));
    for pair in redactions.windows(2) {
        if let [a, b] = pair {
            if a.kind == b.kind {
                return Err(ManifestError::DuplicateRedaction {
                    kind: b.kind.clone(),
                });
            }
        }
    }
    Ok(redactions)
}

fn build_tools(
    mut tools: Vec<String>,
    limits: &ManifestLimits,
) -> Result<Vec<String>, ManifestError> {
    check_count("external_tools", tools.len(), limits.max_external_tools)?;
    for (index, tool) in tools.iter().enumerate() {
        check_identifier(
            &format!("external_tools[{index}]"),
            tool,
            limits.max_identifier_bytes,
        )?;
    }
    tools.sort();
    for pair in tools.windows(2) {
        if let [a, b] = pair {
            if a == b {
                return Err(ManifestError::DuplicateExternalTool { name: b.clone() });
            }
        }
    }
    Ok(tools)
}
