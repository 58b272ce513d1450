//! The wrapper table: commands that run another command given as their remaining words, with
//! the options each accepts. Any other option makes the command unanalysable.

use super::buffer::BufferWords;
use super::UnanalysableReason;

/// Words read by index: the arguments of a wrapper or a shell, wherever they are stored.
pub(super) trait WordSeq {
    /// The word at `at`.
    fn word(&self, at: usize) -> Option<&str>;
    /// How many words.
    fn count(&self) -> usize;
}

impl WordSeq for BufferWords<'_> {
    fn word(&self, at: usize) -> Option<&str> {
        self.value(at)
    }

    fn count(&self) -> usize {
        self.len()
    }
}

impl<S: AsRef<str>> WordSeq for [S] {
    fn word(&self, at: usize) -> Option<&str> {
        self.get(at).map(AsRef::as_ref)
    }

    fn count(&self) -> usize {
        self.len()
    }
}

/// What a wrapper's words amount to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Strip {
    /// The wrapped program is the word at this index of the arguments.
    Command(usize),
    /// No command follows (or the wrapper is used as a query, `command -v`): the wrapper is the
    /// program.
    NoCommand,
}

/// The table entry for `name` (a basename), if it is a wrapper.
pub(super) fn wrapper(name: &str) -> Option<&'static Wrapper> {
    let first = name.as_bytes().first();
    WRAPPERS.iter().find(|w| {
        w.name.len() == name.len() && w.name.as_bytes().first() == first && w.name == name
    })
}

/// One row of the wrapper table.
#[derive(Debug)]
pub(super) struct Wrapper {
    pub name: &'static str,
    /// Short options without an argument.
    flags: &'static [u8],
    /// Short options taking an argument (attached or the next word).
    with_arg: &'static [u8],
    /// Short options that make the wrapper a query that runs nothing.
    query: &'static [u8],
    /// Long options without an argument.
    long_flags: &'static [&'static str],
    /// Long options taking an argument (`--name=value` or the next word).
    long_with_arg: &'static [&'static str],
    /// Long options with an optional `=value`.
    long_optional: &'static [&'static str],
    /// `-N` adjustments are accepted among the options (`nice -5`).
    numeric_options: bool,
    /// A lone `-` is accepted among the options (`env -`, same as `-i`).
    lone_dash: bool,
    operands: Operands,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operands {
    /// The command follows the options.
    None,
    /// Words containing `=` (environment assignments) follow the options.
    Assignments,
    /// One duration (`timeout`) follows the options.
    Duration,
}

const fn row(name: &'static str) -> Wrapper {
    Wrapper {
        name,
        flags: b"",
        with_arg: b"",
        query: b"",
        long_flags: &[],
        long_with_arg: &[],
        long_optional: &[],
        numeric_options: false,
        lone_dash: false,
        operands: Operands::None,
    }
}

