//! The published file is what the code generates (`AG_UI_BLESS=1` rewrites it), and the
//! binary writes and checks it.

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
        "{} is stale: regenerate it with `cargo run -p ag-ui-schema` or AG_UI_BLESS=1",
        path.display()
    );
    assert_eq!(
        committed,
        text,
        "{} is not formatted as generated",
        path.display()
    );
}

fn run(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ag-ui-schema"))
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn binary_writes_the_file_and_check_fails_when_it_is_stale() {
    let dir = std::env::temp_dir().join(format!("ag-ui-schema-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let (ok, out) = run(&["--check", "--out", d]);
    assert!(
        !ok && out.contains("cannot read"),
        "check without a file: {out}"
    );
    let (ok, out) = run(&["--out", d]);
    assert!(ok, "{out}");
    let file = dir.join(ag_ui_schema::FILE_NAME);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        ag_ui_schema::bundle_text().unwrap()
    );
    let (ok, out) = run(&["--check", "--out", d]);
    assert!(ok && out.contains("up to date"), "{out}");
    std::fs::write(&file, "{}\n").unwrap();
    let (ok, out) = run(&["--check", "--out", d]);
    assert!(!ok && out.contains("stale"), "{out}");
    let (ok, out) = run(&["--bogus"]);
    assert!(!ok && out.contains("usage"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
