//! The `seal` binary: the one part of seal that reads files and stdin and writes stdout.

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!("seal: no subcommand given; see `seal --help`");
    ExitCode::from(2)
}
