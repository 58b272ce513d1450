//! Presets and sessions: one test per rule of the preset part of the policy design (the
//! derived `custom`, derivation with the recorded-selection tie-break, ordered writes, load-time
//! failures, fresh-session pinning, seeded sessions), each named by the behaviour it pins.

use seal_policy::approval::ApprovalPolicy;
use seal_policy::preset::{
    Current, Executor, Knobs, PermissionState, PresetConfig, PresetKey, PresetKeyError,
    PresetLimits, PresetLoadError, PresetTable, SandboxMode, SeededFacts, SelectError, Session,
    Settings, Write,
};

use ApprovalPolicy::{Never, OnRequest};
use SandboxMode::{DangerFullAccess, ReadOnly, WorkspaceWrite};

fn knobs(sandbox: SandboxMode, approval: ApprovalPolicy) -> Knobs {
    Knobs::new(sandbox, approval)
}

/// read-only, auto (workspace-write, on-request), full (danger, never), and `agent` sharing the
/// `auto` bundle after it.
fn config() -> PresetConfig<'static> {
    PresetConfig {
        rows: vec![
            ("read-only", knobs(ReadOnly, OnRequest), Some("Read only")),
            ("auto", knobs(WorkspaceWrite, OnRequest), Some("Auto")),
            ("full", knobs(DangerFullAccess, Never), Some("Full access")),
            ("agent", knobs(WorkspaceWrite, OnRequest), None),
        ],
        default: None,
        composed_defaults: knobs(WorkspaceWrite, OnRequest),
        executor: Executor::CONFINING,
    }
}

fn table() -> PresetTable {
    PresetTable::load(&config()).unwrap()
}

fn key(text: &str) -> PresetKey {
    PresetKey::new(text).unwrap()
}

#[test]
fn custom_cannot_be_configured_as_a_row() {
    let mut config = config();
    config
        .rows
        .push(("custom", knobs(ReadOnly, Never), Some("Custom")));
    assert_eq!(
        PresetTable::load(&config),
        Err(PresetLoadError::InvalidKey(PresetKeyError::Reserved))
    );
    assert_eq!(PresetKey::new("custom"), Err(PresetKeyError::Reserved));
}

#[test]
fn custom_cannot_be_selected() {
    let table = table();
    let mut settings = Settings::new(&table);
    let before = settings.clone();
    assert_eq!(settings.select(&table, "custom"), Err(SelectError::Custom));
    assert_eq!(settings, before, "a refused selection writes nothing");
    let mut session = settings.open_session();
    assert_eq!(session.select(&table, "custom"), Err(SelectError::Custom));
}

#[test]
fn an_unknown_preset_cannot_be_selected() {
    let table = table();
    let state = table.default_state().clone();
    assert_eq!(
        table.select("Auto", &state),
        Err(SelectError::Unknown {
            key: "Auto".to_owned()
        })
    );
}

#[test]
fn current_is_derived_from_the_knobs() {
    let table = table();
    let state = PermissionState::from_knobs(knobs(ReadOnly, OnRequest));
    assert_eq!(table.current(&state).as_str(), "read-only");
    let state = PermissionState::from_knobs(knobs(DangerFullAccess, Never));
    assert_eq!(table.current(&state).as_str(), "full");
}

#[test]
fn knobs_matching_no_row_derive_custom() {
    let table = table();
    let state = PermissionState::from_knobs(knobs(ReadOnly, Never));
    assert_eq!(table.current(&state), Current::Custom);
    assert_eq!(table.current(&state).as_str(), "custom");
}

#[test]
fn a_recorded_selection_that_still_matches_wins_a_tie() {
    let table = table();
    let state = PermissionState {
        selection: Some(key("agent")),
        knobs: knobs(WorkspaceWrite, OnRequest),
    };
    assert_eq!(table.current(&state).as_str(), "agent");
}

#[test]
fn without_a_selection_the_first_matching_row_wins() {
    let table = table();
    let state = PermissionState::from_knobs(knobs(WorkspaceWrite, OnRequest));
    assert_eq!(table.current(&state).as_str(), "auto");
}

#[test]
fn a_selection_that_no_longer_matches_loses_to_the_derivation() {
    let table = table();
    // `full` was selected, then the sandbox knob was changed by hand.
    let state = PermissionState {
        selection: Some(key("full")),
        knobs: knobs(WorkspaceWrite, OnRequest),
    };
    assert_eq!(table.current(&state).as_str(), "auto");
    let state = PermissionState {
        selection: Some(key("full")),
        knobs: knobs(ReadOnly, Never),
    };
    assert_eq!(table.current(&state), Current::Custom);
}

