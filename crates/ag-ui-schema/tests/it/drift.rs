//! The published file and the `SCHEMA_JSON` constant are what the code generates
//! (`AG_UI_BLESS=1` rewrites the file), and the command prints, writes and checks it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn published() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("schema")
        .join(ag_ui_schema::FILE_NAME)
}

#[test]
fn published_file_equals_what_the_code_generates() {
    let text = ag_ui_schema::bundle_text().unwrap();
    let path = published();
    if std::env::var_os("AG_UI_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (run with AG_UI_BLESS=1 to write it)",
            path.display()
        )
    });
    let committed_value: serde_json::Value = serde_json::from_str(&committed).unwrap();
    assert_eq!(
        committed_value,
        ag_ui_schema::bundle().unwrap(),
        "{} is stale: regenerate it with `cargo run -q -p ag-ui-schema > {0}` or AG_UI_BLESS=1",
        path.display()
    );
    assert_eq!(
        committed,
        text,
        "{} is not formatted as generated",
        path.display()
    );
}

#[test]
fn the_constant_is_what_the_code_generates() {
    // Compiled in from the published file; equal to the generated text, byte for byte.
    assert_eq!(
        ag_ui_schema::SCHEMA_JSON,
        ag_ui_schema::bundle_text().unwrap(),
        "SCHEMA_JSON is stale: regenerate schema/{} and rebuild",
        ag_ui_schema::FILE_NAME
    );
}

