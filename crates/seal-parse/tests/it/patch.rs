//! The Codex `apply_patch` header reader (spec/apply-patch.md): hostile cases, every error with
//! its line, the limits, and properties with a naive oracle and negative controls (fixed-seed
//! runners).

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use seal_parse::patch::{Operation, Patch, PatchError, PatchLimits};

fn paths(text: &str) -> Result<Vec<(Operation, String, usize)>, PatchError> {
    let patch = Patch::parse(text.as_bytes(), &PatchLimits::default())?;
    Ok(patch
        .paths()
        .iter()
        .map(|p| (p.operation, p.path.to_owned(), p.line))
        .collect())
}

fn ops(text: &str) -> Vec<(Operation, String)> {
    paths(text)
        .unwrap_or_else(|e| panic!("{e}: {text:?}"))
        .into_iter()
        .map(|(op, path, _)| (op, path))
        .collect()
}

fn error(text: &str) -> PatchError {
    match paths(text) {
        Ok(found) => panic!("accepted {text:?}: {found:?}"),
        Err(error) => error,
    }
}

fn own(list: &[(Operation, &str)]) -> Vec<(Operation, String)> {
    list.iter().map(|(op, p)| (*op, (*p).to_owned())).collect()
}

use Operation::{Add, Delete, MoveDestination, MoveSource, Update};

#[test]
fn every_operation_in_order() {
    let text = "*** Begin Patch\n\
                *** Add File: src/new.rs\n\
                +fn main() {}\n\
                *** Update File: src/lib.rs\n\
                @@ fn parse\n \
                context\n\
                -old\n\
                +new\n\
                *** Update File: src/a.rs\n\
                *** Move to: src/b.rs\n\
                @@\n\
                -x\n\
                +y\n\
                *** End of File\n\
                *** Delete File: old.txt\n\
                *** End Patch\n";
    assert_eq!(
        paths(text).unwrap(),
        vec![
            (Add, "src/new.rs".into(), 2),
            (Update, "src/lib.rs".into(), 4),
            (MoveSource, "src/a.rs".into(), 9),
            (MoveDestination, "src/b.rs".into(), 10),
            (Delete, "old.txt".into(), 15),
        ]
    );
}

#[test]
fn empty_patch_touches_nothing() {
    assert_eq!(ops("*** Begin Patch\n*** End Patch"), vec![]);
}

#[test]
fn add_file_may_be_empty_and_update_may_omit_the_first_at_at() {
    assert_eq!(
        ops("*** Begin Patch\n*** Add File: empty\n*** Update File: f\n import x\n+y\n*** End Patch"),
        own(&[(Add, "empty"), (Update, "f")])
    );
}

#[test]
fn paths_are_kept_as_written() {
    // `..`, absolute paths and spaces are the rules' business, not the reader's: it gives the
    // path exactly as Codex would open it.
    let text = "*** Begin Patch\n\
                *** Add File: src/../.git/config\n\
                +x\n\
                *** Delete File: /etc/passwd\n\
                *** Update File: docs/my notes.md\n\
                *** Move to: ../outside/file with spaces.txt\n\
                @@\n\
                +y\n\
                *** End Patch";
    assert_eq!(
        ops(text),
        own(&[
            (Add, "src/../.git/config"),
            (Delete, "/etc/passwd"),
            (MoveSource, "docs/my notes.md"),
            (MoveDestination, "../outside/file with spaces.txt"),
        ])
    );
}

#[test]
fn crlf_line_ends_are_accepted_as_codex_reads_them() {
    // Codex splits with `str::lines`, which drops a CR before an LF: so does seal.
    let text = "*** Begin Patch\r\n*** Update File: a.txt\r\n*** Move to: b.txt\r\n@@\r\n-x\r\n+y\r\n*** End Patch\r\n";
    assert_eq!(
        ops(text),
        own(&[(MoveSource, "a.txt"), (MoveDestination, "b.txt")])
    );
    // A CR that does not end a line stays in the line, and a path cannot hold it.
    assert_eq!(
        error("*** Begin Patch\n*** Add File: a\rb\n*** End Patch"),
        PatchError::PathControl { line: 2 }
    );
    assert_eq!(
        error("*** Begin Patch\n*** Add File: a\r\r\n*** End Patch"),
        PatchError::PathControl { line: 2 }
    );
}

