//! Bearer-token authentication (RFC 6750) for resumable runs: a map from token to
//! principal, checked in constant time, refusing with a JSON 401 and its challenge.

use std::collections::HashMap;

use http::header::AUTHORIZATION;

use crate::Rejection;

/// The realm [`BearerTokens`] names in its challenges unless told another:
/// `WWW-Authenticate: Bearer realm="ag-ui"`.
pub const DEFAULT_BEARER_REALM: &str = "ag-ui";

/// Bearer tokens and the principal each stands for: who a request comes from, read from
/// its `Authorization: Bearer TOKEN` header (RFC 6750 §2.1).
///
/// Given to [`Runs::bearer`](super::Runs::bearer) (or called from a
/// [`Runs::authorize`](super::Runs::authorize) function of one's own through
/// [`authorize`](Self::authorize)), it decides every request of the service: starts,
/// joins, stops, thread connects, the capabilities. A request with a known token is
/// the token's principal's; any other is refused with 401 `unauthorized`, a JSON body
/// like every refusal, and the challenge `WWW-Authenticate: Bearer realm="ag-ui"`, with
/// `error="invalid_token"` added when a bearer token was sent but is not known. A request
/// with more than one `Authorization` header is refused with 400 `invalid_request`.
///
/// A token is compared with every configured token in time that depends on the
/// configured tokens' lengths only, never on how much of the token sent matches. No
/// token is ever printed (the `Debug` output shows the principals only).
///
/// ```
/// use ag_ui_server::runs::{BearerTokens, Runs};
///
/// let tokens = BearerTokens::new()
///     .with_token("s3cret-alice", "alice")?
///     .with_token("s3cret-bob", "bob")?;
/// let runs = Runs::in_memory().bearer(tokens);
/// # let _ = runs;
/// # Ok::<(), ag_ui_server::runs::BearerTokenError>(())
/// ```
#[derive(Clone)]
#[must_use]
pub struct BearerTokens {
    /// Each token's bytes and its principal, in the order given (a token given again
    /// replaces its principal).
    tokens: Vec<(Box<[u8]>, String)>,
    realm: String,
}

impl Default for BearerTokens {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for BearerTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let principals: Vec<&str> = self.tokens.iter().map(|(_, p)| p.as_str()).collect();
        f.debug_struct("BearerTokens")
            .field("principals", &principals)
            .field("realm", &self.realm)
            .finish_non_exhaustive()
    }
}

/// Why a token or principal cannot be configured in [`BearerTokens`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BearerTokenError {
    /// The token is empty or has a character RFC 6750's `b64token` does not allow
    /// (letters, digits, `-._~+/`, then `=` padding): no client could send it. Holds the
    /// principal it was meant for, never the token.
    #[error(
        "the bearer token for principal {0:?} is empty or not a b64token (letters, digits, \
         -._~+/ and trailing =)"
    )]
    InvalidToken(String),
    /// The principal is empty (an empty name is the anonymous principal's key in a
    /// thread store).
    #[error("a bearer token's principal is empty")]
    EmptyPrincipal,
    /// A `TOKEN=PRINCIPAL` pair without `=` (holds nothing of it: it may be a token).
    #[error("expected TOKEN=PRINCIPAL")]
    NotAPair,
}

/// Whether `token` is an RFC 6750 `b64token`: `1*( ALPHA / DIGIT / "-" / "." / "_" /
/// "~" / "+" / "/" ) *"="`.
fn is_b64token(token: &[u8]) -> bool {
    let body_len = token.len() - token.iter().rev().take_while(|&&b| b == b'=').count();
    body_len > 0
        && token[..body_len]
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
}

/// Whether `given` equals `known`, in time that depends on `known.len()` only.
fn same(given: &[u8], known: &[u8]) -> bool {
    let mut diff = u8::from(given.len() != known.len());
    for (i, &k) in known.iter().enumerate() {
        diff |= k ^ given.get(i).copied().unwrap_or(!k);
    }
    std::hint::black_box(diff) == 0
}

impl BearerTokens {
    /// No tokens yet (refuses every request until one is added), realm
    /// [`DEFAULT_BEARER_REALM`].
    pub fn new() -> Self {
        BearerTokens {
            tokens: Vec::new(),
            realm: DEFAULT_BEARER_REALM.to_owned(),
        }
    }

    /// These tokens with `token` standing for `principal` (replacing the principal of a
    /// token given before).
    ///
    /// # Errors
    /// [`BearerTokenError::InvalidToken`] for a token a client could not send,
    /// [`BearerTokenError::EmptyPrincipal`] for an empty principal.
    pub fn with_token(
        mut self,
        token: impl AsRef<str>,
        principal: impl Into<String>,
    ) -> Result<Self, BearerTokenError> {
        self.insert(token.as_ref(), principal)?;
        Ok(self)
    }

