//! Preset derivation and selection against a naive oracle, on random tables (with shared
//! bundles), random knob states and random recorded selections:
//!
//! - the current value is the recorded selection while its row matches, else the first
//!   matching row, else `custom`;
//! - selecting any row from any state writes the intent first, then exactly the knobs that
//!   differ, and afterwards the current value is the selected row;
//! - a fresh session pins the settings; changing the settings afterwards leaves it unchanged.
//!
//! Negative control, caught with a fixed seed: a derivation that ignores the recorded selection
//! (first matching row only), which loses a selected row sharing its bundle with an earlier one.

use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use seal_policy::approval::ApprovalPolicy;
use seal_policy::preset::{
    Executor, Knobs, PermissionState, PresetConfig, PresetKey, PresetTable, SandboxMode, Session,
    Write,
};

#[derive(Debug, Clone)]
struct Scenario {
    bundles: Vec<Knobs>,
    knobs: Knobs,
    selection: Option<usize>,
    select: usize,
    later: Knobs,
}

/// A derivation under test: the current value's key (`custom` for none).
type Derive = fn(&PresetTable, &PermissionState) -> String;

fn real(table: &PresetTable, state: &PermissionState) -> String {
    table.current(state).as_str().to_owned()
}

/// Negative control: the recorded selection is ignored.
fn first_match_only(table: &PresetTable, state: &PermissionState) -> String {
    table
        .rows()
        .iter()
        .find(|row| row.knobs == state.knobs)
        .map_or("custom".to_owned(), |row| row.key.as_str().to_owned())
}

fn knobs() -> impl Strategy<Value = Knobs> {
    (
        prop::sample::select(SandboxMode::ALL.to_vec()),
        prop::sample::select(vec![ApprovalPolicy::OnRequest, ApprovalPolicy::Never]),
    )
        .prop_map(|(sandbox, approval)| Knobs::new(sandbox, approval))
}

fn scenario() -> impl Strategy<Value = Scenario> {
    prop::collection::vec(knobs(), 1..6).prop_flat_map(|bundles| {
        let n = bundles.len();
        (
            Just(bundles),
            knobs(),
            prop::option::of(0..n),
            0..n,
            knobs(),
        )
            .prop_map(|(bundles, knobs, selection, select, later)| Scenario {
                bundles,
                knobs,
                selection,
                select,
                later,
            })
    })
}

fn key_of(index: usize) -> String {
    format!("p{index}")
}

fn load(scenario: &Scenario) -> PresetTable {
    let keys: Vec<String> = (0..scenario.bundles.len()).map(key_of).collect();
    let config = PresetConfig {
        rows: keys
            .iter()
            .zip(&scenario.bundles)
            .map(|(key, knobs)| (key.as_str(), *knobs, None))
            .collect(),
        default: Some("p0"),
        composed_defaults: scenario.bundles[0],
        executor: Executor::CONFINING,
    };
    PresetTable::load(&config).unwrap()
}

fn oracle(scenario: &Scenario, state: &PermissionState) -> String {
    let matches = |i: usize| scenario.bundles[i] == state.knobs;
    if let Some(selected) = &state.selection {
        if let Some(i) = (0..scenario.bundles.len()).find(|&i| key_of(i) == selected.as_str()) {
            if matches(i) {
                return key_of(i);
            }
        }
    }
    (0..scenario.bundles.len())
        .find(|&i| matches(i))
        .map_or("custom".to_owned(), key_of)
}

fn presets(derive: Derive, scenario: &Scenario) -> Result<(), TestCaseError> {
    let table = load(scenario);
    let mut state = PermissionState {
        selection: scenario
            .selection
            .map(|i| PresetKey::new(&key_of(i)).unwrap()),
        knobs: scenario.knobs,
    };
    prop_assert_eq!(derive(&table, &state), oracle(scenario, &state));

    let target = key_of(scenario.select);
    let bundle = scenario.bundles[scenario.select];
    let writes = table.select(&target, &state).unwrap();
    let mut expected = vec![Write::Intent(PresetKey::new(&target).unwrap())];
    if bundle.sandbox != state.knobs.sandbox {
        expected.push(Write::Sandbox(bundle.sandbox));
    }
    if bundle.approval != state.knobs.approval {
        expected.push(Write::Approval(bundle.approval));
    }
    prop_assert_eq!(&writes, &expected);
    state.apply(&writes);
    prop_assert_eq!(derive(&table, &state), target);

    let session = Session::fresh(&state);
    let pinned = session.clone();
    let mut settings = state.clone();
    settings.knobs = scenario.later;
    let later = Session::fresh(&settings);
    prop_assert_eq!(&session, &pinned);
    prop_assert_eq!(later.standing_mode(), scenario.later.sandbox);
    prop_assert_eq!(session.standing_mode(), bundle.sandbox);
    Ok(())
}

fn fixed_runner(cases: u32) -> TestRunner {
    seal_test_support::seeded(cases)
}

fn counterexample(derive: Derive) -> Option<Scenario> {
    seal_test_support::counterexample(
        fixed_runner(1024).run(&scenario(), |scenario| presets(derive, &scenario)),
    )
}

proptest! {
    #![proptest_config(seal_test_support::no_persistence(2048))]

    #[test]
    fn presets_derive_select_and_pin_as_the_oracle_says(scenario in scenario()) {
        presets(real, &scenario)?;
    }
}

#[test]
fn presets_hold_for_the_real_table_with_a_fixed_seed() {
    assert!(counterexample(real).is_none());
}

#[test]
fn presets_catch_a_derivation_that_ignores_the_recorded_selection() {
    let found = counterexample(first_match_only).expect("the suite finds a counterexample");
    let shared = found
        .bundles
        .iter()
        .enumerate()
        .any(|(i, a)| found.bundles[i + 1..].contains(a));
    assert!(
        shared,
        "a counterexample needs two rows sharing a bundle: {found:?}"
    );
}
