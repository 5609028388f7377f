//! SQLite: the suite on a file per test, migrations, several instances on one file.

use std::time::SystemTime;

use ag_ui_server::threads::{RunEndKind, RunEnding, RunStart, ThreadStore};
use ag_ui_sql::{SQLITE_MIGRATOR, SqlConfig, SqliteThreads};
use ag_ui_testkit::process::temp_dir;
use ag_ui_testkit::threads::{Guarded, RemoveOnDrop};
use sqlx::migrate::Migrate;
use sqlx::{Connection, SqliteConnection};

/// A fresh database file in a directory of its own, removed with the store.
async fn fresh() -> Guarded<SqliteThreads, RemoveOnDrop> {
    let dir = RemoveOnDrop(temp_dir("sqlite"));
    let url = format!("sqlite://{}", dir.0.join("threads.db").display());
    let store = SqliteThreads::connect(&url)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    Guarded { store, guard: dir }
}

mod suite {
    ag_ui_testkit::thread_store_suite!(super::fresh().await);
}

/// The threads API suite (ag-ui-testkit): the JSON thread routes over loopback HTTP, on
/// a SQLite file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_threads_api_suite() {
    let fresh = fresh().await;
    ag_ui_testkit::threads_api::suite(std::sync::Arc::new(fresh.store.clone())).await;
    drop(fresh);
}

async fn versions(url: &str) -> Vec<i64> {
    let mut conn = SqliteConnection::connect(url).await.unwrap();
    sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success ORDER BY version")
        .fetch_all(&mut conn)
        .await
        .unwrap()
}

#[tokio::test]
async fn an_empty_file_is_created_and_migrated() {
    let dir = RemoveOnDrop(temp_dir("sqlite"));
    let path = dir.0.join("sub-missing.db");
    let url = format!("sqlite://{}", path.display());
    let store = SqliteThreads::connect(&url).await.unwrap();
    assert!(path.is_file());
    let all: Vec<i64> = SQLITE_MIGRATOR.iter().map(|m| m.version).collect();
    assert!(all.len() >= 2, "{all:?}");
    assert_eq!(versions(&url).await, all);
    let mode: String = sqlx::query_scalar("PRAGMA journal_mode")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(mode, "wal");
    // Connecting again finds nothing to do.
    SqliteThreads::connect(&url).await.unwrap();
    assert_eq!(versions(&url).await, all);
}

/// A file at `version` (the migrations up to it applied) holding one thread with one
/// ended run; its URL.
async fn file_at(dir: &RemoveOnDrop, version: i64) -> String {
    let url = format!(
        "sqlite://{}?mode=rwc",
        dir.0.join(format!("threads-{version}.db")).display()
    );
    let mut conn = SqliteConnection::connect(&url).await.unwrap();
    conn.ensure_migrations_table().await.unwrap();
    for m in SQLITE_MIGRATOR.iter().filter(|m| m.version <= version) {
        conn.apply(m).await.unwrap();
    }
    sqlx::query(
        "INSERT INTO ag_ui_threads (owner, thread_id, title, metadata, created_at, updated_at,
                                    archived, run_count, fold)
         VALUES ('alice', 'old', 'Kept', '{\"team\":\"red\"}', 1000000, 2000000, 0, 1, '[]')",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO ag_ui_runs (owner, thread_id, run_id, seq, status, outcome, started_at,
                                 ended_at, checkpoint_at, usage, error_code, input_messages)
         VALUES ('alice', 'old', 'r1', 1, 'ended', 'success', 1000000, 2000000, 1000000,
                 '[]', NULL, '[]')",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    url
}

