//! The `seal` binary: the one part of seal that reads files and stdin, writes stdout, reads the
//! clock and draws randomness. Every decision is made by the core crates; this crate parses the
//! command line, moves bytes, and maps failures to the exit codes of spec/cli.md.

/// `print!` that returns an output failure instead of panicking when stdout fails.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::io::emit(&format!($($arg)*))?
    };
}

/// `println!` that returns an output failure instead of panicking when stdout fails.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::io::emit(&format!("{}\n", format_args!($($arg)*)))?
    };
}

mod approve;
mod approvers;
mod audit;
mod cli;
mod codex_patch;
mod demo;
mod doctor;
mod explain;
mod failure;
mod fault;
mod hook;
mod install;
mod io;
mod json_in;
mod json_out;
mod keygen;
mod keys;
mod lane;
mod manifest;
mod path_guards;
mod policy;
mod relay;
mod render;
mod scan;
mod seen;
mod serve;
mod sign;
mod state;
mod store;
mod verify;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use cli::{Cli, Command, HookCommand, HookEvent, ManifestCommand, PolicyCommand, StoreCommand};
use failure::{Exit, Failure};
use lane::Lane;

fn main() -> ExitCode {
    lane::install_panic_report();
    let args: Vec<OsString> = std::env::args_os().collect();
    let code = match Lane::of(&args) {
        Lane::ToolHook(harness, event) => hook::tool_lane(harness, event, &args),
        Lane::PromptHook(harness) => hook::prompt_lane(harness, &args),
        Lane::RelayHook(harness) => relay::relay_lane(harness, &args),
        Lane::NoticeHook(harness) => relay::notice_lane(harness, &args),
        Lane::Command => command_lane(&args),
    };
    ExitCode::from(code)
}

/// Every command but the hooks: a failure prints one line on stderr and exits with its code; a
/// panic is an internal failure (exit 70), never Rust's 101.
fn command_lane(args: &[OsString]) -> u8 {
    let run = lane::catch(|| {
        fault::point("args");
        match Cli::try_parse_from(args) {
            Ok(cli) => dispatch(cli),
            Err(error) => lane::clap_outcome(&error),
        }
    });
    match run {
        Ok(Ok(code)) => code,
        Ok(Err(failure)) | Err(failure) => {
            io::warn(&format!("seal: {failure}"));
            failure.exit.code()
        }
    }
}

fn dispatch(cli: Cli) -> Result<u8, Failure> {
    match cli.command {
        Command::Keygen(args) => keygen::run(&args),
        Command::Sign(args) => sign::run(&args),
        Command::Scan(args) => scan::run(&args),
        Command::Render(args) => render::run(&args),
        Command::Manifest(ManifestCommand::Seal(args)) => manifest::run_seal(&args),
        Command::Manifest(ManifestCommand::Approve(args)) => approve::run(&args),
        Command::Manifest(ManifestCommand::Verify(args)) => manifest::run_verify(&args),
        Command::Policy(PolicyCommand::Check(args)) => policy::run_check(&args),
        Command::Policy(PolicyCommand::Lint(args)) => policy::run_lint(&args),
        Command::Policy(PolicyCommand::Recommended) => policy::run_recommended(),
        Command::Store(StoreCommand::Sign(args)) => store::run_sign(&args),
        Command::Store(StoreCommand::Rotate(args)) => store::run_rotate(&args),
        Command::Doctor(args) => doctor::run(&args),
        Command::Audit(command) => audit::run(&command),
        Command::Demo => demo::run(),
        Command::Install(args) => install::run_install(&args),
        Command::Uninstall(args) => install::run_uninstall(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Completions(args) => {
            let mut text = Vec::new();
            clap_complete::generate(args.shell, &mut Cli::command(), "seal", &mut text);
            io::emit_bytes(&text)?;
            Ok(Exit::Ok.code())
        }
        // The hook lanes are chosen from the raw arguments before parsing; a hook command that
        // reaches here had a harness or event word the lanes do not know, which clap refuses
        // first. Answering it as a failure keeps even that path closed.
        Command::Hook(HookCommand::ClaudeCode(event) | HookCommand::Codex(event)) => {
            Err(Failure::usage(format!(
                "the `{}` hook must be the third word of the command line",
                match event {
                    HookEvent::UserPromptSubmit(_) => "user-prompt-submit",
                    HookEvent::PreToolUse(_) => "pre-tool-use",
                    HookEvent::PreSkillShellCommand(_) => "pre-skill-shell-command",
                    HookEvent::PermissionRequest(_) => "permission-request",
                    HookEvent::PostToolUse(_) => "post-tool-use",
                }
            )))
        }
    }
}
