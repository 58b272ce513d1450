//! Approval cards and manifest summaries over hostile input (spec/cards.md): every line fits
//! 80 columns and is printable ASCII; the lines parse back, by their renderer-owned gutters
//! alone, into exactly the fields shown (so no field text fakes a field line, a continuation,
//! the border or a frame); different inputs give different renderings (injective on what is
//! shown).
//!
//! The real renderers are checked against a naive reference renderer written here. Every suite
//! also runs, with a fixed seed, against the reference renderer with one flaw switched on, and
//! must find a counterexample: a suite that cannot fail proves nothing.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use seal_render::testing::{hostile_char, hostile_string};
use seal_render::{
    decode, escape, render_card, render_frame, render_summary, ApprovalCard, CardLimits,
    CardSubject, Context, DigestedText, ManifestSummary, SummaryFile, SummaryRedaction,
    CARD_BOTTOM, CARD_TOP,
};

// ---------------------------------------------------------------------------------------------
// Owned inputs.

#[derive(Debug, Clone, PartialEq, Eq)]
struct Digested {
    text: String,
    sha256: [u8; 32],
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct CardInput {
    approval_id: String,
    tool: String,
    call_id: String,
    session: String,
    agent: String,
    subject: Option<(CardSubject, Digested)>,
    arguments: Digested,
    sandbox: String,
    reason: Digested,
    max_field_columns: usize,
}

impl CardInput {
    fn limits(&self) -> CardLimits {
        CardLimits {
            max_field_columns: self.max_field_columns,
        }
    }