#[test]
fn selecting_writes_intent_first_then_only_changed_knobs() {
    let table = table();
    let from_auto = PermissionState::from_knobs(knobs(WorkspaceWrite, OnRequest));
    assert_eq!(
        table.select("full", &from_auto).unwrap(),
        vec![
            Write::Intent(key("full")),
            Write::Sandbox(DangerFullAccess),
            Write::Approval(Never),
        ]
    );
    assert_eq!(
        table.select("read-only", &from_auto).unwrap(),
        vec![Write::Intent(key("read-only")), Write::Sandbox(ReadOnly)]
    );
}

#[test]
fn selecting_a_preset_sharing_the_bundle_writes_only_the_intent() {
    let table = table();
    let mut state = PermissionState::from_knobs(knobs(WorkspaceWrite, OnRequest));
    let writes = table.select("agent", &state).unwrap();
    assert_eq!(writes, vec![Write::Intent(key("agent"))]);
    state.apply(&writes);
    assert_eq!(table.current(&state).as_str(), "agent");
}

#[test]
fn load_fails_on_a_non_confining_executor() {
    let mut config = config();
    config.executor = Executor::UNCONFINED;
    assert_eq!(
        PresetTable::load(&config),
        Err(PresetLoadError::NonConfiningExecutor)
    );
}

#[test]
fn load_fails_on_an_unresolved_default() {
    let mut config = config();
    config.default = Some("safe");
    assert_eq!(
        PresetTable::load(&config),
        Err(PresetLoadError::UnresolvedDefault {
            key: "safe".to_owned()
        })
    );
    config.default = Some("custom");
    assert!(matches!(
        PresetTable::load(&config),
        Err(PresetLoadError::UnresolvedDefault { .. })
    ));
}

#[test]
fn load_fails_when_the_defaults_match_no_row_without_an_explicit_default() {
    let mut config = config();
    config.composed_defaults = knobs(ReadOnly, Never);
    assert_eq!(
        PresetTable::load(&config),
        Err(PresetLoadError::DefaultsMatchNoRow {
            knobs: knobs(ReadOnly, Never)
        })
    );
}

#[test]
fn an_explicit_default_resolves_even_when_the_composed_defaults_match_no_row() {
    let mut config = config();
    config.composed_defaults = knobs(ReadOnly, Never);
    config.default = Some("read-only");
    let table = PresetTable::load(&config).unwrap();
    assert_eq!(table.default_state().knobs, knobs(ReadOnly, OnRequest));
    assert_eq!(table.current(table.default_state()).as_str(), "read-only");
}

#[test]
fn an_explicit_default_sharing_a_bundle_is_the_current_value() {
    let mut config = config();
    config.default = Some("agent");
    let table = PresetTable::load(&config).unwrap();
    assert_eq!(table.current(table.default_state()).as_str(), "agent");
}

#[test]
fn load_fails_on_malformed_or_duplicate_keys_labels_and_limits() {
    let mut bad = config();
    bad.rows.push(("auto", knobs(ReadOnly, Never), None));
    assert_eq!(
        PresetTable::load(&bad),
        Err(PresetLoadError::DuplicateKey {
            key: "auto".to_owned()
        })
    );
    for name in ["", "Auto", "1st", "a b", "é", &"a".repeat(65)] {
        let mut bad = config();
        bad.rows.push((name, knobs(ReadOnly, Never), None));
        assert!(
            matches!(
                PresetTable::load(&bad),
                Err(PresetLoadError::InvalidKey(
                    PresetKeyError::Malformed { .. }
                ))
            ),
            "{name:?}"
        );
    }
    for label in ["", "  ", "a\u{202e}b", "a\nb"] {
        let mut bad = config();
        bad.rows.push(("x", knobs(ReadOnly, Never), Some(label)));
        assert!(
            matches!(
                PresetTable::load(&bad),
                Err(PresetLoadError::InvalidLabel { .. })
            ),
            "{label:?}"
        );
    }
    let long = "l".repeat(257);
    let mut bad = config();
    bad.rows.push(("x", knobs(ReadOnly, Never), Some(&long)));
    assert!(matches!(
        PresetTable::load(&bad),
        Err(PresetLoadError::LabelTooLong { max: 256, .. })
    ));
    let mut empty = config();
    empty.rows.clear();
    assert_eq!(PresetTable::load(&empty), Err(PresetLoadError::Empty));
    let limits = PresetLimits::DEFAULT.with_max_rows(3);
    assert_eq!(
        PresetTable::load_with(&config(), limits),
        Err(PresetLoadError::TooManyRows { rows: 4, max: 3 })
    );
}

