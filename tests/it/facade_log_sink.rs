//! The decision log as a sink of the facade: every decision is recorded once with the stage
//! and rule that decided and the two digests, never the arguments; a sink that fails turns the
//! decision into a deny (a negative twin: the same calls with a working sink are allowed).

use std::sync::{Arc, Mutex};

use seal::log::{LogEvent, LogEventType, LogRecord, LogSink, LogValue};
use seal::{DenyCause, Prepared, Seal};

#[derive(Default)]
struct Memory(Mutex<Vec<LogEvent>>);

impl LogSink for Memory {
    fn record(&self, event: LogEvent) -> Result<(), String> {
        self.0.lock().unwrap().push(event);
        Ok(())
    }
}

struct Broken;

impl LogSink for Broken {
    fn record(&self, _event: LogEvent) -> Result<(), String> {
        Err("disk full".to_owned())
    }
}

const RULES: &str = r#"{"permissions": {"allow": ["Bash(ls:*)"], "ask": ["Bash(git push:*)"], "deny": ["Bash(rm:*)"]}}"#;

fn seal_with(sink: Arc<dyn LogSink>, shadow: bool) -> Seal {
    let builder = Seal::builder().rules_json(RULES);
    let builder = if shadow {
        builder.shadow_log_sink(sink)
    } else {
        builder.log_sink(sink)
    };
    builder.build().unwrap()
}

fn decision(seal: &Seal, command: &str) -> &'static str {
    let session = seal.open_session("s-1").unwrap();
    let arguments = format!(r#"{{"command":"{command}"}}"#);
    let call = seal
        .call(&session, "claude-code", "toolu_1", "Bash", &arguments)
        .unwrap();
    match seal.prepare(&call, None) {
        Prepared::Run(_) => "allow",
        Prepared::Deny(_) => "deny",
        Prepared::NeedsApproval(_) => "ask",
    }
}

#[test]
fn every_decision_is_recorded_with_what_decided_it_and_no_argument() {
    let sink = Arc::new(Memory::default());
    let seal = seal_with(sink.clone(), false);
    assert_eq!(decision(&seal, "ls -la"), "allow");
    assert_eq!(decision(&seal, "rm -rf secret-dir"), "deny");
    assert_eq!(decision(&seal, "git push origin"), "ask");
    let events = sink.0.lock().unwrap();
    assert_eq!(events.len(), 3);
    let want = [
        ("allow", "rules: Bash(ls:*)"),
        ("deny", "rules: Bash(rm:*)"),
        ("ask", "rules: Bash(git push:*)"),
    ];
    for (event, (decision, by)) in events.iter().zip(want) {
        assert_eq!(event.kind(), LogEventType::Decision);
        assert_eq!(event.text_of("decision"), Some(decision));
        assert_eq!(event.text_of("by"), Some(by));
        assert_eq!(event.text_of("agent"), Some("claude-code"));
        assert_eq!(event.text_of("session"), Some("s-1"));
        assert_eq!(event.text_of("call_id"), Some("toolu_1"));
        assert_eq!(
            event.get("policy"),
            Some(&LogValue::Digest(seal.policy_digest()))
        );
        assert_eq!(event.get("shadow"), None);
        let bytes = LogRecord::new(0, 0, event.clone()).unwrap().to_bytes();
        let text = String::from_utf8(bytes).unwrap();
        assert!(
            !text.contains("secret-dir") && !text.contains("origin"),
            "{text}"
        );
    }
}

#[test]
fn a_decision_the_sink_cannot_record_is_a_deny() {
    let seal = seal_with(Arc::new(Broken), false);
    let session = seal.open_session("s-1").unwrap();
    for command in ["ls -la", "rm -rf t", "git push"] {
        let arguments = format!(r#"{{"command":"{command}"}}"#);
        let call = seal
            .call(&session, "claude-code", "toolu_1", "Bash", &arguments)
            .unwrap();
        let Prepared::Deny(deny) = seal.prepare(&call, None) else {
            panic!("{command} was not denied");
        };
        assert_eq!(deny.cause(), DenyCause::Failed);
        assert_eq!(
            deny.reason().as_str(),
            "the decision log could not record this call: disk full"
        );
    }
    // The twin: the same calls with a sink that records decide as the rules say.
    let working = seal_with(Arc::new(Memory::default()), false);
    assert_eq!(decision(&working, "ls -la"), "allow");
}

#[test]
fn a_shadow_sink_marks_every_event() {
    let sink = Arc::new(Memory::default());
    let seal = seal_with(sink.clone(), true);
    assert_eq!(decision(&seal, "rm -rf t"), "deny");
    let events = sink.0.lock().unwrap();
    assert_eq!(events[0].get("shadow"), Some(&LogValue::Flag));
}

/// Records until it has `left` events, then fails.
struct FailsAfter(Mutex<(usize, Vec<LogEvent>)>);

impl LogSink for FailsAfter {
    fn record(&self, event: LogEvent) -> Result<(), String> {
        let mut state = self.0.lock().unwrap();
        if state.0 == 0 {
            return Err("disk full".to_owned());
        }
        state.0 -= 1;
        state.1.push(event);
        Ok(())
    }
}

fn ask_then_settle(sink: Arc<dyn LogSink>) -> seal::Dispatch {
    let seal = seal_with(sink, false);
    let session = seal.open_session("s-1").unwrap();
    let call = seal
        .call(
            &session,
            "claude-code",
            "toolu_9",
            "Bash",
            r#"{"command":"git push"}"#,
        )
        .unwrap();
    let Prepared::NeedsApproval(pending) = seal.prepare(&call, None) else {
        panic!("not an ask");
    };
    pending.settle(seal::Outcome::AllowedOnce)
}

#[test]
fn an_approval_is_recorded_as_asked_then_decided() {
    let sink = Arc::new(Memory::default());
    assert!(ask_then_settle(sink.clone()).is_run());
    let events = sink.0.lock().unwrap();
    let kinds: Vec<LogEventType> = events.iter().map(LogEvent::kind).collect();
    assert_eq!(
        kinds,
        [
            LogEventType::Decision,
            LogEventType::ApprovalAsked,
            LogEventType::ApprovalDecided
        ]
    );
    assert_eq!(events[1].text_of("call_id"), Some("toolu_9"));
    assert_eq!(events[1].text_of("session"), Some("s-1"));
    assert_eq!(events[2].text_of("outcome"), Some("allowed-once"));
    assert_eq!(events[1].text_of("approval"), events[2].text_of("approval"));
}

#[test]
fn an_approval_the_sink_cannot_record_denies_the_call() {
    // The decision is recorded; the approval pair is not: the allowed-once answer does not run.
    let sink = Arc::new(FailsAfter(Mutex::new((1, Vec::new()))));
    let dispatch = ask_then_settle(sink);
    let seal::Dispatch::Deny(deny) = dispatch else {
        panic!("an unrecorded approval ran");
    };
    assert_eq!(deny.cause(), DenyCause::Failed);
    assert_eq!(
        deny.reason().as_str(),
        "the decision log could not record this approval: disk full"
    );
}
