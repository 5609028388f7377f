//! `docs/errors.md`, section "Builder errors": every row of its table is produced here
//! through the crate's public API and must give exactly the variant and message shown;
//! every case here has a row. `AG_UI_BLESS=1 cargo test -p ag-ui-builders --test it
//! errors_doc` rewrites the variant and message columns after a deliberate change.

use ag_ui_builders::interrupt::confirmation;
use ag_ui_builders::outcome::interrupted;
use ag_ui_builders::{BuildError, Conversation, ModelChunk, RunEmitter, SequentialIds, patch};
use ag_ui_core::{JsonPatchOperation, JsonPointer, TextMessageChunkEvent, TextMessageContentEvent};

const HEADER: &str = "| case | variant | message |";

fn run() -> RunEmitter {
    RunEmitter::start("thread-1", "run-1").with_ids(SequentialIds::new())
}

/// The error each case of the table names.
fn produce(case: &str) -> BuildError {
    let result: Result<(), BuildError> = match case {
        "end-a-message-never-started" => run().text_message_end("m9"),
        "start-a-tool-call-twice" => {
            let mut r = run();
            r.tool_call_start_with_id("call_1", "search").unwrap();
            r.tool_call_start_with_id("call_1", "search")
        }
        "answer-no-open-call" => Conversation::new()
            .user("hi")
            .next_tool_result("42")
            .map(drop),
        "emit-after-the-end" => {
            let mut r = run();
            r.finish().unwrap();
            r.text("late").map(drop)
        }
        "emit-a-chunk" => run().push_event(TextMessageChunkEvent::new().with_delta("x")),
        "finish-inside-a-subagent" => {
            let mut r = run();
            r.subagent_start("researcher").unwrap();
            r.finish()
        }
        "hand-built-event-out-of-order" => {
            run().push_event(TextMessageContentEvent::new("m1", "hello"))
        }
        "delta-that-does-not-apply" => run()
            .with_state_baseline(serde_json::json!({"count": 1}))
            .state_delta([JsonPatchOperation::remove(JsonPointer(
                "/missing".to_owned(),
            ))]),
        "finish-with-cut-arguments" => {
            let mut r = run();
            r.push(ModelChunk::ToolCallStart {
                id: "call_1".into(),
                name: "search".into(),
            })
            .unwrap();
            r.push(ModelChunk::ToolCallDelta {
                id: "call_1".into(),
                delta: r#"{"q":"#.into(),
            })
            .unwrap();
            r.finish()
        }
        "interrupt-on-nothing" => interrupted([]).map(drop),
        "two-interrupts-one-id" => interrupted([
            confirmation("approve-1", "Send it?"),
            confirmation("approve-1", "Really?"),
        ])
        .map(drop),
        "patch-path-not-a-pointer" => patch::check(&[JsonPatchOperation::remove(JsonPointer(
            "state/a".to_owned(),
        ))]),
        other => panic!("unknown case {other:?} in docs/errors.md"),
    };
    result.expect_err(case)
}

/// The rows of the table: (case, variant, message).
fn rows() -> Vec<(String, String, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/errors.md");
    let text = std::fs::read_to_string(path).unwrap();
    let start = text.find(HEADER).expect("the builder errors table");
    text[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
            let unquote = |s: &str| s.trim_matches('`').to_owned();
            (unquote(cells[0]), unquote(cells[1]), cells[2].to_owned())
        })
        .collect()
}

/// The variant's name, as `Debug` starts it.
fn variant(e: &BuildError) -> String {
    format!("{e:?}")
        .split(['(', ' ', '{'])
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn every_row_is_the_error_the_crate_gives() {
    let rows = rows();
    assert!(rows.len() >= 12, "{} rows", rows.len());
    if std::env::var_os("AG_UI_BLESS").is_some() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/errors.md");
        let mut text = std::fs::read_to_string(&path).unwrap();
        for (case, old_variant, old_message) in &rows {
            let e = produce(case);
            let old = format!("| `{case}` | `{old_variant}` | {old_message} |");
            let new = format!("| `{case}` | `{}` | {e} |", variant(&e));
            text = text.replace(&old, &new);
        }
        std::fs::write(&path, text).unwrap();
        return;
    }
    for (case, want_variant, want_message) in &rows {
        let e = produce(case);
        assert_eq!(
            (variant(&e), e.to_string()),
            (want_variant.clone(), want_message.clone()),
            "case {case}"
        );
    }
}
