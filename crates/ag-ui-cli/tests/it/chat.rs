//! `ag-ui chat` against the demo agent, typed at through stdin: one thread across runs,
//! interrupts answered by the user, frontend tools answered by a command or by the user.

use crate::support::{ag_ui_with_stdin, demo};

/// The thread ids of the `[run … started on thread …]` lines.
fn threads(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter_map(|l| l.split(" started on thread ").nth(1))
        .map(|t| t.trim_end_matches(']'))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_thread_is_kept_from_message_to_message() {
    let server = demo().await;
    let out = ag_ui_with_stdin(
        &["chat", &server.url],
        "What is the weather?\nAnd tomorrow?\n/state\n",
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    // `/state` prints the state the two runs left, as JSON on a line of its own.
    let state: serde_json::Value = out
        .stdout
        .lines()
        .rev()
        .find_map(|l| {
            serde_json::from_str(l)
                .ok()
                .filter(serde_json::Value::is_object)
        })
        .unwrap_or_else(|| panic!("no state line in {}", out.stdout));
    assert_eq!(state["city"], "Amsterdam", "{state}");
    let threads = threads(&out.stdout);
    assert_eq!(threads.len(), 2, "{}", out.stdout);
    assert_eq!(threads[0], threads[1]);
    assert_eq!(out.stdout.matches("success").count(), 2, "{}", out.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupt_is_answered_by_the_user_and_the_run_resumed() {
    let server = demo().await;
    let props = r#"{"scenario":"interrupt"}"#;
    // The empty second line approves.
    let out = ag_ui_with_stdin(
        &["chat", &server.url, "--forwarded-props", props],
        "Send the email\n\n",
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("interrupted"), "{}", out.stdout);
    assert!(out.stderr.contains("[Enter] approve"), "{}", out.stderr);
    // The resumed run finished.
    let after = out.stdout.split("interrupted").nth(1).unwrap();
    assert!(after.contains("success"), "{}", out.stdout);
    // The result of the call made in the interrupted run names its tool.
    assert!(after.contains("← send_email: "), "{}", out.stdout);
    assert_eq!(threads(&out.stdout).len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_frontend_tool_is_answered_by_its_command_or_by_the_user() {
    let server = demo().await;
    let props = r#"{"scenario":"frontend_tool"}"#;
    // The command echoes the arguments ({"city":"Amsterdam"}) back as the result.
    let out = ag_ui_with_stdin(
        &[
            "chat",
            &server.url,
            "--forwarded-props",
            props,
            "--tool",
            "pick_city=cat",
        ],
        "Pick a city\n",
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains("running `cat` for pick_city"),
        "{}",
        out.stderr
    );
    let runs = threads(&out.stdout);
    assert_eq!(runs.len(), 2, "{}", out.stdout);
    let second = out.stdout.rsplit("started on thread").next().unwrap();
    assert!(second.contains("Amsterdam"), "{}", out.stdout);

    // Without a command the user types the result, which the next run quotes.
    let out = ag_ui_with_stdin(
        &[
            "chat",
            &server.url,
            "--forwarded-props",
            props,
            "--tool",
            "pick_city",
        ],
        "Pick a city\nParis\n",
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains("result of pick_city("),
        "{}",
        out.stderr
    );
    let second = out.stdout.rsplit("started on thread").next().unwrap();
    assert!(second.contains("Paris"), "{}", out.stdout);
    // A failing command: its failure is the result.
    let out = ag_ui_with_stdin(
        &[
            "chat",
            &server.url,
            "--forwarded-props",
            props,
            "--tool",
            "pick_city=exit 3",
        ],
        "Pick a city\n",
    )
    .await;
    assert_eq!(out.code, 0, "{out:?}");
    let second = out.stdout.rsplit("started on thread").next().unwrap();
    assert!(second.contains("exited with"), "{}", out.stdout);
}