#[test]
fn whitespace_around_the_envelope_is_skipped() {
    let text = "\n\n  *** Begin Patch  \n*** Delete File: a\n\t*** End Patch\t\n\n";
    assert_eq!(paths(text).unwrap(), vec![(Delete, "a".into(), 4)]);
}

#[test]
fn move_to_without_update_is_refused() {
    assert_eq!(
        error("*** Begin Patch\n*** Move to: b\n*** End Patch"),
        PatchError::MoveWithoutUpdate { line: 2 }
    );
    assert_eq!(
        error("*** Begin Patch\n*** Add File: a\n+x\n*** Move to: b\n*** End Patch"),
        PatchError::MoveWithoutUpdate { line: 4 }
    );
    assert_eq!(
        error("*** Begin Patch\n*** Delete File: a\n*** Move to: b\n*** End Patch"),
        PatchError::MoveWithoutUpdate { line: 3 }
    );
    // After a hunk, a move is too late.
    assert_eq!(
        error("*** Begin Patch\n*** Update File: a\n@@\n+x\n*** Move to: b\n*** End Patch"),
        PatchError::MoveWithoutUpdate { line: 5 }
    );
    // Two moves: Codex refuses the update as empty, and so does seal.
    assert_eq!(
        error("*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** Move to: c\n@@\n+x\n*** End Patch"),
        PatchError::EmptyUpdate { line: 2 }
    );
}

#[test]
fn a_second_begin_patch_is_refused() {
    assert_eq!(
        error("*** Begin Patch\n*** Begin Patch\n*** Add File: a\n*** End Patch"),
        PatchError::SecondBegin { line: 2 }
    );
    assert_eq!(
        error("*** Begin Patch\n*** Add File: a\n+x\n*** Begin Patch\n*** End Patch"),
        PatchError::SecondBegin { line: 4 }
    );
}

#[test]
fn the_envelope_is_required() {
    assert_eq!(error(""), PatchError::MissingBegin { line: 1 });
    assert_eq!(error("\n\n"), PatchError::MissingBegin { line: 2 });
    assert_eq!(
        error("*** Add File: a\n+x\n*** End Patch"),
        PatchError::MissingBegin { line: 1 }
    );
    assert_eq!(
        error("*** Begin Patch\n*** Add File: a\n+x"),
        PatchError::MissingEnd { line: 3 }
    );
    assert_eq!(error("*** Begin Patch"), PatchError::MissingEnd { line: 1 });
    // The heredoc wrapper Codex strips in its lenient mode is not a patch to seal.
    assert_eq!(
        error("<<'EOF'\n*** Begin Patch\n*** Add File: a\n*** End Patch\nEOF"),
        PatchError::MissingBegin { line: 1 }
    );
}

#[test]
fn text_after_end_patch_is_refused() {
    assert_eq!(
        error("*** Begin Patch\n*** End Patch\n*** Add File: a\n*** End Patch"),
        PatchError::TextAfterEnd { line: 2 }
    );
    assert_eq!(
        error("*** Begin Patch\n*** Add File: a\n*** End Patch\ntrailing"),
        PatchError::MissingEnd { line: 4 }
    );
}

