//! `Accept` negotiation and content types.

use ag_ui_server::{accepts_sse, check_content_type};

#[test]
fn accept_headers() {
    let admitted: &[&[&str]] = &[
        &[],
        &[""],
        &["text/event-stream"],
        &["TEXT/Event-Stream"],
        &["text/*"],
        &["*/*"],
        &["application/json, text/event-stream;q=0.1"],
        &["application/json", "text/event-stream"],
        &["text/event-stream;charset=utf-8;q=0.5"],
        &["*/*;q=0.1, application/json"],
        &["application/vnd.ag-ui.event+proto, text/event-stream"],
    ];
    for accept in admitted {
        assert!(accepts_sse(accept.iter().copied()), "{accept:?}");
    }
    let refused: &[&[&str]] = &[
        &["application/json"],
        &["application/vnd.ag-ui.event+proto"],
        &["text/event-stream;q=0"],
        &["*/*, text/event-stream;q=0"],
        &["text/*;q=0, */*"],
        &["text/html, application/*"],
        &["*/*;q=0"],
        &["text/event-stream;q=0.0"],
        &["text/event-stream;q=nonsense"],
    ];
    for accept in refused {
        assert!(!accepts_sse(accept.iter().copied()), "{accept:?}");
    }
}

#[test]
fn content_types() {
    for ok in [
        "application/json",
        "Application/JSON; charset=utf-8",
        "application/ld+json",
    ] {
        assert!(check_content_type(Some(ok)).is_ok(), "{ok}");
    }
    for bad in [
        Some("text/plain"),
        Some("application/jsonx"),
        Some(""),
        None,
    ] {
        assert_eq!(check_content_type(bad).unwrap_err().status, 415, "{bad:?}");
    }
}
