//! PostgreSQL: the suite with a database per case, migrations, several instances at once,
//! connection settings. Each test starts its own server (ag-ui-testkit).

use std::time::Duration;

use ag_ui_server::threads::{RunStart, ThreadQuery, ThreadStore};
use ag_ui_sql::{POSTGRES_MIGRATOR, PostgresThreads, SqlConfig};
use ag_ui_testkit::postgres::Postgres;
use ag_ui_testkit::threads::CASES;
use sqlx::migrate::Migrate;
use sqlx::{Connection, PgConnection};

/// A connection to `server`'s `postgres` database, once the server accepts them (it
/// listens a moment before it does: "the database system is starting up").
async fn admin(server: &Postgres) -> PgConnection {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        match PgConnection::connect(&server.url()).await {
            Ok(c) => return c,
            Err(e) if std::time::Instant::now() < deadline => {
                eprintln!("waiting for postgres: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("postgres did not accept a connection within 20 s: {e}"),
        }
    }
}

/// A new, empty database on `server`; its URL.
async fn database(server: &Postgres, name: &str) -> String {
    let mut admin = admin(server).await;
    // The name is the test's own constant, never input.
    sqlx::query(&format!("CREATE DATABASE \"{name}\""))
        .execute(&mut admin)
        .await
        .unwrap();
    format!("postgres://postgres@127.0.0.1:{}/{name}", server.port)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_thread_store_suite() {
    let server = Postgres::start();
    for (name, case) in CASES {
        let url = database(&server, name).await;
        let store = PostgresThreads::connect(&url)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        eprintln!("postgres: {name}");
        case(&store).await;
    }
}

/// The threads API suite (ag-ui-testkit): the JSON thread routes over loopback HTTP, on
/// PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_threads_api_suite() {
    let server = Postgres::start();
    let url = database(&server, "threads_api").await;
    let store = PostgresThreads::connect(&url)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    ag_ui_testkit::threads_api::suite(std::sync::Arc::new(store)).await;
}

async fn versions(url: &str) -> Vec<i64> {
    let mut conn = PgConnection::connect(url).await.unwrap();
    sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success ORDER BY version")
        .fetch_all(&mut conn)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrations_from_empty_from_the_first_version_and_by_eight_at_once() {
    let server = Postgres::start();
    let all: Vec<i64> = POSTGRES_MIGRATOR.iter().map(|m| m.version).collect();
    assert!(all.len() >= 2, "{all:?}");

    // An empty database.
    let url = database(&server, "empty").await;
    let store = PostgresThreads::connect(&url).await.unwrap();
    assert_eq!(versions(&url).await, all);
    // The list index serves a page: the plan of the list query's first branch.
    let plan: Vec<String> = sqlx::query_scalar(
        "EXPLAIN SELECT thread_id FROM ag_ui_threads WHERE owner = 'a' AND archived = false
         ORDER BY updated_at DESC, thread_id DESC LIMIT 21",
    )
    .fetch_all(store.pool())
    .await
    .unwrap();
    assert!(
        plan.iter().any(|l| l.contains("ag_ui_threads_list")),
        "{plan:#?}"
    );
    PostgresThreads::connect(&url).await.unwrap();
    assert_eq!(versions(&url).await, all);

    // A database at the first version, and one at the version before the latest, each
    // with a thread in it.
    assert!(all.len() >= 3, "{all:?}");
    for version in [all[0], all[all.len() - 2]] {
        let url = database(&server, &format!("at{version}")).await;
        {
            let mut conn = PgConnection::connect(&url).await.unwrap();
            conn.ensure_migrations_table().await.unwrap();
            for m in POSTGRES_MIGRATOR.iter().filter(|m| m.version <= version) {
                conn.apply(m).await.unwrap();
            }
            sqlx::query(
                "INSERT INTO ag_ui_threads (owner, thread_id, title, metadata, created_at,
                                            updated_at, archived, run_count, fold)
                 VALUES ('alice', 'old', 'Kept', '{\"team\": \"red\"}', now(), now(), false,
                         1, '[]')",
            )
            .execute(&mut conn)
            .await
            .unwrap();
            sqlx::query(
                "INSERT INTO ag_ui_runs (owner, thread_id, run_id, seq, status, outcome,
                                         started_at, ended_at, checkpoint_at)
                 VALUES ('alice', 'old', 'r1', 1, 'ended', 'success', now(), now(), now())",
            )
            .execute(&mut conn)
            .await
            .unwrap();
        }
        let before: Vec<i64> = all.iter().copied().filter(|v| *v <= version).collect();
        assert_eq!(versions(&url).await, before);
        let store = PostgresThreads::connect(&url).await.unwrap();
        assert_eq!(versions(&url).await, all, "from version {version}");
        let old = store.thread(Some("alice"), "old").await.unwrap().unwrap();
        assert_eq!(old.summary.title.as_deref(), Some("Kept"));
        assert_eq!(old.summary.last_run.unwrap().run_id, "r1");
        assert_eq!(old.runs.len(), 1);
        assert!(!old.runs[0].rolled_back);
        assert_eq!(old.runs[0].trace_id, None);
        let page = store
            .list(Some("alice"), &ThreadQuery::new().metadata("team", "red"))
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
            "SELECT indexname::text FROM pg_indexes
             WHERE tablename IN ('ag_ui_threads', 'ag_ui_runs')
             ORDER BY indexname",
        )
        .fetch_all(store.pool())
        .await
        .unwrap();
        assert_eq!(
            indexes,
            [
                "ag_ui_runs_owner_thread_id_seq_key",
                "ag_ui_runs_pkey",
                "ag_ui_runs_running",
                "ag_ui_threads_archived",
                "ag_ui_threads_list",
                "ag_ui_threads_pkey",
            ]
        );
    }

    // Eight instances starting at once on a new database: one migrates (the advisory
    // lock), the others wait and find nothing to do.
    let url = database(&server, "eight").await;
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let url = url.clone();
            tokio::spawn(async move {
                PostgresThreads::connect_with(&url, SqlConfig::new().pool_size(2)).await
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap().unwrap_or_else(|e| panic!("{e}"));
    }
    assert_eq!(versions(&url).await, all);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_carry_the_statement_timeout_and_migrate_can_wait() {
    let server = Postgres::start();
    let url = database(&server, "settings").await;
    let config = SqlConfig::new()
        .statement_timeout(Some(Duration::from_millis(1500)))
        .migrate(false);
    let store = PostgresThreads::connect_with(&url, config).await.unwrap();
    let timeout: String = sqlx::query_scalar("SHOW statement_timeout")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(timeout, "1500ms");
    let slow = sqlx::query("SELECT pg_sleep(5)")
        .execute(store.pool())
        .await;
    let Err(sqlx::Error::Database(e)) = slow else {
        panic!("a 5 s statement outlived a 1.5 s timeout: {slow:?}");
    };
    assert_eq!(e.code().as_deref(), Some("57014"), "{e}");
    assert!(
        store.thread(None, "t").await.is_err(),
        "no tables before migrate()"
    );
    store.migrate().await.unwrap();
    assert!(store.thread(None, "t").await.unwrap().is_none());
    let opened = ag_ui_sql::open(&url.replace("postgres://", "postgresql://"))
        .await
        .unwrap();
    assert!(opened.thread(None, "t").await.unwrap().is_none());
}

#[cfg(feature = "postgres-tls")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sslmode_require_connects_over_tls_and_verify_full_checks_the_certificate() {
    let server = Postgres::start_tls();
    let url = database(&server, "tls").await;
    let store = PostgresThreads::connect(&format!("{url}?sslmode=require"))
        .await
        .unwrap_or_else(|e| panic!("sslmode=require: {e}"));
    let encrypted: bool =
        sqlx::query_scalar("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
            .fetch_one(store.pool())
            .await
            .unwrap();
    assert!(encrypted, "the connection is not encrypted");
    store.thread(Some("alice"), "t").await.unwrap();
    // The certificate is self-signed: a client that verifies it refuses the server.
    let verified = PostgresThreads::connect(&format!("{url}?sslmode=verify-full")).await;
    assert!(verified.is_err(), "an untrusted certificate was accepted");
    // Without TLS on the server, `require` fails rather than falling back to plain text.
    let plain = Postgres::start();
    let plain_url = database(&plain, "plain").await;
    let refused = PostgresThreads::connect(&format!("{plain_url}?sslmode=require")).await;
    assert!(refused.is_err(), "sslmode=require connected without TLS");
}

#[cfg(not(feature = "postgres-tls"))]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_postgres_tls_a_url_that_asks_for_tls_is_refused() {
    let server = Postgres::start_tls();
    let url = database(&server, "notls").await;
    let refused = PostgresThreads::connect(&format!("{url}?sslmode=require")).await;
    let Err(e) = refused else {
        panic!("sslmode=require connected without a TLS stack");
    };
    assert!(e.to_string().to_lowercase().contains("tls"), "{e}");
}
