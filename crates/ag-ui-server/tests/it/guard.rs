//! The run guard and the emitter bridge, without HTTP.

use ag_ui_builders::RunEmitter;
use ag_ui_core::{Event, RunAgentInput};
use ag_ui_server::{Cancellation, EmitError, GuardOptions, RunGuard, emit, emit_with_capacity};
use futures_util::StreamExt;
use serde_json::json;

use crate::support::types;

fn input() -> RunAgentInput {
    serde_json::from_value(crate::support::input("run-1", json!({}))).unwrap()
}

#[tokio::test]
async fn events_left_in_the_emitter_are_delivered() {
    let stream = emit(RunEmitter::start_for(&input()), |mut run| async move {
        let r = run.run_mut();
        r.text("not flushed")?;
        r.finish()?;
        Ok::<_, ag_ui_builders::BuildError>(())
    });
    let events: Vec<Event> = stream.map(Result::unwrap).collect().await;
    assert_eq!(
        types(&events),
        [
            "RUN_STARTED",
            "TEXT_MESSAGE_START",
            "TEXT_MESSAGE_CONTENT",
            "TEXT_MESSAGE_END",
            "RUN_FINISHED"
        ]
    );
}

#[tokio::test]
async fn an_emitter_error_follows_the_events_sent() {
    let stream = emit(RunEmitter::start_for(&input()), |mut run| async move {
        run.emit(RunEmitter::finish).await?;
        // The run has ended: the emitter refuses more text.
        run.emit(|r| r.text("late")).await?;
        Ok::<_, EmitError>(())
    });
    let items: Vec<_> = stream.collect().await;
    assert_eq!(items.len(), 3);
    assert!(items[..2].iter().all(Result::is_ok));
    let err = items[2].as_ref().unwrap_err();
    assert!(err.to_string().contains("RUN_FINISHED"), "{err}");
    // Guarded, the run already ended cleanly, so nothing is added after RUN_FINISHED...
    let stream = emit(RunEmitter::start_for(&input()), |mut run| async move {
        run.emit(RunEmitter::finish).await?;
        run.emit(|r| r.text("late")).await?;
        Ok::<_, EmitError>(())
    });
    let guarded: Vec<Event> = RunGuard::new(stream, Cancellation::new(), GuardOptions::default())
        .collect()
        .await;
    // ...except the RUN_ERROR reporting the failure, which the protocol allows there.
    assert_eq!(
        types(&guarded),
        ["RUN_STARTED", "RUN_FINISHED", "RUN_ERROR"]
    );
    ag_ui_core::stream::verify_events(&guarded).unwrap();
}

#[tokio::test]
async fn a_full_channel_holds_the_agent_back() {
    let produced = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&produced);
    let mut stream = emit_with_capacity(
        RunEmitter::start_for(&input()),
        1,
        move |mut run| async move {
            for i in 0..100 {
                run.emit(|r| r.text(format!("{i}"))).await?;
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            run.emit(RunEmitter::finish).await
        },
    );
    // Taking one event polls the agent until the channel is full, not to the end.
    stream.next().await.unwrap().unwrap();
    let n = produced.load(std::sync::atomic::Ordering::SeqCst);
    assert!(n < 5, "{n} batches produced before the reader took them");
    let rest: Vec<_> = stream.collect().await;
    // RUN_STARTED was taken; TEXT_MESSAGE_START, 100 contents, TEXT_MESSAGE_END and
    // RUN_FINISHED remain.
    assert_eq!(rest.len(), 1 + 100 + 2);
}

#[tokio::test]
async fn dropping_a_guard_early_trips_its_cancellation() {
    let cancel = Cancellation::new();
    let stream = emit(RunEmitter::start_for(&input()), |mut run| async move {
        run.emit(|r| r.text("x")).await?;
        std::future::pending::<()>().await;
        Ok::<_, EmitError>(())
    });
    let mut guard = RunGuard::new(stream, cancel.clone(), GuardOptions::default());
    guard.next().await.unwrap();
    assert!(!cancel.is_cancelled());
    drop(guard);
    assert!(cancel.is_cancelled());
    // A guard that ran to its end does not.
    let cancel = Cancellation::new();
    let stream = emit(RunEmitter::start_for(&input()), |mut run| async move {
        run.emit(RunEmitter::finish).await
    });
    let mut guard = RunGuard::new(stream, cancel.clone(), GuardOptions::default());
    while guard.next().await.is_some() {}
    drop(guard);
    assert!(!cancel.is_cancelled());
}

#[tokio::test]
async fn cancellation_wakes_a_waiting_task() {
    let cancel = Cancellation::new();
    let waiter = tokio::spawn({
        let cancel = cancel.clone();
        async move { cancel.cancelled().await }
    });
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    assert!(!waiter.is_finished());
    cancel.cancel();
    tokio::time::timeout(std::time::Duration::from_secs(5), waiter)
        .await
        .unwrap()
        .unwrap();
}

/// With the `tracing` feature (on by default) every report is also a `tracing` event: a
/// protocol violation is logged as a warning, whatever hook is installed.
#[cfg(feature = "tracing")]
#[tokio::test]
async fn a_violation_is_logged_through_tracing() {
    use std::sync::{Arc, Mutex};

    use ag_ui_core::{RunStartedEvent, TextMessageContentEvent};

    type Seen = Arc<Mutex<Vec<(tracing::Level, String)>>>;
    struct Capture(Seen);
    struct Fields(String);
    impl tracing::field::Visit for Fields {
        fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
            self.0.push_str(&format!("{}={value:?} ", field.name()));
        }
    }
    impl tracing::Subscriber for Capture {
        fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            tracing::span::Id::from_u64(1)
        }
        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
        fn event(&self, event: &tracing::Event<'_>) {
            let mut fields = Fields(String::new());
            event.record(&mut fields);
            let level = *event.metadata().level();
            self.0.lock().unwrap().push((level, fields.0));
        }
        fn enter(&self, _: &tracing::span::Id) {}
        fn exit(&self, _: &tracing::span::Id) {}
    }

    let seen: Seen = Arc::default();
    let _default = tracing::subscriber::set_default(Capture(seen.clone()));
    // Content for a message that was never started breaks rule M2.
    let events: Vec<Result<Event, std::io::Error>> = vec![
        Ok(RunStartedEvent::new("thread-1", "run-1").into()),
        Ok(TextMessageContentEvent::new("m1", "hi").into()),
    ];
    let guarded: Vec<Event> = RunGuard::new(
        Box::pin(futures_util::stream::iter(events).map(|r| r.map_err(Into::into))),
        Cancellation::new(),
        GuardOptions::default(),
    )
    .collect()
    .await;
    assert_eq!(types(&guarded), ["RUN_STARTED", "RUN_ERROR"]);
    let seen = seen.lock().unwrap();
    assert!(
        seen.iter()
            .any(|(level, fields)| *level == tracing::Level::WARN
                && fields.contains("M2")
                && fields.contains("broke the protocol")),
        "{seen:?}"
    );
}