    /// Adds `token` standing for `principal` (replacing the principal of a token given
    /// before).
    ///
    /// # Errors
    /// As [`with_token`](Self::with_token).
    pub fn insert(
        &mut self,
        token: &str,
        principal: impl Into<String>,
    ) -> Result<(), BearerTokenError> {
        let principal = principal.into();
        if principal.is_empty() {
            return Err(BearerTokenError::EmptyPrincipal);
        }
        if !is_b64token(token.as_bytes()) {
            return Err(BearerTokenError::InvalidToken(principal));
        }
        match self
            .tokens
            .iter_mut()
            .find(|(t, _)| **t == *token.as_bytes())
        {
            Some(entry) => entry.1 = principal,
            None => self.tokens.push((token.as_bytes().into(), principal)),
        }
        Ok(())
    }

    /// Adds the pair `TOKEN=PRINCIPAL`, split at the last `=` (a token may end in `=`
    /// padding; a principal given this way has no `=`): `abc==x` is the token `abc=` for
    /// the principal `x`.
    ///
    /// # Errors
    /// [`BearerTokenError::NotAPair`] without `=`, else as [`insert`](Self::insert).
    pub fn insert_pair(&mut self, pair: &str) -> Result<(), BearerTokenError> {
        let (token, principal) = pair.rsplit_once('=').ok_or(BearerTokenError::NotAPair)?;
        self.insert(token, principal)
    }

    /// The realm named in challenges (default [`DEFAULT_BEARER_REALM`]).
    pub fn realm(mut self, realm: impl Into<String>) -> Self {
        self.realm = realm.into();
        self
    }

    /// How many tokens are configured.
    #[must_use]
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether no token is configured (then every request is refused).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The principals, each once, in the order their tokens were given.
    #[must_use]
    pub fn principals(&self) -> Vec<&str> {
        let mut seen = HashMap::new();
        for (i, (_, p)) in self.tokens.iter().enumerate() {
            seen.entry(p.as_str()).or_insert(i);
        }
        let mut out: Vec<(&str, usize)> = seen.into_iter().collect();
        out.sort_by_key(|&(_, i)| i);
        out.into_iter().map(|(p, _)| p).collect()
    }

    /// The principal `token` stands for, comparing it with every configured token in
    /// constant time.
    fn lookup(&self, token: &[u8]) -> Option<&str> {
        let mut found = None;
        // Every token is compared, whether or not one matched already.
        for (known, principal) in &self.tokens {
            if same(token, known) {
                found = Some(principal.as_str());
            }
        }
        found
    }

    fn challenge(&self, error: Option<&str>) -> String {
        let realm = self.realm.replace(['\\', '"'], "");
        match error {
            Some(e) => format!("Bearer realm=\"{realm}\", error=\"{e}\""),
            None => format!("Bearer realm=\"{realm}\""),
        }
    }