/// Runs the command in `cwd`: success, stdout, stderr.
fn run(args: &[&str], cwd: &Path) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ag-ui-schema"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ag-ui-schema-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn command_prints_the_schema_on_stdout_and_writes_nothing() {
    let dir = scratch("print");
    let (ok, stdout, stderr) = run(&[], &dir);
    assert!(ok, "{stderr}");
    assert_eq!(stdout, ag_ui_schema::bundle_text().unwrap());
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "the command wrote a file without being asked to"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn command_writes_into_the_given_directory_and_checks_a_file_or_directory() {
    let dir = scratch("write");
    let out_dir = dir.join("nested").join("out");
    let d = out_dir.to_str().unwrap();
    let file = out_dir.join(ag_ui_schema::FILE_NAME);
    let f = file.to_str().unwrap();

    let (ok, _, stderr) = run(&["--check", d], &dir);
    assert!(
        !ok && stderr.contains("cannot read"),
        "missing file: {stderr}"
    );

    let (ok, stdout, stderr) = run(&["--out", d], &dir);
    assert!(ok && stdout.is_empty(), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        ag_ui_schema::bundle_text().unwrap()
    );
    for target in [d, f] {
        let (ok, _, stderr) = run(&["--check", target], &dir);
        assert!(ok && stderr.contains("up to date"), "{target}: {stderr}");
    }

    std::fs::write(&file, "{}\n").unwrap();
    for target in [d, f] {
        let (ok, _, stderr) = run(&["--check", target], &dir);
        assert!(
            !ok && stderr.contains("differs") && stderr.contains(f),
            "{target}: {stderr}"
        );
    }
    // A file under another name is checked as itself.
    let other = dir.join("schema.json");
    std::fs::write(&other, ag_ui_schema::SCHEMA_JSON).unwrap();
    let (ok, _, stderr) = run(&["--check", other.to_str().unwrap()], &dir);
    assert!(ok, "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn command_rejects_bad_arguments_with_its_usage() {
    let dir = scratch("usage");
    for args in [
        &["--bogus"][..],
        &["--out"],
        &["--check"],
        &["--out", "a", "--check", "b"],
        &["--out", "a", "--out", "b"],
    ] {
        let (ok, stdout, stderr) = run(args, &dir);
        assert!(
            !ok && stdout.is_empty() && stderr.contains("usage"),
            "{args:?}: {stderr}"
        );
    }
    let (ok, stdout, _) = run(&["--help"], &dir);
    assert!(ok && stdout.contains("--check FILE_OR_DIR"), "{stdout}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_version_has_its_published_file_and_constant() {
    use ag_ui_core::ProtocolVersion;
    for version in ag_ui_schema::VERSIONS {
        let text = ag_ui_schema::bundle_text_for(version).unwrap();
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("schema")
            .join(ag_ui_schema::file_name_for(version));
        if std::env::var_os("AG_UI_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(&path, &text).unwrap();
        }
        let committed = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (AG_UI_BLESS=1 writes it)", path.display()));
        assert_eq!(committed, text, "{} is stale", path.display());
        let bundle: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(bundle["$id"], ag_ui_schema::schema_id_for(version));
        assert!(
            bundle["$id"]
                .as_str()
                .unwrap()
                .ends_with(&version.to_string())
        );
    }
    assert_eq!(
        ag_ui_schema::SCHEMA_JSON_1_1,
        ag_ui_schema::bundle_text_for(ProtocolVersion::V1_1).unwrap()
    );
    assert_eq!(
        ag_ui_schema::file_name_for(ProtocolVersion::V1_1),
        "ag-ui-1.1.schema.json"
    );
    assert_eq!(
        ag_ui_schema::schema_id_for(ProtocolVersion::V1_0),
        ag_ui_schema::SCHEMA_ID
    );
    assert!(ag_ui_schema::bundle_for(ProtocolVersion::new(1, 2, 0)).is_err());
}

#[test]
fn only_the_1_1_bundle_has_the_1_1_members_where_the_table_puts_them() {
    use ag_ui_core::{ProtocolVersion, VERSIONED_FIELDS};
    let holders = |version| {
        let b = ag_ui_schema::bundle_for(version).unwrap();
        let mut names: Vec<String> = b["$defs"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, d)| d["properties"].get("encryptedValueType").is_some())
            .map(|(n, _)| n.clone())
            .collect();
        names.sort();
        names
    };
    assert!(holders(ProtocolVersion::V1_0).is_empty());
    // The four messages that compose BaseMessage get it from there.
    let mut expected: Vec<String> = VERSIONED_FIELDS
        .iter()
        .filter(|f| f.field == "encryptedValueType")
        .map(|f| f.definition)
        .filter(|d| {
            !matches!(
                *d,
                "DeveloperMessage" | "SystemMessage" | "AssistantMessage" | "UserMessage"
            )
        })
        .map(str::to_owned)
        .chain(["BaseMessage".to_owned()])
        .collect();
    expected.sort();
    assert_eq!(holders(ProtocolVersion::V1_1), expected);
}

#[test]
fn command_selects_the_version_with_protocol_and_checks_every_version_of_a_directory() {
    let dir = scratch("protocol");
    let d = dir.to_str().unwrap();
    let (ok, stdout, stderr) = run(&["--protocol", "1.1"], &dir);
    assert!(ok, "{stderr}");
    assert_eq!(stdout, ag_ui_schema::SCHEMA_JSON_1_1);
    let (ok, _, stderr) = run(&["--out", d], &dir);
    assert!(ok, "{stderr}");
    let (ok, _, stderr) = run(&["--check", d], &dir);
    assert!(ok && stderr.matches("up to date").count() == 2, "{stderr}");
    let newer = dir.join("ag-ui-1.1.schema.json");
    std::fs::write(&newer, ag_ui_schema::SCHEMA_JSON).unwrap();
    let (ok, _, stderr) = run(&["--check", d], &dir);
    assert!(!ok && stderr.contains("ag-ui-1.1.schema.json"), "{stderr}");
    let (ok, _, stderr) = run(&["--protocol", "1.0", "--check", d], &dir);
    assert!(ok, "{stderr}");
    let (ok, _, stderr) = run(
        &["--protocol", "1.1", "--check", newer.to_str().unwrap()],
        &dir,
    );
    assert!(!ok && stderr.contains("differs"), "{stderr}");
    for bad in [
        &["--protocol", "2.0"][..],
        &["--protocol"],
        &["--protocol", "1.1", "--protocol", "1.0"],
    ] {
        let (ok, _, stderr) = run(bad, &dir);
        assert!(!ok && stderr.contains("usage"), "{bad:?}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