#[test]
fn unknown_markers_and_stray_lines_are_refused() {
    assert_eq!(
        error("*** Begin Patch\n*** Rename File: a\n*** End Patch"),
        PatchError::UnknownMarker { line: 2 }
    );
    assert_eq!(
        error("*** Begin Patch\n*** Add File:a\n*** End Patch"),
        PatchError::UnknownMarker { line: 2 }
    );
    assert_eq!(
        error("*** Begin Patch\n*** Update File: a\n@@\n+x\n*** Frobnicate\n*** End Patch"),
        PatchError::UnknownMarker { line: 5 }
    );
    assert_eq!(
        error("*** Begin Patch\nhello\n*** End Patch"),
        PatchError::LineOutsideHunk { line: 2 }
    );
    // A line outside a hunk: after an added file's `+` lines, after a delete.
    assert_eq!(
        error("*** Begin Patch\n*** Add File: a\n+x\n-y\n*** End Patch"),
        PatchError::LineOutsideHunk { line: 4 }
    );
    assert_eq!(
        error("*** Begin Patch\n*** Delete File: a\n+x\n*** End Patch"),
        PatchError::LineOutsideHunk { line: 3 }
    );
    assert_eq!(
        error("*** Begin Patch\n*** Add File: a\n\n*** End Patch"),
        PatchError::LineOutsideHunk { line: 3 }
    );
    // An indented header where a header stands: Codex would trim it, seal refuses.
    assert_eq!(
        error("*** Begin Patch\n*** Delete File: a\n  *** Delete File: .env\n*** End Patch"),
        PatchError::LineOutsideHunk { line: 3 }
    );
    assert_eq!(
        error("*** Begin Patch\n*** End of File\n*** End Patch"),
        PatchError::EndOfFileOutsideHunk { line: 2 }
    );
}

#[test]
fn indented_headers_inside_a_hunk_are_context() {
    // Codex reads ` *** Add File: x` in a hunk as a context line: it touches nothing.
    assert_eq!(
        ops("*** Begin Patch\n*** Update File: a\n@@\n *** Add File: x\n+y\n*** End Patch"),
        own(&[(Update, "a")])
    );
    // And `+*** Delete File: x` in an added file is content.
    assert_eq!(
        ops("*** Begin Patch\n*** Add File: a\n+*** Delete File: x\n*** End Patch"),
        own(&[(Add, "a")])
    );
}

#[test]
fn hunks_must_be_well_formed() {
    assert_eq!(
        error("*** Begin Patch\n*** Update File: a\n*** End Patch"),
        PatchError::EmptyUpdate { line: 2 }
    );
    assert_eq!(
        error("*** Begin Patch\n*** Update File: a\n@@\n*** End Patch"),
        PatchError::EmptyHunk { line: 3 }
    );
    assert_eq!(
        error("*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch"),
        PatchError::EmptyHunk { line: 4 }
    );
    assert_eq!(
        error("*** Begin Patch\n*** Update File: a\nx\n*** End Patch"),
        PatchError::BadHunkLine { line: 3 }
    );
    // A second hunk needs its `@@`.
    assert_eq!(
        error("*** Begin Patch\n*** Update File: a\n@@\n+x\n\nx\n*** End Patch"),
        PatchError::BadHunkLine { line: 6 }
    );
    // Blank lines between hunks are skipped, as Codex skips them.
    assert_eq!(
        ops("*** Begin Patch\n*** Update File: a\n@@\n+x\n\n@@ two\n-y\n\n*** End Patch"),
        own(&[(Update, "a")])
    );
}

