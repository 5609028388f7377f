//! `serve_redis --metrics`: runs on Redis counted, joins counted, scraped over HTTP.

use ag_ui_testkit::redis::RedisServer;

use crate::support::{chat, client, get, post, read, serve_process};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_redis_counts_runs_and_joins_at_metrics() {
    let redis = RedisServer::start();
    let url = redis.url();
    let serve = serve_process("127.0.0.1:0", &["--store", &url, "--metrics"]);
    let base = serve.url();
    for run in ["m-1", "m-2"] {
        let r = read(post(base.clone(), &chat(run)).send().await.unwrap()).await;
        assert_eq!(r.status, 200);
    }
    let joined = read(get(format!("{base}runs/m-1/events")).send().await.unwrap()).await;
    assert_eq!(joined.status, 200);
    let text = client()
        .get(format!("{base}metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let sample = |key: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(key).and_then(|v| v.strip_prefix(' ')))
            .unwrap_or_else(|| panic!("no {key} in\n{text}"))
            .parse()
            .unwrap()
    };
    assert_eq!(sample("agui_runs_started_total"), 2.0);
    assert_eq!(
        sample(r#"agui_runs_ended_total{outcome="success",error_code=""}"#),
        2.0
    );
    assert_eq!(sample("agui_run_joins_total"), 1.0);
    assert_eq!(
        sample(r#"agui_http_requests_total{route="join",status="200"}"#),
        1.0
    );
}
