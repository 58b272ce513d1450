//! Runs the example tables of `spec/policy.md` section 10.7 (presets, escalation, delegation),
//! reading them from the spec so the document and the code cannot drift apart.

use seal_policy::approval::ApprovalPolicy;
use seal_policy::delegation::{spawn_child, ChildRequest};
use seal_policy::escalation::{
    check_escalation, EscalationError, EscalationFields, EscalationLimits,
};
use seal_policy::preset::{
    Executor, Knobs, PermissionState, PresetConfig, PresetKey, PresetTable, SandboxMode,
    SelectError, Session, Write,
};

const SPEC: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../spec/policy.md"));

/// The body rows of the table between `<!-- name:begin -->` and `<!-- name:end -->`, as cells.
fn rows(name: &str) -> Vec<Vec<String>> {
    let begin = format!("<!-- {name}:begin -->");
    let end = format!("<!-- {name}:end -->");
    let start = SPEC.find(&begin).unwrap() + begin.len();
    let stop = start + SPEC[start..].find(&end).unwrap();
    let rows: Vec<Vec<String>> = SPEC[start..stop]
        .lines()
        .filter(|line| line.starts_with('|'))
        .skip(2)
        .map(|line| {
            let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
            inner
                .split('|')
                .map(|cell| cell.trim().to_owned())
                .collect()
        })
        .collect();
    assert!(!rows.is_empty(), "table {name} has rows");
    rows
}

fn mode(cell: &str) -> SandboxMode {
    SandboxMode::from_name(cell).unwrap_or_else(|| panic!("mode {cell:?}"))
}

fn optional_mode(cell: &str) -> Option<SandboxMode> {
    (cell != "-").then(|| mode(cell))
}

fn policy(cell: &str) -> ApprovalPolicy {
    ApprovalPolicy::from_name(cell).unwrap_or_else(|| panic!("policy {cell:?}"))
}

/// `-` is absent; otherwise a backticked text with `\u{..}` escapes.
fn text(cell: &str) -> Option<String> {
    if cell == "-" {
        return None;
    }
    let inner = cell
        .strip_prefix('`')
        .and_then(|c| c.strip_suffix('`'))
        .unwrap_or_else(|| panic!("backticked {cell:?}"));
    let mut out = String::new();
    let mut rest = inner;
    while let Some(at) = rest.find("\\u{") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 3..];
        let close = after.find('}').unwrap();
        let code = u32::from_str_radix(&after[..close], 16).unwrap();
        out.push(char::from_u32(code).unwrap());
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Some(out)
}

fn table() -> PresetTable {
    let table_rows = rows("preset-table");
    let config = PresetConfig {
        rows: table_rows
            .iter()
            .map(|row| {
                let label = (row[3] != "-").then_some(row[3].as_str());
                (
                    row[0].as_str(),
                    Knobs::new(mode(&row[1]), policy(&row[2])),
                    label,
                )
            })
            .collect(),
        default: None,
        composed_defaults: Knobs::new(SandboxMode::WorkspaceWrite, ApprovalPolicy::OnRequest),
        executor: Executor::CONFINING,
    };
    PresetTable::load(&config).unwrap()
}

#[test]
fn preset_current_examples() {
    let table = table();
    for row in rows("preset-current") {
        let state = PermissionState {
            selection: (row[2] != "-").then(|| PresetKey::new(&row[2]).unwrap()),
            knobs: Knobs::new(mode(&row[0]), policy(&row[1])),
        };
        assert_eq!(table.current(&state).as_str(), row[3], "{row:?}");
    }
}

#[test]
fn preset_select_examples() {
    let table = table();
    for row in rows("preset-select") {
        let state = PermissionState::from_knobs(Knobs::new(mode(&row[0]), policy(&row[1])));
        let shown = match table.select(&row[2], &state) {
            Ok(writes) => writes
                .iter()
                .map(|write| match write {
                    Write::Intent(key) => format!("intent {key}"),
                    Write::Sandbox(mode) => format!("sandbox {mode}"),
                    Write::Approval(policy) => format!("approval {policy}"),
                })
                .collect::<Vec<_>>()
                .join(", "),
            Err(SelectError::Custom) => "error custom".to_owned(),
            Err(SelectError::Unknown { .. }) => "error unknown".to_owned(),
            Err(other) => panic!("{other}"),
        };
        assert_eq!(shown, row[3], "{row:?}");
    }
}

#[test]
fn escalation_examples() {
    for row in rows("escalation") {
        let target = text(&row[1]);
        let justification = text(&row[2]);
        let fields = EscalationFields {
            sandbox_permissions: target.as_deref(),
            justification: justification.as_deref(),
        };
        let executor = match row[3].as_str() {
            "confining" => Executor::CONFINING,
            "unconfined" => Executor::UNCONFINED,
            other => panic!("executor {other:?}"),
        };
        let shown =
            match check_escalation(&fields, mode(&row[0]), executor, EscalationLimits::DEFAULT) {
                Ok(None) => "none".to_owned(),
                Ok(Some(escalation)) => format!("escalate {}", escalation.target()),
                Err(error) => match error {
                    EscalationError::Unsupported { .. } => "unsupported",
                    EscalationError::NotAString { .. } => "not-a-string",
                    EscalationError::MissingJustification => "missing-justification",
                    EscalationError::MissingSandboxPermissions => "missing-sandbox-permissions",
                    EscalationError::UnknownMode { .. } => "unknown-mode",
                    EscalationError::BlankJustification => "blank-justification",
                    EscalationError::ForbiddenCharacter { .. } => "forbidden-character",
                    EscalationError::JustificationTooLong { .. } => "justification-too-long",
                    EscalationError::NotWider { .. } => "not-wider",
                    EscalationError::AboveCeiling { .. } => "above-ceiling",
                    other => panic!("{other}"),
                }
                .to_owned(),
            };
        assert_eq!(shown, row[4], "{row:?}");
    }
}

#[test]
fn delegation_examples() {
    for row in rows("delegation") {
        let pinned =
            PermissionState::from_knobs(Knobs::new(mode(&row[0]), ApprovalPolicy::OnRequest));
        let mut parent = Session::fresh(&pinned);
        if let Some(mode) = optional_mode(&row[1]) {
            parent.set_sandbox(mode);
        }
        let settings =
            PermissionState::from_knobs(Knobs::new(mode(&row[2]), ApprovalPolicy::OnRequest));
        let request = ChildRequest {
            sandbox: optional_mode(&row[3]),
            approval_exists: match row[4].as_str() {
                "yes" => true,
                "no" => false,
                other => panic!("approval exists {other:?}"),
            },
        };
        let child = spawn_child(&parent, request, &settings);
        assert_eq!(child.standing_mode(), mode(&row[5]), "{row:?}");
        assert_eq!(child.sandbox_override(), optional_mode(&row[6]), "{row:?}");
        assert_eq!(child.approval_policy(), policy(&row[7]), "{row:?}");
    }
}
