//! `ag-ui-schema`: prints an AG-UI JSON Schema bundle, writes the bundles into a directory,
//! or checks copies of them.
//!
//! ```text
//! ag-ui-schema                      print the AG-UI 1.0 schema on stdout
//! ag-ui-schema --out DIR            write every version's file into DIR
//! ag-ui-schema --check FILE_OR_DIR  exit 1 unless FILE (or every version's file in DIR) is the schema
//! ag-ui-schema --protocol 1.1 …     the same for one version only (1.0 or 1.1)
//! ag-ui-schema --openapi            print the OpenAPI document of ag-ui-server's routes
//! ag-ui-schema --openapi --check F  exit 1 unless F is that document
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ag_ui_core::ProtocolVersion;

const USAGE: &str = "usage: ag-ui-schema [--protocol VERSION] [--out DIR | --check FILE_OR_DIR]\n\
    \n  (no option)            print the AG-UI 1.0 JSON Schema on stdout\
    \n  --protocol VERSION     the protocol version of the schema (1.0 or 1.1); without it,\
    \n                         --out and --check take every version and printing takes 1.0\
    \n  --out DIR              write DIR/ag-ui.schema.json (1.0) and DIR/ag-ui-1.1.schema.json\
    \n                         (DIR is created if missing)\
    \n  --check FILE_OR_DIR    compare FILE, or each version's file in DIR, with the schema;\
    \n                         exit 1 when one is missing or differs\
    \n  --openapi              the OpenAPI 3.1 document of ag-ui-server's routes instead\
    \n                         (printed, or with --out FILE / --check FILE)";

enum Command {
    Print,
    Write(PathBuf),
    Check(PathBuf),
}

struct Args {
    command: Command,
    protocol: Option<ProtocolVersion>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Option<Args>, String> {
    let mut command = Command::Print;
    let mut protocol = None;
    while let Some(arg) = args.next() {
        if arg == "-h" || arg == "--help" {
            return Ok(None);
        }
        if arg == "--protocol" {
            let text = args.next().ok_or("--protocol needs a version")?;
            let version = ProtocolVersion::parse(&text)
                .filter(|v| ag_ui_schema::VERSIONS.contains(v))
                .ok_or_else(|| {
                    format!(
                        "no schema for protocol {text:?}: the versions are {}",
                        ag_ui_schema::VERSIONS.map(|v| v.to_string()).join(", ")
                    )
                })?;
            if protocol.replace(version).is_some() {
                return Err("--protocol is given once".to_owned());
            }
            continue;
        }
        let next = match arg.as_str() {
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
    Ok(Some(Args { command, protocol }))
}

fn main() -> ExitCode {
    let mut raw: Vec<String> = std::env::args().skip(1).collect();
    if let Some(at) = raw.iter().position(|a| a == "--openapi") {
        raw.remove(at);
        return openapi(raw);
    }
    let args = match parse(raw.into_iter()) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(problem) => {
            eprintln!("ag-ui-schema: {problem}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let versions: Vec<ProtocolVersion> = match (args.protocol, &args.command) {
        (Some(v), _) => vec![v],
        (None, Command::Print) => vec![ProtocolVersion::V1_0],
        (None, Command::Check(path)) if !path.is_dir() => vec![ProtocolVersion::V1_0],
        (None, _) => ag_ui_schema::VERSIONS.to_vec(),
    };
    let mut status = ExitCode::SUCCESS;
    for version in versions {
        let text = match ag_ui_schema::bundle_text_for(version) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("ag-ui-schema: cannot generate the {version} schema: {e}");
                return ExitCode::FAILURE;
            }
        };
        let name = ag_ui_schema::file_name_for(version);
        let done = match &args.command {
            Command::Print => print(&text),
            Command::Write(dir) => write(&dir.join(&name), &text),
            Command::Check(path) if path.is_dir() => check(&path.join(&name), &text, version),
            Command::Check(path) => check(path, &text, version),
        };
        if done != ExitCode::SUCCESS {
            status = done;
        }
    }
    status
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

fn write(path: &Path, text: &str) -> ExitCode {
    let created = path.parent().map_or(Ok(()), std::fs::create_dir_all);
    if let Err(e) = created.and_then(|()| std::fs::write(path, text)) {
        eprintln!("ag-ui-schema: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    eprintln!("wrote {}", path.display());
    ExitCode::SUCCESS
}

fn check(file: &Path, text: &str, version: ProtocolVersion) -> ExitCode {
    match std::fs::read_to_string(file) {
        Ok(found) if found == text => {
            eprintln!("{} is up to date", file.display());
            ExitCode::SUCCESS
        }
        Ok(_) => {
            eprintln!(
                "ag-ui-schema: {0} differs from the {version} schema; regenerate it with \
                 `ag-ui-schema --protocol {version} > {0}` (in this repository: \
                 `cargo run -q -p ag-ui-schema -- --protocol {version} > {0}`)",
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

/// `--openapi`: prints, writes (`--out FILE`) or checks (`--check FILE`) the OpenAPI
/// document.
fn openapi(args: Vec<String>) -> ExitCode {
    let text = match ag_ui_schema::openapi::openapi_text() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ag-ui-schema: cannot generate the OpenAPI document: {e}");
            return ExitCode::FAILURE;
        }
    };
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => print(&text),
        ["--out", file] => write(Path::new(file), &text),
        ["--check", file] => match std::fs::read_to_string(file) {
            Ok(found) if found == text => {
                eprintln!("{file} is up to date");
                ExitCode::SUCCESS
            }
            Ok(_) => {
                eprintln!(
                    "ag-ui-schema: {file} differs from the OpenAPI document; regenerate it with \
                     `cargo run -q -p ag-ui-schema -- --openapi --out {file}`"
                );
                ExitCode::FAILURE
            }
            Err(e) => {
                eprintln!("ag-ui-schema: cannot read {file}: {e}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("ag-ui-schema: --openapi takes --out FILE or --check FILE\n{USAGE}");
            ExitCode::from(2)
        }
    }
}
