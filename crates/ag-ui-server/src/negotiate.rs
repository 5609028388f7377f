//! `Accept` negotiation (RFC 9110 §12.5.1) for the SSE response, and for the protobuf one
//! (feature `proto`, spec B1–B3).

use ag_ui_core::sse::SSE_MEDIA_TYPE;

/// Whether a request whose `Accept` header values are `accept` admits an SSE response
/// (`text/event-stream`).
///
/// No header (or only empty ones) admits anything. Otherwise the most specific media range
/// that matches `text/event-stream` decides (`text/event-stream` over `text/*` over
/// `*/*`, parameters other than `q` ignored): SSE is admitted when one matches and its
/// `q` is above 0. A range that cannot be parsed is skipped. Several header values are
/// read as one list.
///
/// ```
/// use ag_ui_server::accepts_sse;
/// assert!(accepts_sse([]));
/// assert!(accepts_sse(["text/event-stream"]));
/// assert!(accepts_sse(["application/json;q=0.9, */*;q=0.1"]));
/// assert!(!accepts_sse(["application/json"]));
/// assert!(!accepts_sse(["*/*, text/event-stream;q=0"]));
/// ```
pub fn accepts_sse<'a>(accept: impl IntoIterator<Item = &'a str>) -> bool {
    quality(accept, SSE_MEDIA_TYPE).is_none_or(|(_, q)| q > 0.0)
}

/// Whether a request whose `Accept` header values are `accept` prefers an SSE response to
/// a JSON one (`GET {agent}/threads/{threadId}` answers either): when `text/event-stream`
/// is named (itself or as `text/*`) with `q` above 0, and no higher than any range that
/// admits `application/json`. No header, `*/*` and JSON-first lists get JSON.
#[cfg(any(test, feature = "tower"))]
pub(crate) fn prefers_sse<'a>(accept: impl IntoIterator<Item = &'a str> + Clone) -> bool {
    let Some((specificity, sse)) = quality(accept.clone(), SSE_MEDIA_TYPE) else {
        return false;
    };
    let json = quality(accept, "application/json").map_or(0.0, |(_, q)| q);
    specificity > 0 && sse > 0.0 && sse >= json
}

/// Whether a request whose `Accept` header values are `accept` asks for the protobuf
/// transport (`application/vnd.ag-ui.event+proto`, spec B1–B2): the most specific range that
/// matches the type (the type itself over `application/*` over `*/*`) has a `q` above 0.
/// Wildcards count, as the spec says: a client that sends `Accept: */*` (`curl`'s default)
/// gets protobuf from a server built with the `proto` feature. No header asks for nothing.
/// Ranking between the two transports by `q` is not done: a server with protobuf answers it
/// whenever it is admitted (spec B1).
///
/// ```
/// use ag_ui_server::accepts_proto;
/// assert!(accepts_proto(["application/vnd.ag-ui.event+proto, text/event-stream"]));
/// assert!(accepts_proto(["text/event-stream;q=1, application/vnd.ag-ui.event+proto;q=0.1"]));
/// assert!(accepts_proto(["*/*"]));
/// assert!(!accepts_proto([]));
/// assert!(!accepts_proto(["text/event-stream"]));
/// assert!(!accepts_proto(["*/*, application/vnd.ag-ui.event+proto;q=0"]));
/// ```
#[cfg(feature = "proto")]
pub fn accepts_proto<'a>(accept: impl IntoIterator<Item = &'a str>) -> bool {
    quality(accept, ag_ui_core::sse::PROTO_MEDIA_TYPE).is_some_and(|(_, q)| q > 0.0)
}

/// The most specific range of `accept` that matches `want` (a `type/subtype`): its
/// specificity (2 exact, 1 `type/*`, 0 `*/*`) and `q`; `Some((0, 0.0))` when ranges are
/// given and none matches, `None` when no range is given at all.
fn quality<'a>(accept: impl IntoIterator<Item = &'a str>, want: &str) -> Option<(u8, f32)> {
    let mut any_range = false;
    // (specificity, q) of the best match so far.
    let mut best: Option<(u8, f32)> = None;
    for value in accept {
        for range in value.split(',') {
            let mut parts = range.split(';');
            let media = parts.next().unwrap_or("").trim();
            if media.is_empty() {
                continue;
            }
            any_range = true;
            let Some(specificity) = matches(media, want) else {
                continue;
            };
            let mut q = 1.0_f32;
            for param in parts {
                if let Some((k, v)) = param.split_once('=')
                    && k.trim().eq_ignore_ascii_case("q")
                {
                    q = v.trim().parse().unwrap_or(0.0);
                }
            }
            if best.is_none_or(|(s, _)| specificity > s) {
                best = Some((specificity, q));
            }
        }
    }
    if !any_range {
        return None;
    }
    Some(best.unwrap_or((0, 0.0)))
}

/// How specifically `media` matches `want`: 2 exact, 1 `type/*`, 0 `*/*`.
fn matches(media: &str, want: &str) -> Option<u8> {
    let (kind, sub) = media.split_once('/')?;
    let (want_kind, want_sub) = want.split_once('/')?;
    let (kind, sub) = (kind.trim(), sub.trim());
    if kind == "*" && sub == "*" {
        Some(0)
    } else if kind.eq_ignore_ascii_case(want_kind) && sub == "*" {
        Some(1)
    } else if kind.eq_ignore_ascii_case(want_kind) && sub.eq_ignore_ascii_case(want_sub) {
        Some(2)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::prefers_sse;

    #[test]
    fn a_thread_is_json_unless_sse_is_preferred() {
        let cases: [(&[&str], bool); 9] = [
            (&[], false),
            (&["*/*"], false),
            (&["application/json"], false),
            (&["text/event-stream"], true),
            (&["text/*"], true),
            (&["text/event-stream, */*"], true),
            (&["application/json, text/event-stream;q=0.5"], false),
            (&["application/json;q=0.2", "text/event-stream;q=0.8"], true),
            (&["text/event-stream;q=0, */*"], false),
        ];
        for (accept, sse) in cases {
            assert_eq!(prefers_sse(accept.iter().copied()), sse, "{accept:?}");
        }
    }
}
