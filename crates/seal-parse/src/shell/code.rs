//! Programs that run code their words (or their input) carry, which the segmenter does not see
//! as segments: an awk program, a `find -exec` payload, `xargs` and `parallel` arguments read
//! from standard input, an interpreter's `-c` / `-e` code, a shell reading commands from its
//! input, `watch`, and git configuration that names a program (spec/shell-segments.md, "Code
//! in arguments").

use super::forms::Form;

/// What a form's program runs that the segmenter cannot see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CarriedCode {
    /// Index of the word that carries it (or that makes the program read it), in the form's
    /// words (the program is word 0).
    pub word: usize,
    /// Why, as a phrase: "runs the awk program in its arguments".
    pub why: &'static str,
    /// For `find -exec` and its kin, the payload: the words from `start` up to (not including)
    /// `end`, the `;` or `+` that closes it.
    pub payload: Option<(usize, usize)>,
}

/// The code `form` carries, if its program runs some (see the module documentation). A form
/// of a program that is not in the table carries none.
#[must_use]
pub fn carried_code(form: &Form<'_>) -> Option<CarriedCode> {
    carried_code_in(form.words())
}

/// [`carried_code`] of a form given as its words (program first).
pub fn carried_code_in<'a, I>(words: I) -> Option<CarriedCode>
where
    I: Iterator<Item = &'a str> + Clone,
{
    let mut rest = words.clone();
    let program = rest.next()?;
    let args = || rest.clone().enumerate().map(|(at, word)| (at + 1, word));
    let found = |word: usize, why: &'static str| {
        Some(CarriedCode {
            word,
            why,
            payload: None,
        })
    };
    match program {
        "awk" | "gawk" | "mawk" | "nawk" => awk(args()),
        "find" => find(args()),
        "xargs" => found(0, "runs a command with arguments read from its input"),
        "parallel" => found(0, "runs commands built from its arguments and input"),
        "watch" => found(0, "runs its arguments as a shell command"),
        "sh" | "bash" | "dash" | "zsh" | "ksh" | "mksh" | "ash" => {
            // A shell with `-c` had its payload unwrapped by the segmenter; one with `-s` or
            // without a script reads commands from its input.
            let mut script = false;
            for (at, word) in args() {
                if word == "-s" {
                    return found(at, "reads commands from its input");
                }
                if word == "-c"
                    || (word.starts_with('-') && !word.starts_with("--") && word.contains('c'))
                {
                    return None;
                }
                if !word.starts_with('-') {
                    script = true;
                    break;
                }
            }
            if script {
                None
            } else {
                found(0, "reads commands from its input")
            }
        }
        "git" => {
            for (at, word) in args() {
                if !word.starts_with('-') {
                    break;
                }
                let config = word.starts_with("-c") && !word.starts_with("--");
                if config || word.starts_with("--config-env") || word.starts_with("--exec-path=") {
                    return found(at, "takes configuration that can name a program to run");
                }
            }
            // Options of fetch, clone, push, archive and rebase that name a program to run.
            args()
                .find(|(_, word)| {
                    ["--upload-pack", "--receive-pack", "--exec"]
                        .iter()
                        .any(|option| word.starts_with(option))
                })
                .and_then(|(at, _)| found(at, "names a program for git to run"))
        }
        "tar" | "gtar" | "bsdtar" => args()
            .find(|(_, word)| {
                [
                    "--checkpoint-action",
                    "--use-compress-program",
                    "--to-command",
                    "--info-script",
                    "--new-volume-script",
                    "--rsh-command",
                ]
                .iter()
                .any(|option| word.starts_with(option))
                    || *word == "-I"
                    || *word == "-F"
            })
            .and_then(|(at, _)| found(at, "names a program for tar to run")),
        _ => interpreter(program, args()),
    }
}

