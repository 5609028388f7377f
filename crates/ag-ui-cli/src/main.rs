//! `ag-ui`, the AG-UI command line: run an agent from a terminal (`run`, `chat`), check a
//! server or a recorded stream against the protocol (`check`), record a run and serve a
//! recording as an agent (`record`, `replay`). The crate README lists every command, flag,
//! exit code and check rule.

mod chat;
mod check;
mod cli;
mod exit;
mod input;
mod record;
mod render;
mod run;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::exit::Exit;

fn main() -> ExitCode {
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
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
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
        }
    });
    exit.into()
}
