//! `ag-ui-schema`: writes the AG-UI 1.0 JSON Schema bundle, or checks the published one.
//!
//! ```text
//! ag-ui-schema [--out DIR]          write DIR/ag-ui.schema.json (default: this crate's schema/)
//! ag-ui-schema --check [--out DIR]  fail unless DIR/ag-ui.schema.json is what the code generates
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: ag-ui-schema [--check] [--out DIR]\n\
    \n  --out DIR   directory of ag-ui.schema.json (default: the crate's schema/ directory)\
    \n  --check     compare instead of writing; exit 1 when the file is missing or stale";

fn main() -> ExitCode {
    let mut check = false;
    let mut dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schema");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--check" => check = true,
            "--out" => match args.next() {
                Some(d) => dir = PathBuf::from(d),
                None => return usage("--out needs a directory"),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => return usage(&format!("unknown argument {other:?}")),
        }
    }
    let text = match ag_ui_schema::bundle_text() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ag-ui-schema: cannot generate the schema: {e}");
            return ExitCode::FAILURE;
        }
    };
    let path = dir.join(ag_ui_schema::FILE_NAME);
    if check {
        return match std::fs::read_to_string(&path) {
            Ok(committed) if committed == text => {
                println!("{} is up to date", path.display());
                ExitCode::SUCCESS
            }
            Ok(_) => {
                eprintln!(
                    "ag-ui-schema: {} is stale; regenerate it with `cargo run -p ag-ui-schema -- --out {}`",
                    path.display(),
                    dir.display()
                );
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("ag-ui-schema: cannot read {}: {e}", path.display());
                ExitCode::FAILURE
            }
        };
    }
    if let Err(e) = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, &text)) {
        eprintln!("ag-ui-schema: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    println!("wrote {}", path.display());
    ExitCode::SUCCESS
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("ag-ui-schema: {problem}\n{USAGE}");
    ExitCode::from(2)
}