/// `awk PROGRAM ...`: the program is code; one that cannot run a command or write a file
/// (no `system`, `|`, `>`, `getline`) is read as data, any other carries code, and so does
/// `-f FILE` (a program the command does not show) or `-e` / `--source` (gawk).
fn awk<'a>(mut args: impl Iterator<Item = (usize, &'a str)>) -> Option<CarriedCode> {
    let found = |word: usize, why: &'static str| {
        Some(CarriedCode {
            word,
            why,
            payload: None,
        })
    };
    while let Some((at, word)) = args.next() {
        match word {
            "-F" | "-v" => {
                args.next();
            }
            "-f" | "-e" | "--source" | "--file" | "-E" => {
                return found(at, "runs an awk program the command does not show");
            }
            "--" => {
                let (at, program) = args.next()?;
                return unsafe_awk(program).then_some(CarriedCode {
                    word: at,
                    why: "runs an awk program that can run commands or write files",
                    payload: None,
                });
            }
            _ if word.starts_with("-F") || word.starts_with("-v") => {}
            _ if word.starts_with("-f")
                || word.starts_with("--source=")
                || word.starts_with("--file=") =>
            {
                return found(at, "runs an awk program the command does not show");
            }
            _ if word.starts_with('-') => {}
            program => {
                return unsafe_awk(program).then_some(CarriedCode {
                    word: at,
                    why: "runs an awk program that can run commands or write files",
                    payload: None,
                });
            }
        }
    }
    None
}

fn unsafe_awk(program: &str) -> bool {
    program.contains("system")
        || program.contains('|')
        || program.contains('>')
        || program.contains("getline")
        || program.contains('\\')
}

/// `find`: `-exec`, `-execdir`, `-ok`, `-okdir` run a payload (given back with its words);
/// `-delete`, `-fprint`, `-fprint0`, `-fprintf`, `-fls` remove or write files.
fn find<'a>(mut args: impl Iterator<Item = (usize, &'a str)>) -> Option<CarriedCode> {
    while let Some((at, word)) = args.next() {
        match word {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let start = at + 1;
                let mut end = start;
                for (next, payload_word) in args.by_ref() {
                    if payload_word == ";" || payload_word == "+" {
                        break;
                    }
                    end = next + 1;
                }
                return Some(CarriedCode {
                    word: at,
                    why: "runs the command in its arguments on every file it finds",
                    payload: Some((start, end)),
                });
            }
            "-delete" => {
                return Some(CarriedCode {
                    word: at,
                    why: "deletes every file it finds",
                    payload: None,
                })
            }
            "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                return Some(CarriedCode {
                    word: at,
                    why: "writes a file named in its arguments",
                    payload: None,
                })
            }
            _ => {}
        }
    }
    None
}

/// Interpreters given inline code: `python -c`, `node -e` / `-p` / `--eval` / `--print`,
/// `perl -e` / `-E`, `ruby -e`, `php -r`, `lua -e`, also inside a cluster (`perl -ne`).
fn interpreter<'a>(
    program: &str,
    args: impl Iterator<Item = (usize, &'a str)>,
) -> Option<CarriedCode> {
    let python = program == "python"
        || program
            .strip_prefix("python")
            .is_some_and(|v| v.bytes().all(|b| b.is_ascii_digit() || b == b'.'));
    // Letters that give inline code, long options that do, and letters that take a value
    // (skipped with it).
    let (letters, longs, valued): (&str, &[&str], &str) = if python {
        ("c", &[], "WX")
    } else {
        match program {
            "node" | "nodejs" | "bun" => ("ep", &["--eval", "--print"], "r"),
            "deno" => ("", &["eval"], ""),
            "perl" => ("eE", &[], "IMm"),
            "ruby" => ("e", &[], "Ir"),
            "php" => ("r", &[], "dc"),
            "lua" => ("e", &[], "l"),
            _ => return None,
        }
    };
    let mut args = args;
    while let Some((at, word)) = args.next() {
        let inline = if let Some(long) = word.strip_prefix("--") {
            longs
                .iter()
                .any(|l| l.trim_start_matches('-') == long.split('=').next().unwrap_or_default())
        } else if let Some(cluster) = word.strip_prefix('-') {
            cluster.chars().any(|c| letters.contains(c))
        } else {
            longs.contains(&word)
        };
        if inline {
            return Some(CarriedCode {
                word: at,
                why: "runs the code in its arguments",
                payload: None,
            });
        }
        if !word.starts_with('-') {
            // A script or module: the program runs a file, as an allow rule for it says.
            return None;
        }
        // A letter taking a value, last in its word: the next word is the value.
        let last = word
            .strip_prefix('-')
            .and_then(|cluster| cluster.chars().last());
        if !word.starts_with("--") && last.is_some_and(|c| valued.contains(c)) {
            args.next();
        }
    }
    None
}
