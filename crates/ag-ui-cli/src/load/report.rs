//! The final report of `ag-ui load`: one JSON document, or text.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::hist::{Histogram, Summary};
use super::{OpenFiles, Stats, lock};
use crate::cli::LoadArgs;
use crate::exit::Exit;

/// What the load measured, ready to print.
pub(crate) struct Report {
    json: Value,
    integrity_failures: u64,
    errors: u64,
    failed_runs: u64,
}

/// Microseconds as milliseconds with three decimals.
fn ms(micros: u64) -> f64 {
    micros as f64 / 1000.0
}

fn summary_json(s: Summary) -> Value {
    json!({
        "count": s.count,
        "mean": ms(s.mean),
        "p50": ms(s.p50),
        "p90": ms(s.p90),
        "p99": ms(s.p99),
        "max": ms(s.max),
    })
}

/// A map of counts as a JSON object.
fn counts<K: AsRef<str>>(map: &BTreeMap<K, u64>) -> Value {
    Value::Object(
        map.iter()
            .map(|(k, v)| (k.as_ref().to_owned(), json!(v)))
            .collect::<Map<_, _>>(),
    )
}

impl Report {
    /// The report of `stats` after `elapsed`.
    pub(crate) fn new(stats: &Stats, args: &LoadArgs, elapsed: Duration, files: OpenFiles) -> Self {
        let load = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
        let secs = elapsed.as_secs_f64().max(1e-9);
        let run_events = load(&stats.run_events);
        let follower_events = load(&stats.follower_events);
        let done = load(&stats.done);
        let errors = lock(&stats.errors);
        let integrity = lock(&stats.integrity);
        let outcomes = lock(&stats.outcomes);
        let hist = |h: &Histogram| summary_json(h.summary());
        let timestamped = stats.latency.count() > 0;
        let json = json!({
            "url": args.url,
            "elapsedMs": ms(elapsed.as_micros() as u64),
            "concurrency": args.concurrency,
            "runs": {
                "started": load(&stats.started),
                "done": done,
                "ok": load(&stats.ok),
                "runError": load(&stats.run_error),
                "failed": load(&stats.failed),
                "outcomes": counts(&outcomes),
            },
            "streams": {
                "post": load(&stats.post_streams),
                "rejoins": load(&stats.rejoins),
                "followers": load(&stats.followers),
                "checked": load(&stats.streams_checked),
            },
            "stops": {
                "sent": load(&stats.stops_sent),
                "accepted": load(&stats.stops_accepted),
            },
            "events": {
                "total": run_events + follower_events,
                "runs": run_events,
                "followers": follower_events,
            },
            "runsPerSecond": (done as f64 / secs * 100.0).round() / 100.0,
            "eventsPerSecond": ((run_events + follower_events) as f64 / secs * 100.0).round() / 100.0,
            "timeToFirstEventMs": hist(&stats.ttfe),
            "latencySource": if timestamped { "timestamp" } else { "none" },
            "eventLatencyMs": if timestamped { hist(&stats.latency) } else { Value::Null },
            "interArrivalMs": hist(&stats.gaps),
            "runDurationMs": hist(&stats.duration),
            "errors": {
                "total": load(&stats.errors_total),
                "http": counts(&errors.http),
                "runError": counts(&errors.run_error),
                "transport": counts(&errors.transport),
                "firstTransport": errors.first,
            },
            "integrity": {
                "ok": integrity.total == 0,
                "failures": integrity.total,
                "byKind": counts(&integrity.by_kind),
                "examples": integrity.examples,
            },
            "openFiles": { "soft": files.soft, "hard": files.hard },
        });
        Report {
            json,
            integrity_failures: integrity.total,
            errors: load(&stats.errors_total),
            failed_runs: load(&stats.failed),
        }
    }

    /// The exit code: 1 for integrity failures, else 5 for HTTP or transport errors (or
    /// runs that failed), else 0.
    pub(crate) fn exit(&self) -> Exit {
        if self.integrity_failures > 0 {
            Exit::Findings
        } else if self.errors > 0 || self.failed_runs > 0 {
            Exit::Transport
        } else {
            Exit::Ok
        }
    }