#[test]
fn hostile_paths_are_refused() {
    let at = |path: &str| format!("*** Begin Patch\n*** Delete File: {path}\n*** End Patch");
    assert_eq!(error(&at("")), PatchError::EmptyPath { line: 2 });
    assert_eq!(error(&at("a\0b")), PatchError::PathControl { line: 2 });
    assert_eq!(
        error(&at("a\u{1b}[31m")),
        PatchError::PathControl { line: 2 }
    );
    assert_eq!(error(&at("a\u{85}")), PatchError::PathControl { line: 2 });
    assert_eq!(error(&at("a\u{7f}")), PatchError::PathControl { line: 2 });
    assert_eq!(error(&at(" .env")), PatchError::PathPadded { line: 2 });
    assert_eq!(error(&at(".env ")), PatchError::PathPadded { line: 2 });
    assert_eq!(error(&at(".env\t")), PatchError::PathControl { line: 2 });
    assert_eq!(error(&at(".env\u{a0}")), PatchError::PathPadded { line: 2 });
    assert_eq!(
        error(&at(".env\u{3000}")),
        PatchError::PathPadded { line: 2 }
    );
    let bytes = b"*** Begin Patch\n*** Add File: a\xff\n*** End Patch";
    assert_eq!(
        Patch::parse(bytes, &PatchLimits::default()),
        Err(PatchError::PathNotUtf8 { line: 2 })
    );
    // Content need not be UTF-8: seal does not read it.
    let bytes = b"*** Begin Patch\n*** Add File: a\n+\xff\n*** End Patch";
    assert!(Patch::parse(bytes, &PatchLimits::default()).is_ok());
}

#[test]
fn limits_are_named_errors() {
    let limits = PatchLimits {
        max_bytes: 64,
        max_files: 2,
        max_path_bytes: 8,
    };
    let long = format!(
        "*** Begin Patch\n*** Delete File: a\n*** End Patch{}",
        " ".repeat(64)
    );
    assert_eq!(
        Patch::parse(long.as_bytes(), &limits),
        Err(PatchError::TooLarge {
            bytes: long.len(),
            max: 64
        })
    );
    let three = "*** Begin Patch\n*** Delete File: a\n*** Delete File: b\n*** Delete File: c\n*** End Patch";
    let mut roomy = limits;
    roomy.max_bytes = 1024;
    assert_eq!(
        Patch::parse(three.as_bytes(), &roomy),
        Err(PatchError::TooManyFiles { line: 4, max: 2 })
    );
    // A move counts twice.
    let moved = "*** Begin Patch\n*** Delete File: a\n*** Update File: b\n*** Move to: c\n@@\n+x\n*** End Patch";
    assert_eq!(
        Patch::parse(moved.as_bytes(), &roomy),
        Err(PatchError::TooManyFiles { line: 4, max: 2 })
    );
    let deep = "*** Begin Patch\n*** Delete File: abcdefghi\n*** End Patch";
    assert_eq!(
        Patch::parse(deep.as_bytes(), &roomy),
        Err(PatchError::PathTooLong {
            line: 2,
            bytes: 9,
            max: 8
        })
    );
}

#[test]
fn errors_name_their_line() {
    let error = error("*** Begin Patch\n*** Add File: a\n+x\n*** Move to: b\n*** End Patch");
    assert_eq!(error.line(), Some(4));
    assert_eq!(
        error.to_string(),
        "line 4: `*** Move to:` does not directly follow `*** Update File:`"
    );
}

#[test]
fn large_inputs_are_read_in_linear_time() {
    // A few MiB of hunk lines, and of blank lines: each is read once.
    let mut text = String::from("*** Begin Patch\n*** Update File: a\n@@\n");
    text.push_str(&"+line\n".repeat(500_000));
    text.push_str("*** End Patch\n");
    assert_eq!(ops(&text), own(&[(Update, "a")]));
    let blank = format!("*** Begin Patch\n{}", "\n".repeat(4_000_000));
    assert_eq!(error(&blank), PatchError::MissingEnd { line: 1 });
}

// ---------------------------------------------------------------------------------------------
// Properties.

/// One file section of a generated patch.
#[derive(Debug, Clone)]
enum Section {
    Add(String, Vec<String>),
    Delete(String),
    Update {
        path: String,
        to: Option<String>,
        hunks: Vec<Hunk>,
    },
}

#[derive(Debug, Clone)]
struct Hunk {
    header: Option<String>,
    lines: Vec<String>,
    end_of_file: bool,
}

/// A generated well-formed patch and how it is written.
#[derive(Debug, Clone)]
struct Generated {
    sections: Vec<Section>,
    crlf: bool,
    leading_blank: bool,
    trailing_newline: bool,
}

