//! What can go wrong opening a store, and the URL as errors show it.

/// Why a store could not be opened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SqlError {
    /// The URL's scheme names a backend this build left out.
    #[error(
        "{scheme}:// URLs need ag-ui-sql's `{feature}` feature, which this build does not have"
    )]
    FeatureOff {
        /// The URL's scheme.
        scheme: String,
        /// The feature that brings it.
        feature: &'static str,
    },
    /// The URL's scheme is none of `postgres`, `postgresql` or `sqlite`.
    #[error("{url}: the scheme {scheme:?} is not one of postgres://, postgresql://, sqlite://")]
    UnknownScheme {
        /// The scheme.
        scheme: String,
        /// The URL without its credentials.
        url: String,
    },
    /// The URL does not parse as the backend's.
    #[error("{url} is not a valid database URL: {reason}")]
    InvalidUrl {
        /// The URL without its credentials.
        url: String,
        /// Why.
        reason: String,
    },
    /// The database did not answer, refused the connection or failed a statement.
    #[error("{url}: {source}")]
    Database {
        /// The URL without its credentials.
        url: String,
        /// The driver's error.
        #[source]
        source: sqlx::Error,
    },
    /// A migration failed (or the database holds a migration this crate does not know).
    #[error("{url}: migrating the thread tables failed: {source}")]
    Migrate {
        /// The URL without its credentials.
        url: String,
        /// The migrator's error.
        #[source]
        source: sqlx::migrate::MigrateError,
    },
}

/// `url` as an error may show it: the scheme, user, host, port and path; no password, no
/// query (which may carry one), no fragment.
#[must_use]
pub fn redact(url: &str) -> String {
    let without_query = url.split(['?', '#']).next().unwrap_or("");
    let Some((scheme, rest)) = without_query.split_once("://") else {
        return without_query.to_owned();
    };
    // Credentials end at the last `@` (a password may hold an unescaped `/` or `@`).
    match rest.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split([':', '/']).next().unwrap_or("");
            format!("{scheme}://{user}:***@{host}")
        }
        None => format!("{scheme}://{rest}"),
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn redact_drops_passwords_and_queries() {
        assert_eq!(
            redact("postgres://app:s3cret@db.example:5432/threads?sslmode=require&password=x"),
            "postgres://app:***@db.example:5432/threads"
        );
        assert_eq!(
            redact("postgres://app@db/threads"),
            "postgres://app:***@db/threads"
        );
        assert_eq!(redact("postgres://u:p/w@rd@h/db"), "postgres://u:***@h/db");
        assert_eq!(redact("postgresql://a:b:c@h"), "postgresql://a:***@h");
        assert_eq!(
            redact("sqlite://data/threads.db"),
            "sqlite://data/threads.db"
        );
        assert_eq!(redact("nonsense"), "nonsense");
    }
}
