//! Thread store throughput and list latency, SQLite and PostgreSQL side by side.
//!
//! `cargo bench -p ag-ui-sql --features sqlite,postgres --bench threads`
//!
//! - **writes**: 100 runs at once, each `begin_run`, 3 checkpoints and `end_run` (5
//!   writes) on a thread of its own; writes per second over the whole round.
//! - **list**: the newest 20 of one principal's 100,000 threads (each with a run), one
//!   `list` call at a time.
//!
//! Rounds alternate between the backends so that a slow moment of the machine falls on
//! both. PostgreSQL is a server of the bench's own (ag-ui-testkit: loopback, `fsync=off`),
//! SQLite a file in a temporary directory (WAL, `synchronous=NORMAL`).
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

#[cfg(all(feature = "sqlite", feature = "postgres"))]
mod bench {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use ag_ui_core::ThreadState;
    use ag_ui_server::threads::{RunEndKind, RunEnding, RunStart, ThreadQuery, ThreadStore};
    use ag_ui_sql::{PostgresThreads, SqliteThreads};
    use serde_json::json;

    const RUNS: usize = 100;
    const CHECKPOINTS: usize = 3;
    const ROUNDS: usize = 5;
    const THREADS: i64 = 100_000;
    const LISTS: usize = 200;

    fn fold(n: usize) -> ThreadState {
        let messages = (0..4)
            .map(|i| {
                serde_json::from_value(json!({
                    "id": format!("m{i}"), "role": if i % 2 == 0 { "user" } else { "assistant" },
                    "content": "A message of about a hundred bytes, as a short chat turn would be, give or take."
                }))
                .unwrap()
            })
            .collect();
        ThreadState::new()
            .with_messages(messages)
            .with_state(json!({ "step": n }))
    }