    /// Who the request with head `parts` comes from: `Ok(Some(principal))` for a known
    /// bearer token, else the refusal (see the [type's docs](Self)). Has the signature of
    /// a [`Runs::authorize`](super::Runs::authorize) function.
    ///
    /// # Errors
    /// 401 `unauthorized` without a bearer token or with an unknown one, 400
    /// `invalid_request` with more than one `Authorization` header.
    pub fn authorize(&self, parts: &http::request::Parts) -> Result<Option<String>, Rejection> {
        let mut values = parts.headers.get_all(AUTHORIZATION).iter();
        let first = values.next();
        if values.next().is_some() {
            return Err(Rejection::new(
                400,
                "invalid_request",
                "the request has more than one Authorization header: send one bearer token",
            )
            .with_header("www-authenticate", self.challenge(Some("invalid_request"))));
        }
        let token = first.and_then(|v| {
            let v = v.as_bytes();
            let (scheme, rest) = v.split_at(v.iter().position(|&b| b == b' ')?);
            scheme
                .eq_ignore_ascii_case(b"bearer")
                .then(|| rest.trim_ascii())
        });
        let Some(token) = token else {
            let mut r = Rejection::unauthorized(self.challenge(None));
            r.message =
                "this agent needs a bearer token: send `Authorization: Bearer TOKEN`".to_owned();
            return Err(r);
        };
        match self.lookup(token) {
            Some(principal) => Ok(Some(principal.to_owned())),
            None => {
                let mut r = Rejection::unauthorized(self.challenge(Some("invalid_token")));
                r.message = "the bearer token is not known to this agent".to_owned();
                Err(r)
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn parts(authorization: &[&str]) -> http::request::Parts {
        let mut request = http::Request::builder();
        for a in authorization {
            request = request.header(AUTHORIZATION, *a);
        }
        request.body(()).unwrap().into_parts().0
    }

    fn tokens() -> BearerTokens {
        BearerTokens::new()
            .with_token("alice-token", "alice")
            .unwrap()
            .with_token("bob-token==", "bob")
            .unwrap()
    }

    fn challenge(r: &Rejection) -> Option<&str> {
        r.headers
            .iter()
            .find(|(n, _)| n == "www-authenticate")
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn a_known_token_names_its_principal_whatever_the_schemes_case() {
        let t = tokens();
        for header in [
            "Bearer alice-token",
            "bearer alice-token",
            "BEARER  alice-token ",
        ] {
            assert_eq!(t.authorize(&parts(&[header])), Ok(Some("alice".to_owned())));
        }
        assert_eq!(
            t.authorize(&parts(&["Bearer bob-token=="])),
            Ok(Some("bob".to_owned()))
        );
    }

    #[test]
    fn no_token_is_a_401_with_a_bare_challenge_an_unknown_one_with_invalid_token() {
        let t = tokens();
        for missing in [
            &[][..],
            &["Basic YWxpY2U6eA=="],
            &["Bearer"],
            &["alice-token"],
        ] {
            let r = t.authorize(&parts(missing)).unwrap_err();
            assert_eq!((r.status, r.error), (401, "unauthorized"), "{missing:?}");
            assert_eq!(
                challenge(&r),
                Some(r#"Bearer realm="ag-ui""#),
                "{missing:?}"
            );
        }
        for unknown in [
            "Bearer alice-toke",
            "Bearer alice-tokenx",
            "Bearer bob-token",
            "Bearer ",
        ] {
            let r = t.authorize(&parts(&[unknown])).unwrap_err();
            assert_eq!((r.status, r.error), (401, "unauthorized"), "{unknown:?}");
            assert_eq!(
                challenge(&r),
                Some(r#"Bearer realm="ag-ui", error="invalid_token""#),
                "{unknown:?}"
            );
            assert!(!r.message.contains("alice"), "{}", r.message);
        }
        let two = t
            .authorize(&parts(&["Bearer alice-token", "Bearer bob-token=="]))
            .unwrap_err();
        assert_eq!((two.status, two.error), (400, "invalid_request"));
        assert_eq!(
            challenge(&two),
            Some(r#"Bearer realm="ag-ui", error="invalid_request""#)
        );
    }

    #[test]
    fn no_tokens_refuse_everyone_and_a_realm_is_named() {
        let t = BearerTokens::new().realm("agents");
        assert!(t.is_empty());
        let r = t.authorize(&parts(&["Bearer x"])).unwrap_err();
        assert_eq!(
            challenge(&r),
            Some(r#"Bearer realm="agents", error="invalid_token""#)
        );
    }

    #[test]
    fn tokens_and_principals_are_checked_and_never_printed() {
        assert_eq!(
            BearerTokens::new()
                .with_token("has space", "a")
                .unwrap_err(),
            BearerTokenError::InvalidToken("a".into())
        );
        for bad in ["", "=", "é", "a\"b"] {
            assert!(BearerTokens::new().with_token(bad, "a").is_err(), "{bad:?}");
        }
        assert_eq!(
            BearerTokens::new().with_token("t", "").unwrap_err(),
            BearerTokenError::EmptyPrincipal
        );
        let mut t = tokens();
        t.insert_pair("carol-token==carol").unwrap();
        t.insert_pair("alice-token=alice2").unwrap();
        assert_eq!(t.len(), 3);
        assert_eq!(t.principals(), ["alice2", "bob", "carol"]);
        assert_eq!(
            t.authorize(&parts(&["Bearer carol-token="])),
            Ok(Some("carol".to_owned()))
        );
        assert_eq!(
            t.insert_pair("no-pair").unwrap_err(),
            BearerTokenError::NotAPair
        );
        let shown = format!("{t:?}");
        assert!(!shown.contains("-token"), "{shown}");
        assert!(shown.contains("carol"), "{shown}");
    }

    #[test]
    fn comparison_is_exact() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abd", b"abc"));
        assert!(!same(b"ab", b"abc"));
        assert!(!same(b"abcd", b"abc"));
        assert!(!same(b"", b"abc"));
        // A given byte equal to !known must not pass where the given token is short.
        assert!(!same(b"a", b"a\xff"));
    }
}
