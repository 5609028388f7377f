//! `ag-ui schema`: the published JSON Schema of each protocol version.

use serde_json::Value;

use crate::support::ag_ui;

#[tokio::test(flavor = "multi_thread")]
async fn each_version_prints_its_published_schema() {
    for (protocol, published) in [
        ("1.0", ag_ui_schema::SCHEMA_JSON),
        ("1.1", ag_ui_schema::SCHEMA_JSON_1_1),
    ] {
        let out = ag_ui(&["schema", "--protocol", protocol]).await;
        assert_eq!(out.code, 0, "{out:?}");
        let printed = out.json();
        let published: Value = serde_json::from_str(published).unwrap();
        assert_eq!(printed, published, "{protocol}");
        assert!(printed["$defs"]["RunAgentInput"].is_object());
    }
    assert_eq!(
        ag_ui(&["schema"]).await.json()["$id"],
        ag_ui_schema::SCHEMA_ID
    );
    assert_eq!(ag_ui(&["schema", "--protocol", "0.9"]).await.code, 64);
}