impl Generated {
    fn text(&self) -> String {
        let mut lines = vec!["*** Begin Patch".to_owned()];
        for section in &self.sections {
            match section {
                Section::Add(path, content) => {
                    lines.push(format!("*** Add File: {path}"));
                    lines.extend(content.iter().map(|c| format!("+{c}")));
                }
                Section::Delete(path) => lines.push(format!("*** Delete File: {path}")),
                Section::Update { path, to, hunks } => {
                    lines.push(format!("*** Update File: {path}"));
                    if let Some(to) = to {
                        lines.push(format!("*** Move to: {to}"));
                    }
                    for (i, hunk) in hunks.iter().enumerate() {
                        match &hunk.header {
                            Some(header) if header.is_empty() => lines.push("@@".into()),
                            Some(header) => lines.push(format!("@@ {header}")),
                            // Only the first hunk may leave out its `@@`.
                            None if i == 0 => {}
                            None => lines.push("@@".into()),
                        }
                        lines.extend(hunk.lines.iter().cloned());
                        if hunk.end_of_file {
                            lines.push("*** End of File".into());
                        }
                    }
                }
            }
        }
        lines.push("*** End Patch".into());
        let end = if self.crlf { "\r\n" } else { "\n" };
        let mut text = if self.leading_blank {
            end.to_owned()
        } else {
            String::new()
        };
        text.push_str(&lines.join(end));
        if self.trailing_newline {
            text.push_str(end);
        }
        text
    }

    /// The paths the generator wrote, in order.
    fn expected(&self) -> Vec<(Operation, String)> {
        let mut out = Vec::new();
        for section in &self.sections {
            match section {
                Section::Add(path, _) => out.push((Add, path.clone())),
                Section::Delete(path) => out.push((Delete, path.clone())),
                Section::Update { path, to, .. } => match to {
                    Some(to) => {
                        out.push((MoveSource, path.clone()));
                        out.push((MoveDestination, to.clone()));
                    }
                    None => out.push((Update, path.clone())),
                },
            }
        }
        out
    }
}

/// Path strategy: ordinary names, and the hostile ones a path may still be (dot-dot, absolute,
/// spaces inside, non-ASCII, marker look-alikes, bidi and zero-width characters).
fn path() -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        "[a-z0-9_.-]{1,8}",
        Just("..".to_owned()),
        Just(".git".to_owned()),
        Just("my file".to_owned()),
        Just("caf\u{e9}".to_owned()),
        Just("\u{65e5}\u{672c}".to_owned()),
        Just("*** End Patch".to_owned()),
        Just("@@".to_owned()),
        Just("a\u{202e}b".to_owned()),
        Just("z\u{200b}w".to_owned()),
    ];
    (any::<bool>(), prop::collection::vec(segment, 1..4)).prop_map(|(absolute, parts)| {
        let joined = parts.join("/");
        if absolute {
            format!("/{joined}")
        } else {
            joined
        }
    })
}

/// Content after a line's first character: anything on one line, markers included.
fn content() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,16}",
        "\\PC{0,8}",
        Just("*** Add File: evil".to_owned()),
        Just("** Delete File: .env".to_owned()),
        Just("*** End Patch".to_owned()),
        Just(" *** Move to: x".to_owned()),
    ]
    .prop_map(|s| s.replace(['\n', '\r'], ""))
}

fn hunk_line() -> impl Strategy<Value = String> {
    prop_oneof![
        content().prop_map(|c| format!(" {c}")),
        content().prop_map(|c| format!("+{c}")),
        content().prop_map(|c| format!("-{c}")),
        Just(String::new()),
    ]
}

