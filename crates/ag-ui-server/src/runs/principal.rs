//! Who a request comes from: the service's authorisation asked once per request, its
//! answer kept in the request's extensions for every route that reads it.

use super::Runs;
use crate::Rejection;

/// The principal the service's authorisation named for a request, kept in its
/// extensions so that the authorisation is asked once per request.
#[derive(Debug, Clone)]
struct Authorized(Option<String>);

/// Asks the service's authorisation (when it has one) who `request` comes from, and notes
/// the answer in its extensions for [`principal`]; a refusal comes back with the request's
/// `x-request-id`.
pub(crate) fn authorized<B>(
    runs: &Runs,
    request: http::Request<B>,
) -> Result<http::Request<B>, (Rejection, Option<String>)> {
    if runs.authorize.is_none() {
        return Ok(request);
    }
    let (mut parts, body) = request.into_parts();
    match ask(runs, &parts) {
        Ok(who) => {
            parts.extensions.insert(Authorized(who));
            Ok(http::Request::from_parts(parts, body))
        }
        Err(rejection) => {
            let request_id = parts
                .headers
                .get("x-request-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            Err((rejection, request_id))
        }
    }
}

/// The service's authorisation's answer for `parts` (`Ok(None)` without one); an empty
/// principal is refused.
fn ask(runs: &Runs, parts: &http::request::Parts) -> Result<Option<String>, Rejection> {
    match &runs.authorize {
        Some(f) => match f(parts)? {
            Some(p) if p.is_empty() => Err(Rejection::new(
                500,
                "invalid_principal",
                "the service's authorisation named an empty principal: a principal is never \
                 empty (the empty name is the anonymous principal's key in the thread store)",
            )),
            who => Ok(who),
        },
        None => Ok(None),
    }
}

/// Who the request comes from, by the service's authorisation (the answer [`authorized`]
/// noted, else the authorisation asked now).
pub(crate) fn principal(
    runs: &Runs,
    parts: &http::request::Parts,
) -> Result<Option<String>, Rejection> {
    runs.maybe_sweep();
    if let Some(Authorized(who)) = parts.extensions.get::<Authorized>() {
        return Ok(who.clone());
    }
    ask(runs, parts)
}