/// The documented wrapper table (spec/shell-segments.md, "Wrappers").
pub(super) const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        flags: b"i",
        with_arg: b"uC",
        long_flags: &["ignore-environment"],
        long_with_arg: &["unset", "chdir"],
        lone_dash: true,
        operands: Operands::Assignments,
        ..row("env")
    },
    Wrapper {
        flags: b"AbEHknPS",
        with_arg: b"ugpCDrtT",
        long_flags: &[
            "askpass",
            "background",
            "set-home",
            "reset-timestamp",
            "non-interactive",
            "preserve-groups",
            "stdin",
        ],
        long_with_arg: &[
            "user",
            "group",
            "prompt",
            "close-from",
            "chdir",
            "role",
            "type",
            "command-timeout",
        ],
        long_optional: &["preserve-env"],
        operands: Operands::Assignments,
        ..row("sudo")
    },
    Wrapper {
        flags: b"n",
        with_arg: b"u",
        ..row("doas")
    },
    Wrapper {
        flags: b"v",
        with_arg: b"sk",
        long_flags: &["preserve-status", "foreground", "verbose"],
        long_with_arg: &["signal", "kill-after"],
        operands: Operands::Duration,
        ..row("timeout")
    },
    Wrapper {
        with_arg: b"n",
        long_with_arg: &["adjustment"],
        numeric_options: true,
        ..row("nice")
    },
    row("nohup"),
    Wrapper {
        flags: b"p",
        query: b"vV",
        ..row("command")
    },
    row("builtin"),
    Wrapper {
        flags: b"cl",
        with_arg: b"a",
        ..row("exec")
    },
    Wrapper {
        flags: b"p",
        ..row("time")
    },
    Wrapper {
        with_arg: b"ioe",
        long_with_arg: &["input", "output", "error"],
        ..row("stdbuf")
    },
    Wrapper {
        flags: b"0oprtx",
        with_arg: b"nLPsd",
        long_flags: &[
            "null",
            "no-run-if-empty",
            "verbose",
            "exit",
            "interactive",
            "open-tty",
        ],
        long_with_arg: &[
            "max-args",
            "max-lines",
            "max-procs",
            "max-chars",
            "delimiter",
        ],
        ..row("xargs")
    },
    Wrapper {
        flags: b"t",
        with_arg: b"cn",
        long_flags: &["ignore"],
        long_with_arg: &["class", "classdata"],
        ..row("ionice")
    },
    Wrapper {
        flags: b"cfw",
        long_flags: &["ctty", "fork", "wait"],
        ..row("setsid")
    },
    Wrapper {
        flags: b"p",
        ..row("unbuffer")
    },
    Wrapper {
        flags: b"dimsu",
        with_arg: b"tw",
        ..row("caffeinate")
    },
];

impl Wrapper {
    /// Reads the wrapper's options and operands from `args` (the words after its name).
    /// `steps` grows by the words and option letters read.
    pub(super) fn strip<W: WordSeq + ?Sized>(
        &self,
        args: &W,
        steps: &mut usize,
    ) -> Result<Strip, UnanalysableReason> {
        let mut i = 0;
        while let Some(word) = args.word(i) {
            *steps += 1;
            if word == "--" {
                i += 1;
                break;
            }
            if let Some(long) = word.strip_prefix("--") {
                i += self.long(long, word)?;
                continue;
            }
            let Some(letters) = word.strip_prefix('-').filter(|l| !l.is_empty()) else {
                if word == "-" && self.lone_dash {
                    i += 1;
                    continue;
                }
                break;
            };
            if self.numeric_options && letters.bytes().all(|b| b.is_ascii_digit()) {
                i += 1;
                continue;
            }
            match self.cluster(letters, word, steps)? {
                Cluster::Done => i += 1,
                Cluster::NextWordIsArgument => i += 2,
                Cluster::Query => return Ok(Strip::NoCommand),
            }
        }
        match self.operands {
            Operands::Assignments => {
                while args.word(i).is_some_and(|w| w.contains('=')) {
                    *steps += 1;
                    i += 1;
                }
            }
            Operands::Duration => match args.word(i) {
                Some(duration) if is_duration(duration) => i += 1,
                Some(other) => {
                    return Err(UnanalysableReason::WrapperOperand {
                        wrapper: self.name.to_owned(),
                        operand: other.to_owned(),
                    })
                }
                None => return Ok(Strip::NoCommand),
            },
            Operands::None => {}
        }
        Ok(if i < args.count() {
            Strip::Command(i)
        } else {
            Strip::NoCommand
        })
    }

