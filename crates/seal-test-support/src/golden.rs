//! Golden-vector files: text that does not depend on serde_json's map order or on how a viewer
//! shows non-ASCII characters, and the check of a committed file against the code.
//!
//! A golden test generates its vectors, then calls [`check_text_or_regenerate`] (byte-exact)
//! or [`check_json_or_regenerate`] (equal as JSON values). With `SEAL_REGENERATE=1` in the
//! environment the file is rewritten first, for review of the diff: a changed vector is a
//! changed wire format.

#![allow(clippy::panic)]

use std::path::{Path, PathBuf};

use serde_json::Value;

/// `value` with every object's keys in byte order, at every depth.
///
/// Golden text must not depend on serde_json's map order: another crate in the workspace may
/// enable its `preserve_order` feature.
pub fn sorted_keys(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.clone(), sorted_keys(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted_keys).collect()),
        other => other.clone(),
    }
}

/// `value` as pretty-printed JSON with sorted keys ([`sorted_keys`]) and a final newline.
///
/// ```
/// let text = seal_test_support::pretty_sorted(&serde_json::json!({"b": 1, "a": "é"}));
/// assert_eq!(text, "{\n  \"a\": \"é\",\n  \"b\": 1\n}\n");
/// ```
pub fn pretty_sorted(value: &Value) -> String {
    let mut text = match serde_json::to_string_pretty(&sorted_keys(value)) {
        Ok(text) => text,
        Err(error) => panic!("a JSON value does not print: {error}"),
    };
    text.push('\n');
    text
}

/// `json` with every non-ASCII character and DEL written as `\uXXXX` escapes (a UTF-16 pair for
/// characters outside the basic plane), so a vector file shows bidi controls and invisible
/// characters as what they are.
///
/// In JSON text such characters occur only inside strings, where the escape means the same
/// character: the result parses to the same value.
///
/// ```
/// assert_eq!(seal_test_support::ascii_only("\"a\u{7f}é😀\""), "\"a\\u007f\\u00e9\\ud83d\\ude00\"");
/// ```
pub fn ascii_only(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() && c != '\u{7f}' {
            out.push(c);
        } else {
            for unit in c.encode_utf16(&mut [0; 2]) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

/// The text of a golden-vector file: [`pretty_sorted`], then [`ascii_only`].
pub fn golden_text(value: &Value) -> String {
    ascii_only(&pretty_sorted(value))
}

/// The path of the golden-vector file `name` in the workspace's `spec/vectors/` folder, where
/// every crate's golden tests keep their files.
///
/// ```
/// let path = seal_test_support::spec_vector("frame-v1.json");
/// assert!(path.ends_with("spec/vectors/frame-v1.json"));
/// ```
pub fn spec_vector(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../spec/vectors")
        .join(name)
}

/// The committed golden-vector file `name` ([`spec_vector`]), parsed as JSON, for the checks
/// that read the committed vectors independently of their generation.
///
/// # Panics
///
/// When the file is missing or is not JSON.
pub fn committed_vector(name: &str) -> Value {
    let path = spec_vector(name);
    match serde_json::from_str(&read(&path)) {
        Ok(value) => value,
        Err(error) => panic!("{} is not JSON: {error}", path.display()),
    }
}

/// Whether this run rewrites golden files: `SEAL_REGENERATE=1` is in the environment.
pub fn regenerating() -> bool {
    std::env::var_os("SEAL_REGENERATE").is_some_and(|v| v == "1")
}

/// Checks that the committed file at `path` holds exactly `generated`; when [`regenerating`],
/// writes `generated` there first (creating its folder).
///
/// # Panics
///
/// When the file is missing or its bytes differ from `generated`.
pub fn check_text_or_regenerate(path: impl AsRef<Path>, generated: &str) {
    let path = path.as_ref();
    if regenerating() {
        write(path, generated);
    }
    let committed = read(path);
    assert!(
        committed == generated,
        "{} differs from what the code produces; if the change is intended, run with SEAL_REGENERATE=1 and review the diff",
        path.display()
    );
}

/// Checks that the committed file at `path` parses to the JSON value `generated`; when
/// [`regenerating`], writes `text(generated)` there first (creating its folder). Returns the
/// committed text, for checks of its form.
///
/// # Panics
///
/// When the file is missing, is not JSON, or holds another value.
pub fn check_json_or_regenerate(
    path: impl AsRef<Path>,
    generated: &Value,
    text: fn(&Value) -> String,
) -> String {
    let path = path.as_ref();
    if regenerating() {
        write(path, &text(generated));
    }
    let committed_text = read(path);
    let committed: Value = match serde_json::from_str(&committed_text) {
        Ok(value) => value,
        Err(error) => panic!("{} is not JSON: {error}", path.display()),
    };
    assert!(
        committed == *generated,
        "{} differs from what the code produces; if the change is intended, run with SEAL_REGENERATE=1 and review the diff",
        path.display()
    );
    committed_text
}

fn write(path: &Path, text: &str) {
    if let Some(folder) = path.parent() {
        if let Err(error) = std::fs::create_dir_all(folder) {
            panic!("cannot create {}: {error}", folder.display());
        }
    }
    if let Err(error) = std::fs::write(path, text) {
        panic!("cannot write {}: {error}", path.display());
    }
}

fn read(path: &Path) -> String {
    match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) => panic!(
            "{} cannot be read ({error}); run with SEAL_REGENERATE=1 to write it",
            path.display()
        ),
    }
}
