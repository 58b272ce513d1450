//! A small command-line parser: `--name value`, `--name=value` and switches, checked against a
//! per-command list of flags.

use crate::failure::{quoted, Failure};

/// One flag a command accepts.
#[derive(Debug, Clone, Copy)]
pub struct Flag {
    /// The name, without the leading `--`.
    pub name: &'static str,
    /// Whether it takes a value.
    pub value: bool,
    /// Whether it may be given more than once.
    pub repeat: bool,
}

impl Flag {
    /// A flag taking one value, given at most once.
    pub const fn value(name: &'static str) -> Flag {
        Flag {
            name,
            value: true,
            repeat: false,
        }
    }

    /// A flag taking a value, repeatable.
    pub const fn repeated(name: &'static str) -> Flag {
        Flag {
            name,
            value: true,
            repeat: true,
        }
    }

    /// A switch (no value).
    pub const fn switch(name: &'static str) -> Flag {
        Flag {
            name,
            value: false,
            repeat: false,
        }
    }
}

/// What the command line asked for.
#[derive(Debug)]
pub enum Parsed {
    /// Run with these flags.
    Run(Flags),
    /// Print the command's help.
    Help,
}

/// The flags given, in order.
#[derive(Debug, Default)]
pub struct Flags {
    given: Vec<(&'static str, Option<String>)>,
}

impl Flags {
    /// The value of a flag, if given.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.given
            .iter()
            .rev()
            .find(|(flag, _)| *flag == name)
            .and_then(|(_, value)| value.as_deref())
    }

    /// Every value of a repeatable flag, in order.
    pub fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.given
            .iter()
            .filter(move |(flag, _)| *flag == name)
            .filter_map(|(_, value)| value.as_deref())
    }

    /// Whether a switch was given.
    pub fn switch(&self, name: &str) -> bool {
        self.given.iter().any(|(flag, _)| *flag == name)
    }

    /// The value of a required flag.
    pub fn required(&self, name: &str) -> Result<&str, Failure> {
        self.value(name)
            .ok_or_else(|| Failure::usage(format!("missing required flag `--{name}`")))
    }

    /// The value of a flag, else of the environment variable `env`.
    pub fn or_env(&self, name: &str, env: &str) -> Option<String> {
        match self.value(name) {
            Some(value) => Some(value.to_owned()),
            None => std::env::var(env).ok().filter(|value| !value.is_empty()),
        }
    }
}

/// Parses `args` (after the subcommand words) against `flags`. `--help` or `-h` anywhere asks
/// for help. Positional arguments are refused.
pub fn parse(args: &[String], flags: &[Flag]) -> Result<Parsed, Failure> {
    if args.iter().any(|arg| arg == "--help" || arg == "-h") {
        return Ok(Parsed::Help);
    }
    let mut out = Flags::default();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let Some(body) = arg.strip_prefix("--") else {
            return Err(Failure::usage(format!(
                "unexpected argument {}",
                quoted(arg)
            )));
        };
        let (name, inline) = match body.split_once('=') {
            Some((name, value)) => (name, Some(value.to_owned())),
            None => (body, None),
        };
        let Some(flag) = flags.iter().find(|flag| flag.name == name) else {
            return Err(Failure::usage(format!("unknown flag {}", quoted(arg))));
        };
        if !flag.repeat && out.switch(flag.name) {
            return Err(Failure::usage(format!(
                "flag `--{}` given twice",
                flag.name
            )));
        }
        let value = if flag.value {
            match inline {
                Some(value) => Some(value),
                None => match rest.next() {
                    Some(value) => Some(value.clone()),
                    None => {
                        return Err(Failure::usage(format!(
                            "flag `--{}` needs a value",
                            flag.name
                        )))
                    }
                },
            }
        } else {
            if inline.is_some() {
                return Err(Failure::usage(format!(
                    "flag `--{}` takes no value",
                    flag.name
                )));
            }
            None
        };
        out.given.push((flag.name, value));
    }
    Ok(Parsed::Run(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|arg| (*arg).to_owned()).collect()
    }

    const FLAGS: &[Flag] = &[
        Flag::value("store"),
        Flag::repeated("attr"),
        Flag::switch("json"),
    ];

    #[test]
    fn values_switches_and_repeats() {
        let Ok(Parsed::Run(flags)) = parse(
            &strings(&["--store", "s.json", "--attr=a=1", "--attr", "b=2", "--json"]),
            FLAGS,
        ) else {
            panic!("expected flags")
        };
        assert_eq!(flags.value("store"), Some("s.json"));
        assert_eq!(flags.values("attr").collect::<Vec<_>>(), ["a=1", "b=2"]);
        assert!(flags.switch("json"));
    }

    #[test]
    fn refusals() {
        for args in [
            &["--nope"][..],
            &["--store"],
            &["--store", "a", "--store", "b"],
            &["--json=1"],
            &["positional"],
        ] {
            assert!(parse(&strings(args), FLAGS).is_err(), "{args:?}");
        }
        assert!(matches!(
            parse(&strings(&["--nope", "--help"]), FLAGS),
            Ok(Parsed::Help)
        ));
    }
}