    /// How many words the long option `--long` (as `word`) takes.
    fn long(&self, long: &str, word: &str) -> Result<usize, UnanalysableReason> {
        let (name, value) = match long.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (long, None),
        };
        let found = |list: &[&str]| list.contains(&name);
        match value {
            None if found(self.long_flags) || found(self.long_optional) => Ok(1),
            None if found(self.long_with_arg) => Ok(2),
            Some(_) if found(self.long_with_arg) || found(self.long_optional) => Ok(1),
            _ => Err(self.unknown(word)),
        }
    }

    fn cluster(
        &self,
        letters: &str,
        word: &str,
        steps: &mut usize,
    ) -> Result<Cluster, UnanalysableReason> {
        for (at, letter) in letters.bytes().enumerate() {
            *steps += 1;
            if self.flags.contains(&letter) {
                continue;
            }
            if self.with_arg.contains(&letter) {
                return Ok(if at + 1 < letters.len() {
                    Cluster::Done
                } else {
                    Cluster::NextWordIsArgument
                });
            }
            if self.query.contains(&letter) {
                return Ok(Cluster::Query);
            }
            return Err(self.unknown(word));
        }
        Ok(Cluster::Done)
    }

    fn unknown(&self, word: &str) -> UnanalysableReason {
        UnanalysableReason::WrapperOption {
            wrapper: self.name.to_owned(),
            option: word.to_owned(),
        }
    }
}

enum Cluster {
    Done,
    NextWordIsArgument,
    Query,
}

/// `timeout`'s duration: digits with at most one `.`, at least one digit, an optional unit
/// `s`, `m`, `h` or `d`.
fn is_duration(word: &str) -> bool {
    let number = word.strip_suffix(['s', 'm', 'h', 'd']).unwrap_or(word);
    number.bytes().any(|b| b.is_ascii_digit())
        && number.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && number.bytes().filter(|&b| b == b'.').count() <= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strip(line: &str) -> Result<Strip, UnanalysableReason> {
        let mut words = line.split(' ').map(str::to_owned);
        let name = words.next().unwrap();
        let args: Vec<String> = words.collect();
        wrapper(&name).unwrap().strip(args.as_slice(), &mut 0)
    }

    #[test]
    fn table() {
        assert_eq!(strip("sudo -u root -E rm"), Ok(Strip::Command(3)));
        assert_eq!(strip("sudo -uroot rm"), Ok(Strip::Command(1)));
        assert_eq!(strip("sudo --user=root X=1 rm"), Ok(Strip::Command(2)));
        assert_eq!(strip("sudo --preserve-env=A,B rm"), Ok(Strip::Command(1)));
        assert_eq!(strip("env -i -u A X=1 Y=2 rm"), Ok(Strip::Command(5)));
        assert_eq!(strip("env - X=1 rm"), Ok(Strip::Command(2)));
        assert_eq!(strip("env -- rm"), Ok(Strip::Command(1)));
        assert_eq!(strip("timeout -s KILL 5s rm"), Ok(Strip::Command(3)));
        assert_eq!(strip("nice -n 5 rm"), Ok(Strip::Command(2)));
        assert_eq!(strip("nice -5 rm"), Ok(Strip::Command(1)));
        assert_eq!(strip("command -v rm"), Ok(Strip::NoCommand));
        assert_eq!(strip("nohup"), Ok(Strip::NoCommand));
        assert_eq!(strip("timeout 5"), Ok(Strip::NoCommand));
        assert!(matches!(
            strip("timeout x rm"),
            Err(UnanalysableReason::WrapperOperand { .. })
        ));
        assert!(matches!(
            strip("env -S rm"),
            Err(UnanalysableReason::WrapperOption { .. })
        ));
        assert!(matches!(
            strip("xargs -I X X"),
            Err(UnanalysableReason::WrapperOption { .. })
        ));
        assert!(matches!(
            strip("sudo -s rm"),
            Err(UnanalysableReason::WrapperOption { .. })
        ));
        assert!(matches!(
            strip("sudo --shell rm"),
            Err(UnanalysableReason::WrapperOption { .. })
        ));
        assert!(is_duration("1.5m") && !is_duration("1..5") && !is_duration("s"));
    }
}
