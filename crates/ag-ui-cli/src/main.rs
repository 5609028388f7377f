//! The `ag-ui` binary: [`ag_ui_cli::main`].

fn main() -> std::process::ExitCode {
    ag_ui_cli::main()
}
