//! Array-aware state diffs, and the emitter's state: the smaller of snapshot and delta,
//! `state` and `state_delta` mixed.

use ag_ui_builders::patch::diff;
use ag_ui_builders::{BuildError, RunEmitter, event};
use ag_ui_core::{Event, JsonPatch, JsonPatchOperation as Op, ThreadState};
use serde_json::{Value, json};

/// `diff(a, b)` applied to `a` gives `b`.
fn roundtrip(a: &Value, b: &Value) -> JsonPatch {
    let patch = diff(a, b);
    let mut doc = a.clone();
    patch.apply(&mut doc).unwrap();
    assert_eq!(&doc, b, "patch {patch:?}");
    patch
}

#[test]
fn appends_removals_and_changes_in_arrays() {
    let todos = |items: Value| json!({"todos": items});
    // An append is `add /-`.
    assert_eq!(
        roundtrip(
            &todos(json!(["a", "b"])),
            &todos(json!(["a", "b", "c", "d"]))
        )
        .0,
        [Op::add("/todos/-", "c"), Op::add("/todos/-", "d")]
    );
    // A removal anywhere is one `remove /i`.
    assert_eq!(
        roundtrip(&todos(json!(["a", "b", "c"])), &todos(json!(["a", "c"]))).0,
        [Op::remove("/todos/1")]
    );
    assert_eq!(
        roundtrip(&todos(json!(["a", "b", "c"])), &todos(json!(["b", "c"]))).0,
        [Op::remove("/todos/0")]
    );
    // An insertion in the middle is one `add /i`.
    assert_eq!(
        roundtrip(&todos(json!(["a", "c"])), &todos(json!(["a", "b", "c"]))).0,
        [Op::add("/todos/1", "b")]
    );
    // A changed element is diffed in place.
    let before = todos(json!([{"title": "milk", "done": false}, {"title": "eggs", "done": false}]));
    let after = todos(json!([{"title": "milk", "done": false}, {"title": "eggs", "done": true}]));
    assert_eq!(
        roundtrip(&before, &after).0,
        [Op::replace("/todos/1/done", true)]
    );
    // One removed at the front, one appended: two operations, not a rewrite.
    assert_eq!(
        roundtrip(
            &todos(json!(["a", "b", "c"])),
            &todos(json!(["b", "c", "d"]))
        )
        .0,
        [Op::remove("/todos/0"), Op::add("/todos/-", "d")]
    );
    // A type change replaces the element; a whole new array in place of a scalar too.
    assert_eq!(
        roundtrip(&json!([1, [2], 3]), &json!([1, {"x": 2}, 3])).0,
        [Op::replace("/1", json!({"x": 2}))]
    );
    assert_eq!(
        roundtrip(&json!({"a": 1}), &json!({"a": [1]})).0,
        [Op::replace("/a", json!([1]))]
    );
    assert!(diff(&json!([1, 2]), &json!([1, 2])).is_empty());
    // Keys that need escaping, nested arrays.
    roundtrip(
        &json!({"a/b": [[1, 2], [3]], "m~n": []}),
        &json!({"a/b": [[1, 2, 5], [4], [3]], "m~n": [null]}),
    );
}

#[test]
fn every_edit_of_small_arrays_round_trips() {
    // All arrays over {0, 1, 2} up to length 4, each against each: the patch applies and
    // gives the target; an element kept by the target is never removed and added again
    // when the arrays share it (the patch is no longer than a rewrite).
    let mut arrays = vec![vec![]];
    for _ in 0..4 {
        let longer: Vec<Vec<u8>> = arrays
            .iter()
            .filter(|a: &&Vec<u8>| a.len() == arrays.last().map_or(0, Vec::len))
            .flat_map(|a| (0..3u8).map(move |x| [a.clone(), vec![x]].concat()))
            .collect();
        arrays.extend(longer);
    }
    for a in &arrays {
        for b in &arrays {
            let (va, vb) = (json!(a), json!(b));
            let patch = roundtrip(&va, &vb);
            assert!(
                patch.len() <= a.len().max(b.len()),
                "{a:?} -> {b:?}: {patch:?}"
            );
        }
    }
}

