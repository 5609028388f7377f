//! `ag-ui-schema`: prints the AG-UI 1.0 JSON Schema bundle, writes it into a directory, or
//! checks a copy of it.
//!
//! ```text
//! ag-ui-schema                      print the schema on stdout
//! ag-ui-schema --out DIR            write DIR/ag-ui.schema.json
//! ag-ui-schema --check FILE_OR_DIR  exit 1 unless FILE (or DIR/ag-ui.schema.json) is the schema
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: ag-ui-schema [--out DIR | --check FILE_OR_DIR]\n\
    \n  (no option)            print the AG-UI 1.0 JSON Schema on stdout\
    \n  --out DIR              write DIR/ag-ui.schema.json (DIR is created if missing)\
    \n  --check FILE_OR_DIR    compare FILE, or DIR/ag-ui.schema.json, with the schema;\
    \n                         exit 1 when it is missing or differs";

enum Command {
    Print,
    Write(PathBuf),
    Check(PathBuf),
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Option<Command>, String> {
    let mut command = Command::Print;
    while let Some(arg) = args.next() {
        let next = match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--out" | "--check" => args
                .next()
                .map(PathBuf::from)
                .ok_or_else(|| format!("{arg} needs a path"))?,
            other => return Err(format!("unknown argument {other:?}")),
        };
        if !matches!(command, Command::Print) {
            return Err("--out and --check are given once, and not together".to_owned());
        }
        command = if arg == "--out" {
            Command::Write(next)
        } else {
            Command::Check(next)
        };
    }
    Ok(Some(command))
}

fn main() -> ExitCode {
    let command = match parse(std::env::args().skip(1)) {
        Ok(Some(c)) => c,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(problem) => {
            eprintln!("ag-ui-schema: {problem}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let text = match ag_ui_schema::bundle_text() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ag-ui-schema: cannot generate the schema: {e}");
            return ExitCode::FAILURE;
        }
    };
    match command {
        Command::Print => print(&text),
        Command::Write(dir) => write(&dir, &text),
        Command::Check(path) => check(&path, &text),
    }
}

fn print(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ag-ui-schema: cannot write to stdout: {e}");
            ExitCode::FAILURE
        }
    }
}

fn write(dir: &Path, text: &str) -> ExitCode {
    let path = dir.join(ag_ui_schema::FILE_NAME);
    if let Err(e) = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, text)) {
        eprintln!("ag-ui-schema: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    eprintln!("wrote {}", path.display());
    ExitCode::SUCCESS
}

fn check(path: &Path, text: &str) -> ExitCode {
    let file = if path.is_dir() {
        path.join(ag_ui_schema::FILE_NAME)
    } else {
        path.to_owned()
    };
    match std::fs::read_to_string(&file) {
        Ok(found) if found == text => {
            eprintln!("{} is up to date", file.display());
            ExitCode::SUCCESS
        }
        Ok(_) => {
            eprintln!(
                "ag-ui-schema: {0} differs from the schema; regenerate it with \
                 `ag-ui-schema > {0}` (in this repository: `cargo run -q -p ag-ui-schema > {0}`)",
                file.display()
            );
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("ag-ui-schema: cannot read {}: {e}", file.display());
            ExitCode::FAILURE
        }
    }
}
