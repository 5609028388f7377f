//! `RunLifecycle`: the run lifecycle rules of spec §9.1 (`L1`–`L4`) for every event type
//! in every status, and the verifier and reducer that keep one.

use ag_ui_core::*;

/// The spec's table (§9.1 L1–L4), written out: what may come in each status.
fn allowed(status: RunStatus, t: EventType) -> Result<(), Rule> {
    let start = t == EventType::RunStarted;
    let error = t == EventType::RunError;
    match status {
        RunStatus::Idle => (start || error).then_some(()).ok_or(Rule::L1),
        RunStatus::Running => (!start).then_some(()).ok_or(Rule::L2),
        RunStatus::Finished => (start || error).then_some(()).ok_or(Rule::L4),
        RunStatus::Errored => start.then_some(()).ok_or(Rule::L3),
        other => panic!("a status the table does not know: {other:?}"),
    }
}

/// A lifecycle in `status`, reached by pushing run events.
fn reach(status: RunStatus) -> RunLifecycle {
    let mut run = RunLifecycle::new();
    let path: &[EventType] = match status {
        RunStatus::Running => &[EventType::RunStarted],
        RunStatus::Finished => &[EventType::RunStarted, EventType::RunFinished],
        RunStatus::Errored => &[EventType::RunError],
        _ => &[],
    };
    for &t in path {
        run.push(t).unwrap();
    }
    assert_eq!(run.status(), status);
    run
}

const STATUSES: [RunStatus; 4] = [
    RunStatus::Idle,
    RunStatus::Running,
    RunStatus::Finished,
    RunStatus::Errored,
];

#[test]
fn every_event_type_in_every_status_follows_the_spec_table() {
    for status in STATUSES {
        let run = reach(status);
        assert_eq!(run.is_running(), status == RunStatus::Running);
        assert_eq!(
            run.has_ended(),
            matches!(status, RunStatus::Finished | RunStatus::Errored)
        );
        for &t in EventType::ALL {
            assert_eq!(run.check(t), allowed(status, t), "{t} when {status:?}");
            let mut pushed = run;
            match pushed.push(t) {
                // A refused event changes nothing.
                Err(_) => assert_eq!(pushed, run, "{t} when {status:?}"),
                Ok(()) => {
                    let expected = match t {
                        EventType::RunStarted => RunStatus::Running,
                        EventType::RunFinished => RunStatus::Finished,
                        EventType::RunError => RunStatus::Errored,
                        _ => status,
                    };
                    assert_eq!(pushed.status(), expected, "{t} when {status:?}");
                }
            }
            // `advance` moves on whatever it is given.
            let mut advanced = run;
            advanced.advance(t);
            if let Ok(()) = run.check(t) {
                assert_eq!(advanced, pushed);
            }
            let v = run.check_at(t, 7);
            assert_eq!(
                v.as_ref().map_err(|v| v.rule),
                run.check(t).as_ref().map_err(|r| *r)
            );
            if let Err(v) = v {
                assert_eq!(v.index, 7);
                assert!(v.message.contains(t.as_str()) || v.rule == Rule::L2, "{v}");
            }
        }
    }
    assert_eq!(RunLifecycle::default(), RunLifecycle::new());
    assert_eq!(RunLifecycle::new().status(), RunStatus::Idle);
}

/// The verifier refuses what its lifecycle refuses, with the lifecycle's violation, and
/// its lifecycle follows the accepted events (not the refused ones); the reducer's status
/// follows every event it is given.
#[test]
fn the_verifier_and_the_reducer_keep_the_lifecycle() {
    let started: Event = RunStartedEvent::new("t", "r").into();
    let finished: Event = RunFinishedEvent::new("t", "r").into();
    let errored: Event = RunErrorEvent::new("boom").into();
    let state: Event = StateSnapshotEvent::new(serde_json::json!({})).into();
    let cases: [(&[&Event], &Event); 5] = [
        (&[], &state),
        (&[&started], &started),
        (&[&started, &finished], &state),
        (&[&errored], &errored),
        (&[&started, &errored], &finished),
    ];
    for (before, refused) in cases {
        let mut verifier = Verifier::new();
        let mut thread = ThreadState::new();
        for e in before {
            verifier.push(e).unwrap();
            thread.apply(e);
        }
        let lifecycle = verifier.lifecycle();
        assert_eq!(lifecycle.status(), thread.run_status());
        let expected = lifecycle
            .check_at(refused.event_type(), before.len())
            .unwrap_err();
        assert_eq!(verifier.push(refused).unwrap_err(), expected);
        assert_eq!(verifier.lifecycle(), lifecycle);
    }
    // The reducer applies whatever it is given.
    let mut thread = ThreadState::new();
    thread.apply(&finished);
    assert_eq!(thread.run_status(), RunStatus::Finished);
    thread.apply(&started);
    thread.apply(&started);
    assert_eq!(thread.run_status(), RunStatus::Running);
}
