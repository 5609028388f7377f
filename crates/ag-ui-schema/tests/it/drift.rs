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