#[test]
fn large_arrays_fall_back_to_positions() {
    let a: Vec<u32> = (0..200).collect();
    let b: Vec<u32> = (0..200)
        .map(|i| if i % 2 == 0 { i } else { i + 1000 })
        .collect();
    roundtrip(&json!(a), &json!(b));
    let c: Vec<u32> = (0..150).rev().collect();
    roundtrip(&json!(a), &json!(c));
}

fn state_events(run: &mut RunEmitter) -> Vec<Event> {
    run.drain()
        .into_iter()
        .filter(|e| matches!(e, Event::StateSnapshot(_) | Event::StateDelta(_)))
        .collect()
}

/// What a client holds after `events`.
fn client_state(events: &[Event]) -> Value {
    let mut thread = ThreadState::new();
    for e in events {
        thread.apply(e);
    }
    thread.state().clone()
}

#[test]
fn the_smaller_of_snapshot_and_delta_is_sent() {
    let mut run = RunEmitter::start("t", "r");
    let todos: Vec<String> = (0..30).map(|i| format!("todo {i}")).collect();
    run.state(&json!({"todos": todos})).unwrap();
    let mut more = todos.clone();
    more.push("one more".into());
    run.state(&json!({"todos": more})).unwrap();
    // Small: the snapshot is smaller than any delta.
    run.state(&json!({"n": 1})).unwrap();
    let events = state_events(&mut run);
    let kinds: Vec<&str> = events.iter().map(|e| e.event_type().as_str()).collect();
    assert_eq!(kinds, ["STATE_SNAPSHOT", "STATE_DELTA", "STATE_SNAPSHOT"]);
    let Event::StateDelta(delta) = &events[1] else {
        unreachable!()
    };
    assert_eq!(delta.delta.0, [Op::add("/todos/-", "one more")]);
    assert_eq!(client_state(&events), json!({"n": 1}));
}

#[test]
fn state_and_state_delta_mix() {
    let big = "x".repeat(200);
    let mut run = RunEmitter::start("t", "r");
    run.state(&json!({"todos": ["a"], "big": big})).unwrap();
    run.state_delta([Op::add("/todos/-", "b")]).unwrap();
    run.push_event(event::state_delta([Op::add("/todos/-", "c")]).unwrap())
        .unwrap();
    // The emitter knows the state is now [a, b, c]: the next change is one operation.
    run.state(&json!({"todos": ["a", "b", "c", "d"], "big": big}))
        .unwrap();
    let events = state_events(&mut run);
    let Event::StateDelta(last) = events.last().unwrap() else {
        panic!("{events:?}")
    };
    assert_eq!(last.delta.0, [Op::add("/todos/-", "d")]);
    assert_eq!(
        client_state(&events),
        json!({"todos": ["a", "b", "c", "d"], "big": big})
    );
    // A delta that does not apply to the known state is refused, nothing emitted.
    let err = run.state_delta([Op::remove("/missing")]).unwrap_err();
    assert!(matches!(err, BuildError::PatchFailed { .. }), "{err}");
    assert_eq!(err.pointer(), Some("/delta/0"));
    assert!(
        run.push_event(event::state_delta([Op::replace("/todos/9", 1)]).unwrap())
            .is_err()
    );
    assert!(state_events(&mut run).is_empty());
}

#[test]
fn a_baseline_lets_the_first_change_be_a_delta() {
    let big = "x".repeat(200);
    let mut run = RunEmitter::start("t", "r").with_state_baseline(json!({"todos": [], "big": big}));
    run.state(&json!({"todos": ["a"], "big": big})).unwrap();
    let events = state_events(&mut run);
    let Event::StateDelta(delta) = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!(delta.delta.0, [Op::add("/todos/-", "a")]);
    // Without a baseline, the state is unknown: a delta is sent as is.
    let mut bare = RunEmitter::start("t", "r2");
    bare.state_delta([Op::add("/x", 1)]).unwrap();
    assert_eq!(state_events(&mut bare).len(), 1);
}
