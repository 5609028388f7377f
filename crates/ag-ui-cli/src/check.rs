//! `ag-ui check`: a conformance check of a server (a suite of inputs sent to a URL) or of a
//! recorded stream (a file).

mod finding;
mod stream;
mod suite;

use serde_json::{Value, json};

use crate::cli::CheckArgs;
use crate::exit::Exit;
use crate::render::{Paint, Style};

use finding::{Finding, Severity};
use stream::recording_messages;

/// Runs `ag-ui check`.
pub(crate) async fn check(args: CheckArgs) -> Exit {
    let is_url = args.target.starts_with("http://") || args.target.starts_with("https://");
    if let Err(e) = crate::input::refuse_https_without_tls(&args.target) {
        return e;
    }
    let (cases, findings) = if is_url {
        match suite::run_suite(&args).await {
            Ok((cases, findings)) => (Some(cases), findings),
            Err(suite::Unreachable(why)) => {
                eprintln!("ag-ui: {} cannot be reached: {why}", args.target);
                return Exit::Transport;
            }
        }
    } else {
        let text = match std::fs::read(&args.target) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                eprintln!("ag-ui: cannot read {}: {e}", args.target);
                return Exit::Usage;
            }
        };
        let mut findings = Vec::new();
        let messages = recording_messages(&text, &mut findings);
        stream::check_events(
            &messages,
            stream::Expect {
                case: None,
                protocol: args.protocol.version(),
                ids: None,
                history: Vec::new(),
            },
            &mut findings,
        );
        (None, findings)
    };
    let errors = count(&findings, Severity::Error);
    let warnings = count(&findings, Severity::Warning);
    if args.json {
        let report = json!({
            "target": args.target,
            "protocol": args.protocol.as_str(),
            "ok": errors == 0,
            "errors": errors,
            "warnings": warnings,
            "cases": cases.as_ref().map(|cs| cs.iter().map(|c| json!({
                "name": c.name,
                "status": c.status,
                "contentType": c.content_type,
                "events": c.events,
                "outcome": c.outcome,
            })).collect::<Vec<Value>>()),
            "findings": findings.iter().map(Finding::to_json).collect::<Vec<_>>(),
        });
        println!("{report}");
    } else {
        let paint = Paint::stdout();
        for c in cases.iter().flatten() {
            let status = c.status.map_or("no answer".to_owned(), |s| s.to_string());
            println!(
                "case {}: {status}{}, {} events, {}",
                c.name,
                c.content_type
                    .as_deref()
                    .map(|t| format!(" {t}"))
                    .unwrap_or_default(),
                c.events,
                c.outcome
            );
        }
        for f in &findings {
            let style = match f.severity {
                Severity::Error => Style::Bad,
                Severity::Warning => Style::Warn,
                Severity::Info => Style::Dim,
            };
            println!("{}", paint.paint(style, &f.to_line()));
        }
        let summary = format!(
            "{}: {errors} errors, {warnings} warnings (protocol {})",
            args.target,
            args.protocol.as_str()
        );
        println!(
            "{}",
            paint.paint(if errors == 0 { Style::Good } else { Style::Bad }, &summary)
        );
    }
    if errors == 0 {
        Exit::Ok
    } else {
        Exit::Findings
    }
}

/// How many findings have `severity`.
fn count(findings: &[Finding], severity: Severity) -> usize {
    findings.iter().filter(|f| f.severity == severity).count()
}