fn hunk() -> impl Strategy<Value = Hunk> {
    (
        prop_oneof![
            Just(None),
            Just(Some(String::new())),
            "[ -~]{1,12}".prop_map(|h| Some(h.trim().to_owned()).filter(|h| !h.is_empty())),
        ],
        // A hunk without `@@` must open with a hunk line, not a blank one Codex would skip.
        prop::collection::vec(hunk_line(), 1..4),
        any::<bool>(),
    )
        .prop_map(|(header, mut lines, end_of_file)| {
            if header.is_none() && lines.first().is_some_and(|l| l.trim().is_empty()) {
                lines[0] = " x".into();
            }
            Hunk {
                header,
                lines,
                end_of_file,
            }
        })
}

fn section() -> impl Strategy<Value = Section> {
    prop_oneof![
        (path(), prop::collection::vec(content(), 0..3)).prop_map(|(p, c)| Section::Add(p, c)),
        path().prop_map(Section::Delete),
        (
            path(),
            prop::option::of(path()),
            prop::collection::vec(hunk(), 1..3)
        )
            .prop_map(|(path, to, hunks)| Section::Update { path, to, hunks }),
    ]
}

fn generated() -> impl Strategy<Value = Generated> {
    (
        prop::collection::vec(section(), 0..6),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(sections, crlf, leading_blank, trailing_newline)| Generated {
                sections,
                crlf,
                leading_blank,
                trailing_newline,
            },
        )
}

fn runner() -> TestRunner {
    seal_test_support::seeded_by(11, 512)
}

type Reader = fn(&[u8]) -> Result<Vec<(Operation, String)>, String>;

fn real(text: &[u8]) -> Result<Vec<(Operation, String)>, String> {
    Patch::parse(text, &PatchLimits::default())
        .map(|patch| {
            patch
                .paths()
                .iter()
                .map(|p| (p.operation, p.path.to_owned()))
                .collect()
        })
        .map_err(|e| e.to_string())
}

/// A broken reader for the negative control: the real one, blind to `*** Move to:` (the
/// destination is dropped and the source reads as an update in place).
fn ignores_move_to(text: &[u8]) -> Result<Vec<(Operation, String)>, String> {
    real(text).map(|found| {
        found
            .into_iter()
            .filter(|(op, _)| *op != MoveDestination)
            .map(|(op, p)| (if op == MoveSource { Update } else { op }, p))
            .collect()
    })
}

/// The naive oracle: every line that starts with a header marker is a header (a CR before the
/// LF dropped). In a patch the real reader accepts, no other line can start with `***`, so the
/// two must agree on every accepted input, however hostile.
fn naive(text: &[u8]) -> Vec<(Operation, String)> {
    let text = String::from_utf8_lossy(text);
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let next_moves = lines
            .get(i + 1)
            .is_some_and(|n| n.starts_with("*** Move to: "));
        if let Some(p) = line.strip_prefix("*** Add File: ") {
            out.push((Add, p.to_owned()));
        } else if let Some(p) = line.strip_prefix("*** Delete File: ") {
            out.push((Delete, p.to_owned()));
        } else if let Some(p) = line.strip_prefix("*** Update File: ") {
            out.push((if next_moves { MoveSource } else { Update }, p.to_owned()));
        } else if let Some(p) = line.strip_prefix("*** Move to: ") {
            out.push((MoveDestination, p.to_owned()));
        }
    }
    out
}

fn round_trip(reader: Reader) -> Result<(), String> {
    let result = runner().run(&generated(), |patch| {
        let text = patch.text();
        let found =
            reader(text.as_bytes()).map_err(|e| TestCaseError::fail(format!("{e}: {text:?}")))?;
        prop_assert_eq!(&found, &patch.expected(), "text: {:?}", text);
        prop_assert_eq!(&found, &naive(text.as_bytes()), "text: {:?}", text);
        Ok(())
    });
    result.map_err(|e| e.to_string())
}

#[test]
fn generated_patches_round_trip_their_paths() {
    round_trip(real).unwrap();
}