/// A file at the first version, and one at the version before the latest, each holding a
/// thread: migrated to the latest, the thread is kept whole (its run not rolled back,
/// without a trace id) and new runs keep their trace id.
#[tokio::test]
async fn a_file_at_an_older_version_keeps_its_threads_and_gets_the_rest() {
    let dir = RemoveOnDrop(temp_dir("sqlite"));
    let all: Vec<i64> = SQLITE_MIGRATOR.iter().map(|m| m.version).collect();
    assert!(all.len() >= 3, "{all:?}");
    for version in [all[0], all[all.len() - 2]] {
        let url = file_at(&dir, version).await;
        let before: Vec<i64> = all.iter().copied().filter(|v| *v <= version).collect();
        assert_eq!(versions(&url).await, before);
        let store = SqliteThreads::connect(&url).await.unwrap();
        assert_eq!(versions(&url).await, all, "from version {version}");
        let old = store.thread(Some("alice"), "old").await.unwrap().unwrap();
        assert_eq!(old.summary.title.as_deref(), Some("Kept"));
        assert_eq!(old.summary.metadata["team"], "red");
        assert_eq!(old.runs.len(), 1);
        assert_eq!(old.runs[0].outcome, Some(RunEndKind::Success));
        assert!(!old.runs[0].rolled_back);
        assert_eq!(old.runs[0].trace_id, None);
        assert_eq!(old.summary.last_run.unwrap().run_id, "r1");
        let page = store
            .list(
                Some("alice"),
                &ag_ui_server::threads::ThreadQuery::new().metadata("team", "red"),
            )
            .await
            .unwrap();
        assert_eq!(page.threads.len(), 1);
        let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
        store
            .begin_run(
                Some("alice"),
                RunStart::new("old", "r2", vec![], old.thread.clone())
                    .with_trace_id(Some(trace.to_owned())),
            )
            .await
            .unwrap();
        let again = store.thread(Some("alice"), "old").await.unwrap().unwrap();
        assert_eq!(again.runs[1].trace_id.as_deref(), Some(trace));
        let indexes: Vec<String> = sqlx::query_scalar(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'ag_ui_%'
             ORDER BY name",
        )
        .fetch_all(store.pool())
        .await
        .unwrap();
        assert_eq!(
            indexes,
            [
                "ag_ui_runs_running",
                "ag_ui_threads_archived",
                "ag_ui_threads_list"
            ]
        );
    }
}

#[tokio::test]
async fn eight_instances_opening_one_new_file_at_once_all_succeed() {
    let dir = RemoveOnDrop(temp_dir("sqlite"));
    let url = format!("sqlite://{}", dir.0.join("threads.db").display());
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let url = url.clone();
            tokio::spawn(async move { SqliteThreads::connect(&url).await })
        })
        .collect();
    for task in tasks {
        task.await.unwrap().unwrap_or_else(|e| panic!("{e}"));
    }
    let all: Vec<i64> = SQLITE_MIGRATOR.iter().map(|m| m.version).collect();
    assert_eq!(versions(&url).await, all);
}

#[tokio::test]
async fn two_instances_writing_one_file_both_succeed() {
    let dir = RemoveOnDrop(temp_dir("sqlite"));
    let url = format!("sqlite://{}", dir.0.join("threads.db").display());
    let config = SqlConfig::new().busy_timeout(std::time::Duration::from_millis(50));
    let a = SqliteThreads::connect_with(&url, config.clone())
        .await
        .unwrap();
    let b = SqliteThreads::connect_with(&url, config).await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..40 {
        let store = if i % 2 == 0 { a.clone() } else { b.clone() };
        tasks.push(tokio::spawn(async move {
            let thread = format!("t{i}");
            let state = ag_ui_core::ThreadState::new();
            store
                .begin_run(
                    None,
                    RunStart::new(thread.as_str(), "r", vec![], state.clone()),
                )
                .await?;
            store.checkpoint(None, &thread, "r", &state).await?;
            store
                .end_run(
                    None,
                    RunEnding::new(thread.as_str(), "r", RunEndKind::Success, state),
                )
                .await
        }));
    }
    for task in tasks {
        task.await.unwrap().unwrap_or_else(|e| panic!("{e}"));
    }
    let page = a
        .list(None, &ag_ui_server::threads::ThreadQuery::new().limit(100))
        .await
        .unwrap();
    assert_eq!(page.threads.len(), 40);
    assert!(
        page.threads
            .iter()
            .all(|t| t.updated_at <= SystemTime::now())
    );
}

