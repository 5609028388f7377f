//! The threads API's JSON and query strings (`ag_ui_core::api`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ag_ui_core::api::{
    Archived, Multitask, RunEndKind, RunPhase, RunRecord, RunSummary, ThreadDetail, ThreadPage,
    ThreadPatch, ThreadQuery, ThreadSummary,
};
use ag_ui_core::{Message, TokenUsage};
use serde_json::{Value, json};

fn at(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

#[test]
fn a_summary_is_the_documented_object_and_reads_back() {
    let mut s = ThreadSummary::new("t/1", at(1_765_000_000_123));
    s.updated_at = at(1_765_000_100_000);
    s.run_count = 2;
    s.last_run = Some(RunSummary::new(
        "r2",
        RunPhase::Ended,
        Some(RunEndKind::Interrupt),
    ));
    let v = serde_json::to_value(&s).unwrap();
    assert_eq!(
        v,
        json!({
            "threadId": "t/1", "title": null, "metadata": {},
            "createdAt": "2025-12-06T05:46:40.123Z", "updatedAt": "2025-12-06T05:48:20.000Z",
            "archived": false, "runCount": 2,
            "lastRun": {"runId": "r2", "status": "ended", "outcome": "interrupt"}
        })
    );
    let back: ThreadSummary = serde_json::from_value(v).unwrap();
    assert_eq!(back, s);
    let page = ThreadPage::new(vec![s], None);
    let v = serde_json::to_value(&page).unwrap();
    assert_eq!(v["nextCursor"], Value::Null);
    assert_eq!(serde_json::from_value::<ThreadPage>(v).unwrap(), page);
}

#[test]
fn a_run_record_writes_null_while_running_and_the_usage_array_once_ended() {
    let running = RunRecord::new("r1", at(0));
    let v = serde_json::to_value(&running).unwrap();
    assert_eq!(v["status"], "running");
    for k in ["outcome", "endedAt", "usage", "errorCode", "traceId"] {
        assert_eq!(v[k], Value::Null, "{k}");
    }
    assert_eq!(v["startedAt"], "1970-01-01T00:00:00.000Z");
    let mut ended = running.clone();
    ended.status = RunPhase::Ended;
    ended.outcome = Some(RunEndKind::Cancelled);
    ended.ended_at = Some(at(1500));
    ended.usage = vec![serde_json::from_value::<TokenUsage>(json!({"inputTokens": 3})).unwrap()];
    ended.rolled_back = true;
    ended.trace_id = Some("4bf92f3577b34da6a3ce929d0e0e4736".to_owned());
    ended.input_messages = vec![
        serde_json::from_value::<Message>(json!({"id": "m", "role": "user", "content": "hi"}))
            .unwrap(),
    ];
    let v = serde_json::to_value(&ended).unwrap();
    assert_eq!(v["usage"], json!([{"inputTokens": 3}]));
    assert_eq!(v["endedAt"], "1970-01-01T00:00:01.500Z");
    assert_eq!(v["rolledBack"], true);
    assert_eq!(v["traceId"], "4bf92f3577b34da6a3ce929d0e0e4736");
    // A record written before the trace id was kept reads as having none.
    let mut older = v.clone();
    older.as_object_mut().unwrap().remove("traceId");
    assert_eq!(
        serde_json::from_value::<RunRecord>(older).unwrap().trace_id,
        None
    );
    assert_eq!(serde_json::from_value::<RunRecord>(v).unwrap(), ended);
}

#[test]
fn a_detail_flattens_the_summary() {
    let d = ThreadDetail::new(
        ThreadSummary::new("t", at(0)),
        Vec::new(),
        json!({"n": 1}),
        vec![RunRecord::new("r", at(0))],
    );
    let v = serde_json::to_value(&d).unwrap();
    assert_eq!(v["threadId"], "t");
    assert_eq!(v["state"], json!({"n": 1}));
    assert_eq!(v["runs"][0]["runId"], "r");
    assert_eq!(serde_json::from_value::<ThreadDetail>(v).unwrap(), d);
}

#[test]
fn list_queries_read_and_write_their_parameters() {
    let q = ThreadQuery::from_query(
        "limit=100&cursor=a%2Bb&archived=true&metadata.k%20x=v%26w&other=1",
    )
    .unwrap();
    assert_eq!(q.limit, 100);
    assert_eq!(q.cursor.as_deref(), Some("a+b"));
    assert_eq!(q.archived, Archived::Only);
    assert_eq!(q.metadata, vec![("k x".to_owned(), "v&w".to_owned())]);
    assert_eq!(ThreadQuery::from_query(&q.to_query()).unwrap(), q);
    assert_eq!(ThreadQuery::from_query("").unwrap(), ThreadQuery::new());
    for (bad, parameter) in [
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=1000", "limit"),
        ("limit=-1", "limit"),
        ("limit=x", "limit"),
        ("limit=1&limit=2", "limit"),
        ("cursor=", "cursor"),
        ("archived=maybe", "archived"),
        ("archived=FALSE", "archived"),
        ("metadata.=x", "metadata."),
    ] {
        let e = ThreadQuery::from_query(bad).unwrap_err();
        assert_eq!(e.parameter, parameter, "{bad}: {e}");
    }
    assert!(Archived::Any.admits(true) && Archived::Any.admits(false));
    assert!(!Archived::Exclude.admits(true) && !Archived::Only.admits(false));
}

#[test]
fn a_patch_takes_three_members_and_names_a_bad_one_by_path() {
    let p = ThreadPatch::from_json(br#"{"title": null, "metadata": {"a": 1}, "archived": true}"#)
        .unwrap();
    assert_eq!(p.title, Some(None));
    assert_eq!(p.archived, Some(true));
    assert_eq!(ThreadPatch::from_json(b"{}").unwrap(), ThreadPatch::new());
    let renamed = ThreadPatch::from_json(br#"{"title": "Trip"}"#).unwrap();
    assert_eq!(renamed, ThreadPatch::new().title(Some("Trip".into())));
    assert_eq!(
        serde_json::to_value(&renamed).unwrap(),
        json!({"title": "Trip"})
    );
    for (bad, path) in [
        (&br#"{"title": 1}"#[..], "$.title"),
        (br#"{"metadata": []}"#, "$.metadata"),
        (br#"{"archived": "yes"}"#, "$.archived"),
        (br#"{"archive": true}"#, "$.archive"),
        (br#"[]"#, "$"),
        (b"{", "$"),
        (b"\xff", "$"),
    ] {
        let e = ThreadPatch::from_json(bad).unwrap_err();
        assert_eq!(e.parameter, path, "{e}");
    }
}

#[test]
fn multitask_words_round_trip() {
    for m in Multitask::ALL {
        assert_eq!(Multitask::from_word(m.as_str()), Some(m));
        assert_eq!(serde_json::to_value(m).unwrap(), json!(m.as_str()));
    }
    assert_eq!(Multitask::default(), Multitask::Reject);
    assert_eq!(Multitask::from_word("queue"), None);
    assert_eq!(RunPhase::from_word("ended"), Some(RunPhase::Ended));
}