#[test]
fn a_fresh_session_pins_its_permission_facts_at_creation() {
    let table = table();
    let mut settings = Settings::new(&table);
    settings.select(&table, "full").unwrap();
    let session = settings.open_session();
    assert_eq!(session.pinned(), settings.state());
    assert_eq!(session.standing_mode(), DangerFullAccess);
    assert_eq!(session.approval_policy(), Never);
    assert_eq!(session.pinned().selection, Some(key("full")));
    assert_eq!(
        session.sandbox_override(),
        None,
        "the pinned default is not an override"
    );
}

#[test]
fn later_settings_changes_reach_only_future_sessions() {
    let table = table();
    let mut settings = Settings::new(&table);
    let early = settings.open_session();
    let early_copy = early.clone();
    settings.select(&table, "read-only").unwrap();
    settings.set_approval(Never);
    assert_eq!(early, early_copy);
    assert_eq!(early.standing_mode(), WorkspaceWrite);
    assert_eq!(early.approval_policy(), OnRequest);
    let late = settings.open_session();
    assert_eq!(late.standing_mode(), ReadOnly);
    assert_eq!(late.approval_policy(), Never);
}

#[test]
fn selecting_for_the_current_session_leaves_settings_and_other_sessions_alone() {
    let table = table();
    let settings = Settings::new(&table);
    let before = settings.clone();
    let mut one = settings.open_session();
    let two = settings.open_session();
    let writes = one.select(&table, "read-only").unwrap();
    assert_eq!(
        writes,
        vec![Write::Intent(key("read-only")), Write::Sandbox(ReadOnly)]
    );
    assert_eq!(one.standing_mode(), ReadOnly);
    assert_eq!(one.sandbox_override(), Some(ReadOnly));
    assert_eq!(table.current(&one.state()).as_str(), "read-only");
    assert_eq!(two.standing_mode(), WorkspaceWrite);
    assert_eq!(settings, before);
}

#[test]
fn a_seeded_session_keeps_its_effective_permission_and_receives_only_missing_facts() {
    let table = table();
    let mut settings = Settings::new(&table);
    settings.select(&table, "full").unwrap();
    let seed = SeededFacts {
        selection: None,
        sandbox: Some(ReadOnly),
        sandbox_override: None,
        approval: None,
    };
    let session = Session::resume(&seed, settings.state());
    assert_eq!(session.standing_mode(), ReadOnly, "kept from the seed");
    assert_eq!(session.approval_policy(), Never, "missing: from settings");
    assert_eq!(session.pinned().selection, Some(key("full")));
    // The filled-in selection no longer matches the knobs, so the derivation ignores it.
    assert_eq!(table.current(&session.state()), Current::Custom);

    let seed = SeededFacts {
        selection: Some(key("auto")),
        sandbox: Some(WorkspaceWrite),
        sandbox_override: Some(ReadOnly),
        approval: Some(OnRequest),
    };
    let session = Session::resume(&seed, settings.state());
    assert_eq!(
        session.standing_mode(),
        ReadOnly,
        "the seeded override wins"
    );
    assert_eq!(session.sandbox_override(), Some(ReadOnly));
    assert_eq!(session.approval_policy(), OnRequest);
    assert_eq!(session.pinned().selection, Some(key("auto")));
}

#[test]
fn an_empty_seed_is_a_fresh_session() {
    let table = table();
    let settings = Settings::new(&table);
    assert_eq!(
        Session::resume(&SeededFacts::default(), settings.state()),
        settings.open_session()
    );
}

#[test]
fn the_sandbox_order_is_total_and_meet_is_the_narrower() {
    let all = SandboxMode::ALL;
    for a in all {
        for b in all {
            assert_eq!(a.meet(b), if a <= b { a } else { b });
            assert_eq!(a.is_wider_than(b), b < a);
            assert!(a <= b || b <= a);
        }
    }
}

#[test]
fn errors_display_lowercase_without_trailing_period() {
    let messages = [
        PresetLoadError::NonConfiningExecutor.to_string(),
        PresetLoadError::UnresolvedDefault {
            key: "x\u{202e}".to_owned(),
        }
        .to_string(),
        SelectError::Custom.to_string(),
        PresetKeyError::Reserved.to_string(),
    ];
    for message in messages {
        let first = message.chars().next().unwrap();
        assert!(!first.is_uppercase(), "{message}");
        assert!(!message.ends_with('.'), "{message}");
        assert!(!message.contains('\u{202e}'), "{message}");
    }
}