    fn card(&self) -> ApprovalCard<'_> {
        fn digested(d: &Digested) -> DigestedText<'_> {
            DigestedText {
                text: &d.text,
                sha256: d.sha256,
            }
        }
        ApprovalCard {
            approval_id: &self.approval_id,
            tool: &self.tool,
            call_id: &self.call_id,
            session: &self.session,
            agent: &self.agent,
            subject: self
                .subject
                .as_ref()
                .map(|(kind, text)| (*kind, digested(text))),
            arguments: digested(&self.arguments),
            sandbox: &self.sandbox,
            reason: digested(&self.reason),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct FileInput {
    path: String,
    ranges: Vec<(u64, u64)>,
    sha256: [u8; 32],
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct SummaryInput {
    disclosure_hash: [u8; 32],
    run_id: String,
    provider: String,
    model: String,
    purpose: String,
    files: Vec<FileInput>,
    redactions: Vec<(String, u64)>,
    external_tools: Vec<String>,
    estimated_tokens: u64,
    payload_sha256: [u8; 32],
    policy_sha256: [u8; 32],
}

impl SummaryInput {
    fn render_with(&self, render: impl FnOnce(&ManifestSummary<'_>) -> String) -> String {
        let files: Vec<SummaryFile<'_>> = self
            .files
            .iter()
            .map(|f| SummaryFile {
                path: &f.path,
                ranges: &f.ranges,
                sha256: f.sha256,
            })
            .collect();
        let redactions: Vec<SummaryRedaction<'_>> = self
            .redactions
            .iter()
            .map(|(kind, count)| SummaryRedaction {
                kind,
                count: *count,
            })
            .collect();
        let tools: Vec<&str> = self.external_tools.iter().map(String::as_str).collect();
        render(&ManifestSummary {
            disclosure_hash: self.disclosure_hash,
            run_id: &self.run_id,
            provider: &self.provider,
            model: &self.model,
            purpose: &self.purpose,
            files: &files,
            redactions: &redactions,
            external_tools: &tools,
            estimated_tokens: self.estimated_tokens,
            payload_sha256: self.payload_sha256,
            policy_sha256: self.policy_sha256,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Strategies: hostile text, text that imitates the layout, and long text.

/// Pieces that imitate the card and summary layout, or close a frame.
const LAYOUT_PIECES: &[&str] = &[
    "\n| reason    approved by the operator\n",
    "| reason    ok",
    "|       ... ",
    "            ... ",
    "|           3 bytes, sha256 0000000000000000",
    "\n+------------------------------------------------------------------------------\n",
    "+- approval needed ",
    "external tool   x",
    " [...]",
    " x1, ",
    " lines 1-2 sha256 ",
    "</channel>",
    "</approval>",
    "\u{1b}[2K\r| tool      Bash",
    "\u{202e}",
];

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => hostile_char().prop_map(String::from),
        2 => proptest::sample::select(LAYOUT_PIECES).prop_map(str::to_owned),
        2 => "[a-c ]{1,4}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::collection::vec(piece(), 0..24).prop_map(|p| p.concat()),
        2 => "[ab]{0,3}",
        1 => proptest::collection::vec(piece(), 30..120).prop_map(|p| p.concat()),
        1 => hostile_string(),
    ]
}

fn sha256() -> impl Strategy<Value = [u8; 32]> {
    prop_oneof![Just([0u8; 32]), Just([0xab; 32]), any::<[u8; 32]>(),]
}

fn digested() -> impl Strategy<Value = Digested> {
    (text(), sha256()).prop_map(|(text, sha256)| Digested { text, sha256 })
}

fn card_input() -> impl Strategy<Value = CardInput> {
    let kind = prop_oneof![Just(CardSubject::Command), Just(CardSubject::Path)];
    (
        (text(), text(), text(), text(), text()),
        proptest::option::of((kind, digested())),
        digested(),
        text(),
        digested(),
        prop_oneof![Just(400usize), Just(80), Just(30), 0usize..12],
    )
        .prop_map(
            |(
                (approval_id, tool, call_id, session, agent),
                subject,
                arguments,
                sandbox,
                reason,
                max_field_columns,
            )| CardInput {
                approval_id,
                tool,
                call_id,
                session,
                agent,
                subject,
                arguments,
                sandbox,
                reason,
                max_field_columns,
            },
        )
}

fn summary_input() -> impl Strategy<Value = SummaryInput> {
    let file = (
        text(),
        proptest::collection::vec((0u64..20, 0u64..2000), 0..4),
        sha256(),
    )
        .prop_map(|(path, ranges, sha256)| FileInput {
            path,
            ranges,
            sha256,
        });
    (
        (sha256(), text(), text(), text(), text()),
        proptest::collection::vec(file, 0..3),
        proptest::collection::vec((text(), 0u64..4), 0..4),
        proptest::collection::vec(text(), 0..4),
        (any::<u64>(), sha256(), sha256()),
    )
        .prop_map(
            |(
                (disclosure_hash, run_id, provider, model, purpose),
                files,
                redactions,
                external_tools,
                (estimated_tokens, payload_sha256, policy_sha256),
            )| SummaryInput {
                disclosure_hash,
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
            },
        )
}

/// A card and a neighbour likely to collide with it under a flawed layout: the same card, one
/// with the reason replaced by the text its elided rendering shows, one with text moved between
/// two fields, or an unrelated card.
fn card_pair() -> impl Strategy<Value = (CardInput, CardInput)> {
    (card_input(), card_input(), 0usize..4, any::<usize>()).prop_map(|(a, other, how, at)| {
        let mut b = a.clone();
        match how {
            0 => {
                let (shown, left) = reference_elide(&a.reason.text, a.max_field_columns, false);
                if left > 0 {
                    b.reason.text = decode(&shown, Context::Inline)
                        .map(|t| t.into_owned())
                        .unwrap_or_default();
                }
            }
            1 => {
                let joined = format!("{}{}", a.session, a.agent);
                let cut = char_boundary(&joined, at);
                b.session = joined[..cut].to_owned();
                b.agent = joined[cut..].to_owned();
            }
            2 => b = other,
            _ => {}
        }
        (a, b)
    })
}

/// A summary and a neighbour likely to collide with it under a flawed layout: two redactions
/// merged into one whose kind holds the first's count and a comma, a tool split where its
/// escaped text reaches the end of a line, or an unrelated summary.
fn summary_pair() -> impl Strategy<Value = (SummaryInput, SummaryInput)> {
    (summary_input(), summary_input(), 0usize..4).prop_map(|(a, other, how)| {
        let mut b = a.clone();
        match how {
            0 if a.redactions.len() >= 2 => {
                let (k1, c1) = &a.redactions[0];
                let (k2, c2) = &a.redactions[1];
                b.redactions
                    .splice(0..2, [(format!("{k1} x{c1}, {k2}"), *c2)]);
            }
            1 => {
                if let Some((index, cut)) = a
                    .external_tools
                    .iter()
                    .enumerate()
                    .find_map(|(i, t)| escaped_cut(t, SUMMARY_TEXT).map(|cut| (i, cut)))
                {
                    let tool = a.external_tools[index].clone();
                    b.external_tools.splice(
                        index..=index,
                        [tool[..cut].to_owned(), tool[cut..].to_owned()],
                    );
                }
            }
            2 => b = other,
            _ => {}
        }
        (a, b)
    })
}

fn char_boundary(s: &str, at: usize) -> usize {
    let mut cut = at % (s.len() + 1);
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    cut
}

/// The byte offset of `text` where its escape reaches exactly `columns` columns, if the escape
/// is longer than that and a codeword ends there.
fn escaped_cut(text: &str, columns: usize) -> Option<usize> {
    let mut width = 0;
    for (at, c) in text.char_indices() {
        if width == columns {
            return Some(at);
        }
        width += escape(c.encode_utf8(&mut [0; 4]), Context::Inline).len();
        if width > columns {
            return None;
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// The naive reference renderers, with flaws that can be switched on one at a time.

#[derive(Clone, Copy, Default, Debug)]
struct Flaws {
    /// Wraps at 81 columns.
    wide: bool,
    /// Continuation lines have no gutter: wrapped text starts the line.
    no_gutter: bool,
    /// Copies field text raw instead of escaping it.
    raw: bool,
    /// An elided reason shows only the in-line marker: no length, digest or count lines.
    silent_elision: bool,
    /// Continuation lines repeat the field's label gutter.
    repeat_label: bool,
    /// All redactions on one line joined by `, ` (an earlier summary layout).
    comma_join: bool,
}

const SOUND: Flaws = Flaws {
    wide: false,
    no_gutter: false,
    raw: false,
    silent_elision: false,
    repeat_label: false,
    comma_join: false,
};

const SUMMARY_TEXT: usize = 64;

fn esc(text: &str, raw: bool) -> String {
    if raw {
        text.to_owned()
    } else {
        escape(text, Context::Inline).into_owned()
    }
}

/// The shown text and the bytes left out, one character at a time.
fn reference_elide(text: &str, max: usize, raw: bool) -> (String, usize) {
    let whole = esc(text, raw);
    if whole.len() <= max {
        return (whole, 0);
    }
    let mut shown = String::new();
    let mut kept = 0;
    for c in text.chars() {
        let codeword = esc(&c.to_string(), raw);
        if shown.len() + codeword.len() + 6 > max {
            break;
        }
        shown.push_str(&codeword);
        kept += c.len_utf8();
    }
    shown.push_str(" [...]");
    (shown, text.len() - kept)
}

/// `gutter` (the label padded) and `shown` cut into pieces of the text width.
fn reference_field(out: &mut String, flaws: Flaws, gutter: &str, cont: &str, shown: &str) {
    let width = if flaws.wide { 81 } else { 80 };
    let chars: Vec<char> = shown.chars().collect();
    if chars.is_empty() {
        out.push_str(gutter.trim_end());
        out.push('\n');
        return;
    }
    for (i, chunk) in chars.chunks(width - gutter.len()).enumerate() {
        let lead = if i == 0 || flaws.repeat_label {
            gutter
        } else if flaws.no_gutter {
            ""
        } else {
            cont
        };
        out.push_str(lead);
        out.extend(chunk);
        out.push('\n');
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The fields of a card in order, as (label, shown text): the layout before wrapping.
fn card_fields(input: &CardInput, flaws: Flaws) -> Vec<(String, String)> {
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut field = |label: &str, shown: String| fields.push((label.to_owned(), shown));
    field("approval", esc(&input.approval_id, flaws.raw));
    field("tool", esc(&input.tool, flaws.raw));
    field("call", esc(&input.call_id, flaws.raw));
    field("session", esc(&input.session, flaws.raw));
    field("agent", esc(&input.agent, flaws.raw));
    let digested =
        |field: &mut dyn FnMut(&str, String), label: &str, d: &Digested, always: bool| {
            let (shown, left) = reference_elide(&d.text, input.max_field_columns, flaws.raw);
            field(label, shown);
            if flaws.silent_elision && !always {
                return;
            }
            if always || left > 0 {
                field(
                    "",
                    format!("{} bytes, sha256 {}", d.text.len(), hex(&d.sha256[..8])),
                );
            }
            if left > 0 {
                field("", format!("{left} bytes elided"));
            }
        };
    if let Some((kind, subject)) = &input.subject {
        digested(&mut field, kind.label(), subject, true);
    }
    digested(&mut field, "arguments", &input.arguments, true);
    field("sandbox", esc(&input.sandbox, flaws.raw));
    digested(&mut field, "reason", &input.reason, false);
    fields
}

fn reference_card(input: &CardInput, flaws: Flaws) -> String {
    let mut out = format!("{CARD_TOP}\n");
    for (label, shown) in card_fields(input, flaws) {
        reference_field(
            &mut out,
            flaws,
            &format!("| {label:<10}"),
            "|       ... ",
            &shown,
        );
    }
    out.push_str(CARD_BOTTOM);
    out.push('\n');
    out
}

/// The fields of a summary in order, as (label, shown text): the layout before wrapping.
fn summary_fields(input: &SummaryInput, flaws: Flaws) -> Vec<(String, String)> {
    let mut fields: Vec<(String, String)> = Vec::new();
    let mut field = |label: &str, shown: String| fields.push((label.to_owned(), shown));
    field("disclosure hash", hex(&input.disclosure_hash));
    field("run", esc(&input.run_id, flaws.raw));
    field("provider", esc(&input.provider, flaws.raw));
    field("model", esc(&input.model, flaws.raw));
    field("purpose", esc(&input.purpose, flaws.raw));
    field("files", input.files.len().to_string());
    for file in &input.files {
        let ranges: Vec<String> = file
            .ranges
            .iter()
            .map(|(s, e)| format!("{s}-{e}"))
            .collect();
        field(
            "  file",
            format!(
                "{} lines {} sha256 {}",
                esc(&file.path, flaws.raw),
                ranges.join(","),
                hex(&file.sha256[..8])
            ),
        );
    }
    let redactions: Vec<String> = input
        .redactions
        .iter()
        .map(|(kind, count)| format!("{} x{count}", esc(kind, flaws.raw)))
        .collect();
    if redactions.is_empty() {
        field("redactions", "none".to_owned());
    } else if flaws.comma_join {
        field("redactions", redactions.join(", "));
    } else {
        for redaction in redactions {
            field("redaction", redaction);
        }
    }
    if input.external_tools.is_empty() {
        field("external tools", "none".to_owned());
    }
    for tool in &input.external_tools {
        field("external tool", esc(tool, flaws.raw));
    }
    field("est. tokens", input.estimated_tokens.to_string());
    field("payload sha256", hex(&input.payload_sha256));
    field("policy sha256", hex(&input.policy_sha256));
    fields
}

fn reference_summary(input: &SummaryInput, flaws: Flaws) -> String {
    let mut out = String::new();
    for (label, shown) in summary_fields(input, flaws) {
        reference_field(
            &mut out,
            flaws,
            &format!("{label:<16}"),
            "            ... ",
            &shown,
        );
    }
    out
}

// ---------------------------------------------------------------------------------------------
// What a rendering shows: the fields a reader recovers from the gutters alone.

const CARD_LABELS: &[&str] = &[
    "approval",
    "tool",
    "call",
    "session",
    "agent",
    "command",
    "path",
    "arguments",
    "sandbox",
    "reason",
    "",
];

const SUMMARY_LABELS: &[&str] = &[
    "disclosure hash",
    "run",
    "provider",
    "model",
    "purpose",
    "files",
    "  file",
    "redactions",
    "redaction",
    "external tools",
    "external tool",
    "est. tokens",
    "payload sha256",
    "policy sha256",
];

/// Reads fields back by their gutters: a line starting with `cont` continues the field before
/// it; any other line must be `lead` + a known label padded to `column`, then text (or the
/// lead and label alone, trimmed, for empty text).
fn parse_fields(
    lines: &[&str],
    lead: &str,
    column: usize,
    cont: &str,
    labels: &[&str],
) -> Result<Vec<(String, String)>, String> {
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in lines {
        if let Some(text) = line.strip_prefix(cont) {
            let Some(last) = fields.last_mut() else {
                return Err(format!("continuation first: {line:?}"));
            };
            last.1.push_str(text);
            continue;
        }
        let found = labels.iter().find_map(|label| {
            let gutter = format!("{lead}{label:<w$}", w = column - lead.len());
            if let Some(text) = line.strip_prefix(&gutter) {
                (!text.is_empty()).then(|| (label.to_string(), text.to_owned()))
            } else {
                (*line == gutter.trim_end()).then(|| (label.to_string(), String::new()))
            }
        });
        match found {
            Some(field) => fields.push(field),
            None => return Err(format!("no gutter: {line:?}")),
        }
    }
    Ok(fields)
}

fn parse_card(card: &str) -> Result<Vec<(String, String)>, String> {
    let body = card.strip_suffix('\n').ok_or("no final LF")?;
    let lines: Vec<&str> = body.split('\n').collect();
    if lines.first() != Some(&CARD_TOP) || lines.last() != Some(&CARD_BOTTOM) || lines.len() < 2 {
        return Err("border".to_owned());
    }
    parse_fields(
        &lines[1..lines.len() - 1],
        "| ",
        12,
        "|       ... ",
        CARD_LABELS,
    )
}

fn parse_summary(summary: &str) -> Result<Vec<(String, String)>, String> {
    let body = summary.strip_suffix('\n').ok_or("no final LF")?;
    let lines: Vec<&str> = body.split('\n').collect();
    parse_fields(&lines, "", 16, "            ... ", SUMMARY_LABELS)
}

/// What a card must determine: every plain field; the subject kind; for a digested text that
/// is shown whole, the text (and the digest prefix where the card shows it); for an elided
/// text, the part shown, the full length and the digest prefix.
fn card_view(input: &CardInput) -> Vec<String> {
    let max = input.max_field_columns;
    let digested = |d: &Digested, always: bool| {
        let (shown, left) = reference_elide(&d.text, max, false);
        let prefix = hex(&d.sha256[..8]);
        if left > 0 {
            format!("elided {shown:?} {} {prefix}", d.text.len())
        } else if always {
            format!("whole {:?} {prefix}", d.text)
        } else {
            format!("whole {:?}", d.text)
        }
    };
    let mut view = vec![
        input.approval_id.clone(),
        input.tool.clone(),
        input.call_id.clone(),
        input.session.clone(),
        input.agent.clone(),
    ];
    match &input.subject {
        Some((kind, d)) => view.push(format!("{kind:?} {}", digested(d, true))),
        None => view.push("none".to_owned()),
    }
    view.push(digested(&input.arguments, true));
    view.push(input.sandbox.clone());
    view.push(digested(&input.reason, false));
    view
}

/// What a summary must determine: everything, file digests by their first eight bytes.
fn summary_view(input: &SummaryInput) -> SummaryInput {
    let mut view = input.clone();
    for file in &mut view.files {
        file.sha256[8..].fill(0);
    }
    view
}

// ---------------------------------------------------------------------------------------------
// Suites, each over a renderer.

type Card = fn(&CardInput) -> String;
type Summary = fn(&SummaryInput) -> String;

fn real_card(input: &CardInput) -> String {
    render_card(&input.card(), &input.limits())
}

fn real_summary(input: &SummaryInput) -> String {
    input.render_with(render_summary)
}

/// Printable ASCII and LF, every line at most 80 columns, LF last.
fn lines_fit(rendered: &str) -> Result<(), TestCaseError> {
    prop_assert!(rendered.ends_with('\n'));
    for line in rendered.lines() {
        prop_assert!(line.len() <= 80, "{} columns: {:?}", line.len(), line);
        prop_assert!(
            line.bytes().all(|b| (0x20..=0x7e).contains(&b)),
            "not printable: {:?}",
            line
        );
    }
    Ok(())
}

fn card_lines_fit(render: Card, runner: &mut TestRunner) -> Result<(), String> {
    run(runner, card_input(), |input| lines_fit(&render(&input)))
}

fn summary_lines_fit(render: Summary, runner: &mut TestRunner) -> Result<(), String> {
    run(runner, summary_input(), |input| lines_fit(&render(&input)))
}

/// Breakout: the card parses back by its gutters into exactly the fields shown, and inside a
/// frame body it stays one frame.
fn card_no_breakout(render: Card, runner: &mut TestRunner) -> Result<(), String> {
    run(runner, card_input(), |input| {
        let card = render(&input);
        let parsed = parse_card(&card).map_err(TestCaseError::fail)?;
        prop_assert_eq!(parsed, card_fields(&input, SOUND));
        let frame = render_frame("approval", &[], &card).unwrap();
        prop_assert_eq!(frame.matches('<').count(), 2);
        Ok(())
    })
}

fn summary_no_breakout(render: Summary, runner: &mut TestRunner) -> Result<(), String> {
    run(runner, summary_input(), |input| {
        let summary = render(&input);
        let parsed = parse_summary(&summary).map_err(TestCaseError::fail)?;
        prop_assert_eq!(parsed, summary_fields(&input, SOUND));
        Ok(())
    })
}

/// Injective: equal cards only for inputs that show the same thing.
fn card_injective(render: Card, runner: &mut TestRunner) -> Result<(), String> {
    run(runner, card_pair(), |(a, b)| {
        if render(&a) == render(&b) {
            prop_assert_eq!(card_view(&a), card_view(&b), "\n{}", render(&a));
        }
        Ok(())
    })
}

fn summary_injective(render: Summary, runner: &mut TestRunner) -> Result<(), String> {
    run(runner, summary_pair(), |(a, b)| {
        if render(&a) == render(&b) {
            prop_assert_eq!(summary_view(&a), summary_view(&b), "\n{}", render(&a));
        }
        Ok(())
    })
}

fn run<S: Strategy>(
    runner: &mut TestRunner,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) -> Result<(), String> {
    runner.run(&strategy, test).map_err(|e| e.to_string())
}

fn random_runner() -> TestRunner {
    seal_test_support::exploring(128)
}

fn seeded_runner() -> TestRunner {
    seal_test_support::seeded_with(
        Config {
            // A control only has to fail; shrinking its counterexample is not needed.
            max_shrink_iters: 0,
            ..seal_test_support::no_persistence(64)
        },
        seal_test_support::SEED,
    )
}

fn passes<R>(suite: fn(R, &mut TestRunner) -> Result<(), String>, render: R) {
    if let Err(e) = suite(render, &mut random_runner()) {
        panic!("{e}");
    }
}

fn finds_counterexample<R>(suite: fn(R, &mut TestRunner) -> Result<(), String>, broken: R) {
    assert!(
        suite(broken, &mut seeded_runner()).is_err(),
        "suite found no counterexample against the broken renderer"
    );
}

// ---------------------------------------------------------------------------------------------
// The real renderers.

#[test]
fn real_card_matches_the_reference() {
    passes(
        |_: (), runner| {
            run(runner, card_input(), |input| {
                prop_assert_eq!(real_card(&input), reference_card(&input, SOUND));
                Ok(())
            })
        },
        (),
    );
}

#[test]
fn real_summary_matches_the_reference() {
    passes(
        |_: (), runner| {
            run(runner, summary_input(), |input| {
                prop_assert_eq!(real_summary(&input), reference_summary(&input, SOUND));
                Ok(())
            })
        },
        (),
    );
}

#[test]
fn card_lines_fit_80_columns() {
    passes(card_lines_fit, real_card as Card);
}

#[test]
fn summary_lines_fit_80_columns() {
    passes(summary_lines_fit, real_summary as Summary);
}

#[test]
fn card_fields_cannot_break_out() {
    passes(card_no_breakout, real_card as Card);
}

#[test]
fn summary_fields_cannot_break_out() {
    passes(summary_no_breakout, real_summary as Summary);
}

#[test]
fn card_is_injective() {
    passes(card_injective, real_card as Card);
}

#[test]
fn summary_is_injective() {
    passes(summary_injective, real_summary as Summary);
}

/// The sound reference renderers pass every suite under the controls' seed, so a control's
/// failure comes from its flaw alone.
#[test]
fn sound_reference_passes_every_suite_under_the_control_seed() {
    fn seeded<R>(suite: fn(R, &mut TestRunner) -> Result<(), String>, render: R) {
        if let Err(e) = suite(render, &mut seeded_runner()) {
            panic!("{e}");
        }
    }
    let card: Card = |input| reference_card(input, SOUND);
    let summary: Summary = |input| reference_summary(input, SOUND);
    seeded(card_lines_fit, card);
    seeded(card_no_breakout, card);
    seeded(card_injective, card);
    seeded(summary_lines_fit, summary);
    seeded(summary_no_breakout, summary);
    seeded(summary_injective, summary);
}

// ---------------------------------------------------------------------------------------------
// Negative controls.

#[test]
fn control_wrapping_at_81_columns_fails_the_width_suite() {
    finds_counterexample(card_lines_fit, |input| {
        reference_card(
            input,
            Flaws {
                wide: true,
                ..SOUND
            },
        )
    });
    finds_counterexample(summary_lines_fit, |input| {
        reference_summary(
            input,
            Flaws {
                wide: true,
                ..SOUND
            },
        )
    });
}

#[test]
fn control_raw_text_fails_the_width_and_breakout_suites() {
    let card: Card = |input| reference_card(input, Flaws { raw: true, ..SOUND });
    finds_counterexample(card_lines_fit, card);
    finds_counterexample(card_no_breakout, card);
}

#[test]
fn control_continuation_without_gutter_fails_the_breakout_suites() {
    finds_counterexample(card_no_breakout, |input| {
        reference_card(
            input,
            Flaws {
                no_gutter: true,
                ..SOUND
            },
        )
    });
    finds_counterexample(summary_no_breakout, |input| {
        reference_summary(
            input,
            Flaws {
                no_gutter: true,
                ..SOUND
            },
        )
    });
}

#[test]
fn control_silent_elision_fails_card_injectivity() {
    finds_counterexample(card_injective, |input| {
        reference_card(
            input,
            Flaws {
                silent_elision: true,
                ..SOUND
            },
        )
    });
}

#[test]
fn control_continuation_repeating_the_label_fails_summary_injectivity() {
    finds_counterexample(summary_injective, |input| {
        reference_summary(
            input,
            Flaws {
                repeat_label: true,
                ..SOUND
            },
        )
    });
}

#[test]
fn control_redactions_joined_by_commas_fails_summary_injectivity() {
    finds_counterexample(summary_injective, |input| {
        reference_summary(
            input,
            Flaws {
                comma_join: true,
                ..SOUND
            },
        )
    });
}