#[tokio::test]
async fn without_migrating_at_connect_migrate_does_it() {
    let dir = RemoveOnDrop(temp_dir("sqlite"));
    let url = format!("sqlite://{}", dir.0.join("threads.db").display());
    let store = SqliteThreads::connect_with(&url, SqlConfig::new().migrate(false))
        .await
        .unwrap();
    let r = store.thread(None, "t").await;
    assert!(r.is_err(), "no tables yet, yet {r:?}");
    store.migrate().await.unwrap();
    assert!(store.thread(None, "t").await.unwrap().is_none());
    let opened = ag_ui_sql::open(&url).await.unwrap();
    assert!(opened.thread(None, "t").await.unwrap().is_none());
}

#[tokio::test]
async fn a_relative_path_is_relative_to_the_working_directory() {
    let dir = RemoveOnDrop(temp_dir("sqlite"));
    let before = std::env::current_dir().unwrap();
    // The only test that changes the working directory; the others name absolute paths.
    std::env::set_current_dir(&dir.0).unwrap();
    let opened = ag_ui_sql::open("sqlite://nested-missing.db").await;
    std::env::set_current_dir(before).unwrap();
    let store = opened.unwrap_or_else(|e| panic!("{e}"));
    assert!(dir.0.join("nested-missing.db").is_file());
    assert!(store.thread(None, "t").await.unwrap().is_none());
}

#[tokio::test]
async fn a_list_page_is_a_range_of_the_list_index() {
    let store = fresh().await;
    let plan: Vec<String> = sqlx::query(
        "EXPLAIN QUERY PLAN SELECT thread_id FROM ag_ui_threads WHERE owner = 'a'
         AND archived = 0 ORDER BY updated_at DESC, thread_id DESC LIMIT 21",
    )
    .fetch_all(store.store.pool())
    .await
    .unwrap()
    .iter()
    .map(|r| sqlx::Row::get::<String, _>(r, "detail"))
    .collect();
    assert!(
        plan.iter().any(|l| l.contains("ag_ui_threads_list")),
        "{plan:#?}"
    );
    assert!(!plan.iter().any(|l| l.contains("TEMP B-TREE")), "{plan:#?}");
}

#[tokio::test]
async fn a_write_that_meets_another_process_lock_is_tried_again() {
    use ag_ui_server::threads::ThreadStoreError;
    use std::time::Duration;
    let dir = RemoveOnDrop(temp_dir("sqlite"));
    let url = format!("sqlite://{}", dir.0.join("threads.db").display());
    let quick = SqlConfig::new().busy_timeout(Duration::from_millis(20));
    let once = SqliteThreads::connect_with(&url, quick.clone().retries(0))
        .await
        .unwrap();
    let patient = SqliteThreads::connect_with(
        &url,
        quick.retries(12).retry_backoff(Duration::from_millis(20)),
    )
    .await
    .unwrap();
    // Another process's write transaction holds the file.
    let mut other = SqliteConnection::connect(&url).await.unwrap();
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut other)
        .await
        .unwrap();
    let start = |run: &str| RunStart::new("t", run, vec![], ag_ui_core::ThreadState::new());
    let r = once.begin_run(None, start("r1")).await;
    assert!(matches!(r, Err(ThreadStoreError::Backend(_))), "{r:?}");
    let release = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        sqlx::query("COMMIT").execute(&mut other).await.unwrap();
    });
    patient.begin_run(None, start("r2")).await.unwrap();
    release.await.unwrap();
    let back = patient.thread(None, "t").await.unwrap().unwrap();
    assert_eq!(back.runs.len(), 1);
    assert_eq!(back.runs[0].run_id, "r2");
}
