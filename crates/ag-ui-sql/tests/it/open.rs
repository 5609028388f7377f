//! Opening a store by URL: the scheme chooses the backend; errors name the scheme and
//! never the password.

use ag_ui_sql::{SqlError, open};

#[tokio::test]
async fn an_unknown_scheme_is_named_without_the_password() {
    let Err(e) = open("mysql://app:hunter2@db.example/threads?password=x").await else {
        panic!("mysql:// opened a store");
    };
    assert!(
        matches!(e, SqlError::UnknownScheme { ref scheme, .. } if scheme == "mysql"),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(text.contains("\"mysql\""), "{text}");
    assert!(
        !text.contains("hunter2") && !text.contains("password=x"),
        "{text}"
    );
    let Err(e) = open("threads.db").await else {
        panic!("a path without a scheme opened a store");
    };
    assert!(matches!(e, SqlError::UnknownScheme { .. }), "{e:?}");
}

#[cfg(not(feature = "postgres"))]
#[tokio::test]
async fn postgres_without_its_feature_says_which_feature() {
    for url in ["postgres://u:hunter2@h/db", "postgresql://h/db"] {
        let Err(e) = open(url).await else {
            panic!("{url} opened without the postgres feature");
        };
        let text = e.to_string();
        assert!(text.contains("`postgres` feature"), "{text}");
        assert!(!text.contains("hunter2"), "{text}");
    }
}

#[cfg(not(feature = "sqlite"))]
#[tokio::test]
async fn sqlite_without_its_feature_says_which_feature() {
    let Err(e) = open("sqlite://threads.db").await else {
        panic!("sqlite:// opened without the sqlite feature");
    };
    assert!(e.to_string().contains("`sqlite` feature"), "{e}");
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn an_unreachable_postgres_is_named_without_the_password() {
    let port = ag_ui_testkit::net::free_port();
    let url = format!("postgres://app:hunter2@127.0.0.1:{port}/threads?sslmode=disable");
    let config = ag_ui_sql::SqlConfig::new().acquire_timeout(std::time::Duration::from_secs(1));
    let Err(e) = ag_ui_sql::open_with(&url, config).await else {
        panic!("nothing listens on {port}, yet the store opened");
    };
    let text = e.to_string();
    assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
    assert!(!text.contains("hunter2"), "{text}");
}