#[test]
fn round_trip_catches_a_reader_that_ignores_move_to() {
    assert!(
        round_trip(ignores_move_to).is_err(),
        "the broken reader was not caught"
    );
}

/// Hostile edits of a well-formed patch: a line inserted, removed or replaced from a pool of
/// look-alikes (indented and padded headers, moves out of place, unknown markers, NUL, CR,
/// non-ASCII spaces).
fn mutated() -> impl Strategy<Value = Vec<u8>> {
    let pool = prop_oneof![
        Just(" *** Add File: .env".to_owned()),
        Just("*** Add File: .env ".to_owned()),
        Just("\t*** Delete File: .git/config".to_owned()),
        Just("*** Move to: .git/config".to_owned()),
        Just("*** Update File: .git/config".to_owned()),
        Just("*** Add File: .git/config".to_owned()),
        Just("*** End Patch".to_owned()),
        Just("*** Begin Patch".to_owned()),
        Just("*** End of File".to_owned()),
        Just("*** Frob: x".to_owned()),
        Just("@@".to_owned()),
        Just("+x".to_owned()),
        Just(" x".to_owned()),
        Just(String::new()),
        Just("\u{a0}".to_owned()),
        Just("*** Add File: a\0b".to_owned()),
        Just("*** Delete File: x\r".to_owned()),
        "[ -~]{0,12}",
    ];
    (
        generated(),
        prop::collection::vec((0usize..3, any::<prop::sample::Index>(), pool), 1..4),
    )
        .prop_map(|(patch, edits)| {
            let text = patch.text();
            let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
            for (kind, at, line) in edits {
                let i = at.index(lines.len() + 1);
                match kind {
                    0 => lines.insert(i, line),
                    1 if i < lines.len() => {
                        lines.remove(i);
                    }
                    _ if i < lines.len() => lines[i] = line,
                    _ => lines.push(line),
                }
            }
            lines.join("\n").into_bytes()
        })
}

fn agrees_with_oracle(reader: Reader) -> Result<(), String> {
    let result = runner().run(&mutated(), |text| {
        if let Ok(found) = reader(&text) {
            prop_assert_eq!(
                found,
                naive(&text),
                "text: {:?}",
                String::from_utf8_lossy(&text)
            );
        }
        Ok(())
    });
    result.map_err(|e| e.to_string())
}

#[test]
fn accepted_hostile_patches_agree_with_the_naive_oracle() {
    agrees_with_oracle(real).unwrap();
}

#[test]
fn the_oracle_catches_a_reader_that_ignores_move_to() {
    assert!(
        agrees_with_oracle(ignores_move_to).is_err(),
        "the broken reader was not caught"
    );
}

#[test]
fn no_panic_on_any_bytes() {
    let result = runner().run(&prop::collection::vec(any::<u8>(), 0..256), |bytes| {
        let _ = Patch::parse(&bytes, &PatchLimits::default());
        let mut text = b"*** Begin Patch\n*** Update File: a\n".to_vec();
        text.extend_from_slice(&bytes);
        text.extend_from_slice(b"\n*** End Patch");
        if let Ok(patch) = Patch::parse(&text, &PatchLimits::default()) {
            for touched in patch.paths() {
                prop_assert!(!touched.path.is_empty());
                prop_assert!(!touched.path.chars().any(char::is_control));
            }
        }
        Ok(())
    });
    result.unwrap();
}

#[test]
fn the_fuzz_check_holds_on_hostile_patches() {
    let result = runner().run(&mutated(), |text| {
        seal_parse::fuzz::apply_patch(&text).map_err(TestCaseError::fail)?;
        Ok(())
    });
    result.unwrap();
    for fixture in [
        &b"*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n+x\n*** End Patch"[..],
        b"*** Begin Patch\r\n*** Add File: a\r\n+x\r\n*** Delete File: b\r\n*** End Patch\r\n",
        b"\xff\xfe",
        b"",
    ] {
        seal_parse::fuzz::apply_patch(fixture).unwrap();
    }
}
