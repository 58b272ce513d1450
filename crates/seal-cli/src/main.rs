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
mod args;
mod demo;
mod doctor;
mod failure;
mod help;
mod hook;
mod io;
mod json_in;
mod json_out;
mod keygen;
mod keys;
mod manifest;
mod policy;
mod render;
mod scan;
mod seen;
mod sign;
mod store;
mod verify;

use std::process::ExitCode;

use args::{Flag, Flags, Parsed};
use failure::{quoted, Exit, Failure};
use hook::Harness;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match dispatch(&args) {
        Ok(code) => code,
        Err(failure) => {
            io::warn(&format!("seal: {failure}"));
            failure.exit.code()
        }
    };
    ExitCode::from(code)
}

fn dispatch(args: &[String]) -> Result<u8, Failure> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        [] => Err(Failure::usage("no command given; see `seal --help`")),
        ["--help" | "-h" | "help", ..] => help(help::MAIN),
        ["--version" | "-V"] => {
            outln!("seal {}", env!("CARGO_PKG_VERSION"));
            Ok(Exit::Ok.code())
        }
        ["keygen", ..] => command(rest(args, 1), keygen::FLAGS, help::KEYGEN, keygen::run),
        ["sign", ..] => command(rest(args, 1), sign::FLAGS, help::SIGN, sign::run),
        ["scan", ..] => command(rest(args, 1), scan::FLAGS, help::SCAN, scan::run),
        ["render", ..] => command(rest(args, 1), render::FLAGS, help::RENDER, render::run),
        ["manifest", "seal", ..] => command(
            rest(args, 2),
            manifest::SEAL_FLAGS,
            help::MANIFEST,
            manifest::run_seal,
        ),
        ["manifest", "approve", ..] => {
            command(rest(args, 2), approve::FLAGS, help::MANIFEST, approve::run)
        }
        ["manifest", "verify", ..] => command(
            rest(args, 2),
            manifest::VERIFY_FLAGS,
            help::MANIFEST,
            manifest::run_verify,
        ),
        ["manifest", ..] => sub_help(args, 1, help::MANIFEST, "manifest", "seal|approve|verify"),
        ["policy", "check", ..] => command(
            rest(args, 2),
            policy::CHECK_FLAGS,
            help::POLICY,
            policy::run_check,
        ),
        ["policy", "lint", ..] => command(
            rest(args, 2),
            policy::LINT_FLAGS,
            help::POLICY,
            policy::run_lint,
        ),
        ["policy", ..] => sub_help(args, 1, help::POLICY, "policy", "check|lint"),
        ["doctor", ..] => command(rest(args, 1), doctor::FLAGS, help::DOCTOR, doctor::run),
        ["demo", ..] => command(rest(args, 1), &[], help::DEMO, |_| demo::run()),
        ["hook", harness @ ("claude-code" | "codex"), event, ..] => {
            let harness = if *harness == "codex" {
                Harness::Codex
            } else {
                Harness::ClaudeCode
            };
            match *event {
                "user-prompt-submit" => Ok(hook::run_prompt(rest(args, 3))),
                "pre-tool-use" => Ok(hook::run_tool(harness, rest(args, 3))),
                "--help" | "-h" => help(help::HOOK),
                other => Err(Failure::usage(format!(
                    "unknown hook event {}; expected `user-prompt-submit` or `pre-tool-use`",
                    quoted(other)
                ))),
            }
        }
        ["hook", "claude-code" | "codex"] => Err(Failure::usage(
            "`hook` needs an event: user-prompt-submit or pre-tool-use",
        )),
        ["hook", ..] => sub_help(args, 1, help::HOOK, "hook", "claude-code|codex EVENT"),
        [other, ..] => Err(Failure::usage(format!(
            "unknown command {}; see `seal --help`",
            quoted(other)
        ))),
    }
}

fn rest(args: &[String], skip: usize) -> &[String] {
    args.get(skip..).unwrap_or_default()
}

fn command(
    args: &[String],
    flags: &[Flag],
    help_text: &str,
    run: impl FnOnce(&Flags) -> Result<u8, Failure>,
) -> Result<u8, Failure> {
    match args::parse(args, flags)? {
        Parsed::Help => help(help_text),
        Parsed::Run(flags) => run(&flags),
    }
}

fn sub_help(
    args: &[String],
    at: usize,
    help_text: &str,
    name: &str,
    expected: &str,
) -> Result<u8, Failure> {
    match args.get(at).map(String::as_str) {
        Some("--help" | "-h") => help(help_text),
        Some(other) => Err(Failure::usage(format!(
            "unknown `{name}` subcommand {}; expected {expected}",
            quoted(other)
        ))),
        None => Err(Failure::usage(format!(
            "`{name}` needs a subcommand: {expected}"
        ))),
    }
}

fn help(text: &str) -> Result<u8, Failure> {
    out!("{text}");
    Ok(Exit::Ok.code())
}