    /// One round: `RUNS` runs at once; the writes per second.
    async fn writes(store: Arc<dyn ThreadStore>, round: usize) -> f64 {
        let started = Instant::now();
        let tasks: Vec<_> = (0..RUNS)
            .map(|i| {
                let store = store.clone();
                tokio::spawn(async move {
                    let thread = format!("w{round}-{i}");
                    store
                        .begin_run(
                            Some("bench"),
                            RunStart::new(thread.as_str(), "r", vec![], fold(0)),
                        )
                        .await
                        .unwrap();
                    for c in 1..=CHECKPOINTS {
                        store
                            .checkpoint(Some("bench"), &thread, "r", &fold(c))
                            .await
                            .unwrap();
                    }
                    store
                        .end_run(
                            Some("bench"),
                            RunEnding::new(thread.as_str(), "r", RunEndKind::Success, fold(9)),
                        )
                        .await
                        .unwrap();
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
        (RUNS * (CHECKPOINTS + 2)) as f64 / started.elapsed().as_secs_f64()
    }

    /// `LISTS` first pages of the principal `lister`; their times.
    async fn lists(store: &dyn ThreadStore) -> Vec<Duration> {
        let query = ThreadQuery::new();
        let mut times = Vec::with_capacity(LISTS);
        for _ in 0..LISTS {
            let started = Instant::now();
            let page = store.list(Some("lister"), &query).await.unwrap();
            times.push(started.elapsed());
            assert_eq!(page.threads.len(), 20);
            assert_eq!(page.threads[0].thread_id, format!("l{THREADS:06}"));
        }
        times.sort();
        times
    }

    const SQLITE_FILL: &str = "WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ?1)
        INSERT INTO ag_ui_threads (owner, thread_id, metadata, created_at, updated_at, run_count, fold)
        SELECT 'lister', printf('l%06d', n), '{}', 1700000000000000 + n * 1000,
               1700000000000000 + n * 1000, 1, '[]' FROM g";
    const SQLITE_FILL_RUNS: &str =
        "INSERT INTO ag_ui_runs (owner, thread_id, run_id, seq, status, outcome,
            started_at, ended_at, checkpoint_at)
        SELECT owner, thread_id, 'r', 1, 'ended', 'success', created_at, updated_at, created_at
        FROM ag_ui_threads WHERE owner = 'lister'";
    const PG_FILL: &str = "INSERT INTO ag_ui_threads (owner, thread_id, metadata, created_at, updated_at, run_count, fold)
        SELECT 'lister', 'l' || lpad(n::text, 6, '0'), '{}',
               timestamptz '2024-01-01' + n * interval '1 ms',
               timestamptz '2024-01-01' + n * interval '1 ms', 1, '[]'
        FROM generate_series(1, $1::bigint) n";
    const PG_FILL_RUNS: &str =
        "INSERT INTO ag_ui_runs (owner, thread_id, run_id, seq, status, outcome,
            started_at, ended_at, checkpoint_at)
        SELECT owner, thread_id, 'r', 1, 'ended', 'success', created_at, updated_at, created_at
        FROM ag_ui_threads WHERE owner = 'lister'";

    fn median(v: &mut [f64]) -> f64 {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }

    fn pct(times: &[Duration], p: f64) -> Duration {
        times[((times.len() - 1) as f64 * p).round() as usize]
    }

    pub(crate) async fn main() {
        let server = ag_ui_testkit::postgres::Postgres::start();
        let dir = ag_ui_testkit::threads::RemoveOnDrop(ag_ui_testkit::process::temp_dir("bench"));
        let sqlite =
            SqliteThreads::connect(&format!("sqlite://{}", dir.0.join("threads.db").display()))
                .await
                .unwrap();
        let postgres = PostgresThreads::connect(&server.url()).await.unwrap();

        let started = Instant::now();
        sqlx::query(SQLITE_FILL)
            .bind(THREADS)
            .execute(sqlite.pool())
            .await
            .unwrap();
        sqlx::query(SQLITE_FILL_RUNS)
            .execute(sqlite.pool())
            .await
            .unwrap();
        sqlx::query("ANALYZE").execute(sqlite.pool()).await.unwrap();
        let sqlite_fill = started.elapsed();
        let started = Instant::now();
        sqlx::query(PG_FILL)
            .bind(THREADS)
            .execute(postgres.pool())
            .await
            .unwrap();
        sqlx::query(PG_FILL_RUNS)
            .execute(postgres.pool())
            .await
            .unwrap();
        sqlx::query("ANALYZE")
            .execute(postgres.pool())
            .await
            .unwrap();
        let pg_fill = started.elapsed();
        println!(
            "filled {THREADS} threads with a run each: sqlite {:.1} s, postgres {:.1} s",
            sqlite_fill.as_secs_f64(),
            pg_fill.as_secs_f64()
        );

        let sqlite: Arc<dyn ThreadStore> = Arc::new(sqlite);
        let postgres: Arc<dyn ThreadStore> = Arc::new(postgres);
        // One warm-up round each, not counted.
        writes(sqlite.clone(), 0).await;
        writes(postgres.clone(), 0).await;
        let (mut s, mut p) = (Vec::new(), Vec::new());
        for round in 1..=ROUNDS {
            s.push(writes(sqlite.clone(), round).await);
            p.push(writes(postgres.clone(), round).await);
        }
        let (sw, pw) = (median(&mut s), median(&mut p));
        lists(&*sqlite).await;
        lists(&*postgres).await;
        let (mut sl, mut pl) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            sl.extend(lists(&*sqlite).await);
            pl.extend(lists(&*postgres).await);
        }
        sl.sort();
        pl.sort();
        println!();
        println!("| measure | SQLite | PostgreSQL | SQLite / PostgreSQL |");
        println!("|---|---|---|---|");
        println!(
            "| thread writes per second, {RUNS} concurrent runs (median of {ROUNDS} rounds) | {sw:.0} | {pw:.0} | {:.2} |",
            sw / pw
        );
        for (name, p) in [("median", 0.5), ("p99", 0.99)] {
            let (a, b) = (pct(&sl, p), pct(&pl, p));
            println!(
                "| newest 20 of {THREADS} threads, {name} | {:.3} ms | {:.3} ms | {:.2} |",
                a.as_secs_f64() * 1e3,
                b.as_secs_f64() * 1e3,
                a.as_secs_f64() / b.as_secs_f64()
            );
        }
    }
}

#[cfg(all(feature = "sqlite", feature = "postgres"))]
fn main() {
    // `cargo test --benches` runs a bench program with `--bench` absent: nothing to do.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(bench::main());
}

#[cfg(not(all(feature = "sqlite", feature = "postgres")))]
fn main() {
    eprintln!("the threads bench needs both backends: --features sqlite,postgres");
}
