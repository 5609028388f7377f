#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod chat;
mod check;
mod cli;
mod exit;
mod input;
mod load;
mod record;
mod render;
mod run;
mod threads;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::exit::Exit;

/// Runs the command line: reads the arguments of the process, does what they ask and
/// returns the exit status (see the table of exit codes above). The `ag-ui` binary is this
/// function.
#[must_use]
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // `--help` and `--version` are answers, not errors; everything else clap refuses
            // is bad usage (EX_USAGE), not the 2 clap exits with by default.
            let code = if e.use_stderr() {
                Exit::Usage
            } else {
                Exit::Ok
            };
            let _ = e.print();
            return code.into();
        }
    };
    // `load` spreads its streams over every core; the other commands need one thread.
    let mut builder = if matches!(cli.command, Command::Load(_)) {
        tokio::runtime::Builder::new_multi_thread()
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("ag-ui: cannot start the async runtime: {e}");
            return Exit::Transport.into();
        }
    };
    let exit = runtime.block_on(async move {
        match cli.command {
            Command::Run(args) => run::run(args).await,
            Command::Check(args) => check::check(args).await,
            Command::Chat(args) => chat::chat(args).await,
            Command::Record(args) => record::record(args).await,
            Command::Replay(args) => record::replay(args).await,
            Command::Schema(args) => schema(&args),
            Command::Threads(args) => threads::threads(args).await,
            Command::Load(args) => load::load(args).await,
        }
    });
    exit.into()
}

/// Runs `ag-ui schema`: the published bundle of the version.
fn schema(args: &cli::SchemaArgs) -> Exit {
    let text = match args.protocol {
        cli::Protocol::V1_0 => ag_ui_schema::SCHEMA_JSON,
        cli::Protocol::V1_1 => ag_ui_schema::SCHEMA_JSON_1_1,
    };
    // A closed stdout (a pipe into `head`) is no failure of the command.
    let _ = writeln!(std::io::stdout().lock(), "{}", text.trim_end());
    Exit::Ok
}