    /// Prints the report on stdout (a closed stdout is no failure).
    pub(crate) fn print(&self, json: bool) {
        let text = if json {
            self.json.to_string()
        } else {
            self.text()
        };
        let _ = writeln!(std::io::stdout().lock(), "{text}");
    }

    fn text(&self) -> String {
        let j = &self.json;
        let n = |v: &Value| v.as_u64().unwrap_or(0);
        let f = |v: &Value| v.as_f64().unwrap_or(0.0);
        let mut out = String::new();
        let mut line = |s: String| {
            out.push_str(&s);
            out.push('\n');
        };
        line(format!(
            "{}: {} runs in {:.2} s ({:.1} runs/s), {} events ({:.0} events/s)",
            j["url"].as_str().unwrap_or(""),
            n(&j["runs"]["done"]),
            f(&j["elapsedMs"]) / 1000.0,
            f(&j["runsPerSecond"]),
            n(&j["events"]["total"]),
            f(&j["eventsPerSecond"]),
        ));
        let outcomes = pairs(&j["runs"]["outcomes"]);
        line(format!(
            "runs: {} ok, {} ended with RUN_ERROR, {} failed{}",
            n(&j["runs"]["ok"]),
            n(&j["runs"]["runError"]),
            n(&j["runs"]["failed"]),
            if outcomes.is_empty() {
                String::new()
            } else {
                format!(" (outcomes: {outcomes})")
            }
        ));
        line(format!(
            "streams: {} POST, {} rejoins, {} followers; stops: {} sent, {} accepted",
            n(&j["streams"]["post"]),
            n(&j["streams"]["rejoins"]),
            n(&j["streams"]["followers"]),
            n(&j["stops"]["sent"]),
            n(&j["stops"]["accepted"]),
        ));
        let row = |name: &str, h: &Value| {
            if n(&h["count"]) == 0 {
                return format!("{name:<22} (none)");
            }
            format!(
                "{name:<22} p50 {:>9.3} ms  p90 {:>9.3} ms  p99 {:>9.3} ms  max {:>9.3} ms  ({} values)",
                f(&h["p50"]),
                f(&h["p90"]),
                f(&h["p99"]),
                f(&h["max"]),
                n(&h["count"])
            )
        };
        line(row("time to first event", &j["timeToFirstEventMs"]));
        if j["eventLatencyMs"].is_null() {
            line(row("inter-arrival gap", &j["interArrivalMs"]));
            line(
                "  (no event carried a `timestamp`: these are the gaps between arrivals, not \
                 latency)"
                    .to_owned(),
            );
        } else {
            line(row("event latency", &j["eventLatencyMs"]));
            line("  (receipt time minus the event's `timestamp`: clocks must agree)".to_owned());
            line(row("inter-arrival gap", &j["interArrivalMs"]));
        }
        line(row("run duration", &j["runDurationMs"]));
        let mut errors: Vec<String> = ["http", "runError", "transport"]
            .iter()
            .filter_map(|k| {
                let p = pairs(&j["errors"][k]);
                (!p.is_empty()).then(|| format!("{k}: {p}"))
            })
            .collect();
        for (k, v) in j["errors"]["firstTransport"]
            .as_object()
            .into_iter()
            .flatten()
        {
            errors.push(format!("first {k}: {}", v.as_str().unwrap_or("")));
        }
        line(format!(
            "errors: {}",
            if errors.is_empty() {
                "none".to_owned()
            } else {
                errors.join("; ")
            }
        ));
        if j["integrity"]["ok"] == true {
            line(format!(
                "integrity: ok ({} streams checked)",
                n(&j["streams"]["checked"])
            ));
        } else {
            line(format!(
                "integrity: {} failures ({})",
                n(&j["integrity"]["failures"]),
                pairs(&j["integrity"]["byKind"])
            ));
            for e in j["integrity"]["examples"].as_array().into_iter().flatten() {
                line(format!(
                    "  run {} {}: {}: {}",
                    e["runId"].as_str().unwrap_or(""),
                    e["stream"].as_str().unwrap_or(""),
                    e["kind"].as_str().unwrap_or(""),
                    e["detail"].as_str().unwrap_or("")
                ));
            }
        }
        out.trim_end().to_owned()
    }
}

/// `key N, key N` of a JSON object of counts.
fn pairs(v: &Value) -> String {
    v.as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}
