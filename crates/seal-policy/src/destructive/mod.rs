//! The destructive-command guard: a deny-only check of shell commands against a table of
//! destructive uses of programs (recursive or forced deletion outside the workspace, git
//! history and worktree destruction, disk and file-system destruction, mass permission
//! changes, fork bombs), path-aware, so that the same programs run freely inside the workspace
//! and the temporary directories (spec/destructive-guard.md).
//!
//! It reads every segment of a command in every normalized form (wrappers such as `sudo`,
//! `env`, `timeout` and `xargs` stripped, basenames, `bash -c` payloads), modelled programs
//! through their models (git's global options, abbreviations and clusters), program names
//! ignoring ASCII case, and the commands `find -exec`, `parallel` and `watch` run. A command
//! seal cannot segment is checked for fork bombs and writes to devices only; the rules never
//! allow such a command anyway.
//!
//! ```
//! use seal_policy::destructive::DestructiveGuard;
//!
//! let guard = DestructiveGuard::new()
//!     .with_workspace_root("/home/dev/project")
//!     .with_home_dir("/home/dev");
//! assert!(guard.check_command("rm -rf build /tmp/cache").is_none());
//! let found = guard.check_command("sudo rm -r -f ~/").unwrap();
//! assert_eq!(found.pattern.id, "rm-outside-workspace");
//! assert_eq!(found.path.as_deref(), Some("/home/dev"));
//! let found = guard.check_command("git -C . reset --ha").unwrap();
//! assert_eq!(found.pattern.id, "git-reset-hard");
//! ```

#[cfg(feature = "fuzz")]
pub mod fuzz_check;
mod places;
mod table;

use std::collections::BTreeMap;
use std::fmt;

use seal_parse::shell::{
    model, model_names, segment, ModelOption, Segments, ShellLimits, Unanalysable,
};

use crate::chain::{Because, Check, Decision, Guard, Listener, Next, Ruling, StageError, ToolCall};

pub use places::{SYSTEM_DIRS, TEMP_DIRS};
pub use table::{Operands, Pattern, Reach, PATTERNS, SAFE_DEVICES, SOURCE_DEVICES};

use places::{normalize, Context, Place};

/// How much of a function body the fork-bomb pattern reads.
pub const MAX_FORK_BODY_BYTES: usize = 256;

/// How much of a redirection target the device-redirect pattern reads (a path longer than
/// this names no device).
pub const MAX_REDIRECT_TARGET_BYTES: usize = 4096;

/// How deep the guard follows commands that run commands (`find -exec`, `watch`, `parallel`,
/// inside each other).
pub const MAX_PAYLOAD_DEPTH: usize = 4;

/// The pattern for fork bombs, found in the command's text.
pub const FORK_BOMB: Pattern = Pattern {
    id: "fork-bomb",
    programs: &[],
    subcommand: &[],
    any_option: &[],
    all_options: &[],
    no_option: &[],
    operands: Operands::Any,
    what: "a function that starts copies of itself without end",
};

/// The pattern for output redirected onto a device, found in the command's text.
pub const DEVICE_REDIRECT: Pattern = Pattern {
    id: "device-redirect",
    programs: &[],
    subcommand: &[],
    any_option: &[],
    all_options: &[],
    no_option: &[],
    operands: Operands::Any,
    what: "output redirected onto a device",
};

/// The deny-only destructive-command guard (see the module documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DestructiveGuard {
    context: Context,
    limits: ShellLimits,
}

/// What the guard found: the pattern, the form it fired on and the path that made it fire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The pattern that fired.
    pub pattern: &'static Pattern,
    /// The words it fired on, joined by spaces (the form as the guard read it).
    pub form: String,
    /// The path operand that made a path test fire, resolved (absolute, normalized) where it
    /// could be, and what that path is (`the home directory`, `a system path`...).
    pub path: Option<String>,
    /// What the path is, when a path test fired.
    pub place: Option<&'static str>,
}

/// What the guard reads in one command ([`DestructiveGuard::explain_command`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardExplanation {
    /// What the command's text shows (a fork bomb, output redirected onto a device), read
    /// before any segment.
    pub text: Option<Finding>,
    /// Whether the command could be segmented (otherwise only its text is read).
    pub analysable: bool,
    /// Every form of every segment, in reading order.
    pub forms: Vec<GuardForm>,
}

impl GuardExplanation {
    /// The first finding, as [`DestructiveGuard::check_command`] gives it.
    #[must_use]
    pub fn first(&self) -> Option<&Finding> {
        self.text
            .as_ref()
            .or_else(|| self.forms.iter().find_map(|form| form.finding.as_ref()))
    }
}

/// One form of one segment as the guard read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardForm {
    /// Index of the segment.
    pub segment: usize,
    /// Position of the form among the segment's forms (`SegmentRef::forms().all()`, the order
    /// the rules read them in too).
    pub position: usize,
    /// The form's words, program first.
    pub words: Vec<String>,
    /// The pattern that fires on the form (or on a command its program runs), if any.
    pub finding: Option<Finding>,
}

/// The finding as one line, its form and path as they are (raw: the deny reason it becomes is
/// escaped once where it is shown).
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "destructive command: {} (guard pattern `{}`) in `{}`",
            self.pattern.what, self.pattern.id, self.form
        )?;
        if let (Some(path), Some(place)) = (&self.path, self.place) {
            write!(f, ": `{path}` is {place}")?;
        }
        Ok(())
    }
}

impl Default for DestructiveGuard {
    fn default() -> Self {
        DestructiveGuard::new()
    }
}

impl DestructiveGuard {
    /// A guard without a workspace or home directory: relative paths that stay in the working
    /// directory are inside it, every absolute path outside a temporary directory is outside,
    /// and `~` is protected.
    #[must_use]
    pub fn new() -> DestructiveGuard {
        DestructiveGuard {
            context: Context {
                workspace: None,
                home: None,
                temp: TEMP_DIRS.iter().map(|dir| (*dir).to_owned()).collect(),
            },
            limits: ShellLimits::default(),
        }
    }

    /// The same guard, reading relative paths against `root` (an absolute path: the agent's
    /// working directory); anything else is ignored, so relative paths stay unplaced.
    #[must_use]
    pub fn with_workspace_root(mut self, root: &str) -> DestructiveGuard {
        if root.starts_with('/') {
            self.context.workspace = Some(normalize(root));
        }
        self
    }

    /// The same guard, reading `~` as `home` (an absolute path; anything else is ignored).
    #[must_use]
    pub fn with_home_dir(mut self, home: &str) -> DestructiveGuard {
        if home.starts_with('/') {
            self.context.home = Some(normalize(home));
        }
        self
    }

    /// The same guard, also treating `dir` (an absolute path) as a temporary directory whose
    /// contents may be deleted.
    #[must_use]
    pub fn with_temp_dir(mut self, dir: &str) -> DestructiveGuard {
        if dir.starts_with('/') {
            self.context.temp.push(normalize(dir));
        }
        self
    }

    /// The same guard, segmenting with `limits`.
    #[must_use]
    pub fn with_limits(mut self, limits: ShellLimits) -> DestructiveGuard {
        self.limits = limits;
        self
    }

    /// The workspace root, when one was given.
    #[must_use]
    pub fn workspace_root(&self) -> Option<&str> {
        self.context.workspace.as_deref()
    }

    /// The first pattern `command` matches, if any.
    #[must_use]
    pub fn check_command(&self, command: &str) -> Option<Finding> {
        Reader::new(self).command(command)
    }

    /// What the guard reads in `command`, form by form: the finding on the command's text
    /// (fork bombs, redirections onto devices), then every form of every segment, in the
    /// order [`DestructiveGuard::check_command`] reads them, each with the pattern it fires, if
    /// any (payloads of `find -exec`, `parallel` and `watch` are read within their form).
    /// [`GuardExplanation::first`] is what `check_command` gives.
    ///
    /// ```
    /// use seal_policy::destructive::DestructiveGuard;
    ///
    /// let guard = DestructiveGuard::new().with_workspace_root("/home/dev/project");
    /// let explained = guard.explain_command("ls && sudo git -C . reset --ha");
    /// assert!(explained.forms[0].finding.is_none());
    /// let fired: Vec<_> = explained.forms.iter().filter_map(|f| f.finding.as_ref()).collect();
    /// assert!(fired.iter().all(|f| f.pattern.id == "git-reset-hard"));
    /// assert_eq!(explained.first(), guard.check_command("ls && sudo git -C . reset --ha").as_ref());
    /// ```
    #[must_use]
    pub fn explain_command(&self, command: &str) -> GuardExplanation {
        let mut reader = Reader::new(self);
        let mut out = GuardExplanation {
            text: text_finding(command),
            analysable: false,
            forms: Vec::new(),
        };
        let Ok(segments) = reader.segment(command) else {
            return out;
        };
        out.analysable = true;
        for (at, segment) in segments.iter().enumerate() {
            for (position, form) in segment.forms().all().enumerate() {
                let words: Vec<&str> = form.words().collect();
                out.forms.push(GuardForm {
                    segment: at,
                    position,
                    finding: reader.words(&words, 0),
                    words: form.to_words(),
                });
            }
        }
        out
    }
}

/// What the command's text shows, before any segment: a fork bomb, or output redirected onto
/// a device.
fn text_finding(command: &str) -> Option<Finding> {
    fork_bomb(command).or_else(|| device_redirect(command))
}

/// One reading of one command by a guard (one call of [`DestructiveGuard::check_command`] or
/// [`DestructiveGuard::explain_command`], so one decision of one stage).
///
/// It segments the command once, in [`Reader::segment`], and each command line a launcher
/// runs (`watch 'WORDS'`) once: a payload met again, in another form of its segment, below
/// another kind of `find` starting point or in another `-exec`, gives the finding it gave
/// the first time (a command line's finding depends on its text alone).
struct Reader<'g> {
    guard: &'g DestructiveGuard,
    /// The findings of the payload command lines read so far, by their text.
    lines: BTreeMap<String, Option<Finding>>,
}

impl<'g> Reader<'g> {
    fn new(guard: &'g DestructiveGuard) -> Reader<'g> {
        Reader {
            guard,
            lines: BTreeMap::new(),
        }
    }

    /// The first pattern the command line `command` matches: its text, then every form of
    /// every segment.
    fn command(&mut self, command: &str) -> Option<Finding> {
        if let Some(found) = text_finding(command) {
            return Some(found);
        }
        let segments = self.segment(command).ok()?;
        for segment in segments.iter() {
            for form in segment.forms().all() {
                let words: Vec<&str> = form.words().collect();
                if let Some(found) = self.words(&words, 0) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// `command` segmented with the guard's limits: the one place the guard segments.
    fn segment(&self, command: &str) -> Result<Segments, Unanalysable> {
        #[cfg(test)]
        tests::SEGMENTED.with(|seen| seen.borrow_mut().push(command.to_owned()));
        segment(command, &self.guard.limits)
    }

    /// The first pattern the command line a launcher runs matches, read once per text.
    fn payload_line(&mut self, text: &str) -> Option<Finding> {
        if let Some(found) = self.lines.get(text) {
            return found.clone();
        }
        let found = self.command(text);
        self.lines.insert(text.to_owned(), found.clone());
        found
    }

    /// The first pattern the words of one command (program first) match.
    fn words(&mut self, words: &[&str], depth: usize) -> Option<Finding> {
        let (&program, rest) = words.split_first()?;
        if depth < MAX_PAYLOAD_DEPTH {
            if let Some(found) = self.payloads(program, rest, depth + 1) {
                return Some(found);
            }
        }
        let reading = Reading::of(program, rest);
        PATTERNS
            .iter()
            .filter(|pattern| names(pattern, program))
            .find_map(|pattern| self.guard.fires(pattern, &reading, words))
    }

    /// The commands that `find -exec`, `parallel` and `watch` run.
    fn payloads(&mut self, program: &str, rest: &[&str], depth: usize) -> Option<Finding> {
        let folded = |name: &str| program.eq_ignore_ascii_case(name);
        if folded("find") {
            let find = FindWords::of(rest);
            // What a payload does depends on where its starting point is, not which it is: one
            // starting point of each kind of place is read (so the work stays linear).
            let mut kinds: Vec<(bool, bool)> = Vec::new();
            let mut starts: Vec<&str> = Vec::new();
            for start in &find.starts {
                let kind = match self
                    .guard
                    .context
                    .place(&format!("{}/{{}}", start.trim_end_matches('/')))
                {
                    Place::Inside => (false, false),
                    Place::Protected { system, .. } => (true, system),
                };
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                    starts.push(start);
                }
            }
            for payload in &find.payloads {
                for start in &starts {
                    // `{}` stands for what find found: something below the starting point.
                    let below = format!("{}/{{}}", start.trim_end_matches('/'));
                    let words: Vec<&str> = payload
                        .iter()
                        .map(|word| if *word == "{}" { below.as_str() } else { word })
                        .collect();
                    if let Some(found) = self.words(&words, depth) {
                        return Some(found);
                    }
                }
            }
        } else if folded("parallel") {
            let (command, arguments) = match rest.iter().position(|word| *word == ":::") {
                Some(at) => (rest.get(..at)?, rest.get(at + 1..)?),
                None => (rest, &[][..]),
            };
            let command: Vec<&str> = command
                .iter()
                .copied()
                .skip_while(|word| word.starts_with('-'))
                .chain(arguments.iter().copied().filter(|word| *word != ":::"))
                .collect();
            return self.words(&command, depth);
        } else if folded("watch") {
            let mut command = rest;
            while let Some((first, tail)) = command.split_first() {
                if !first.starts_with('-') {
                    break;
                }
                command = tail;
                let takes_value = matches!(*first, "-n" | "--interval" | "-q" | "--equexit");
                if takes_value {
                    command = command.get(1..).unwrap_or_default();
                }
            }
            if let [text] = command {
                // One word: watch runs it with `sh -c`.
                return self.payload_line(text);
            }
            return self.words(command, depth);
        }
        None
    }
}

impl DestructiveGuard {
    fn fires(
        &self,
        pattern: &'static Pattern,
        reading: &Reading<'_>,
        words: &[&str],
    ) -> Option<Finding> {
        let found = |path: Option<String>, place: Option<&'static str>| Finding {
            pattern,
            form: words.join(" "),
            path,
            place,
        };
        if !pattern.subcommand.is_empty() && !reading.subcommand.iter().eq(pattern.subcommand) {
            return None;
        }
        // A reading cut at the model's limits may hold any option beyond them: a wanted option
        // counts as given, an excluding one only when seen.
        let given = |spec: &str| reading.truncated || reading.has(spec, words);
        if !pattern.any_option.is_empty() && !pattern.any_option.iter().any(|spec| given(spec)) {
            return None;
        }
        if !pattern.all_options.iter().all(|spec| given(spec)) {
            return None;
        }
        if pattern
            .no_option
            .iter()
            .any(|spec| reading.has(spec, words))
        {
            return None;
        }
        let operands = &reading.operands;
        match pattern.operands {
            Operands::Any => Some(found(None, None)),
            Operands::AtLeast(count) => {
                (reading.truncated || operands.len() >= count).then(|| found(None, None))
            }
            Operands::OneOf(wanted) => (reading.truncated
                || operands.iter().any(|word| wanted.contains(word)))
            .then(|| found(None, None)),
            Operands::AfterDashDash => {
                let after = reading.subcommand_at.unwrap_or(0);
                let dash = words
                    .iter()
                    .skip(after + 1)
                    .position(|word| *word == "--")?;
                (words.len() > after + 1 + dash + 1).then(|| found(None, None))
            }
            Operands::Path(reach) => reading.paths.iter().find_map(|word| {
                self.protected(word, reach)
                    .map(|(path, what)| found(Some(path), Some(what)))
            }),
            Operands::FindStart(reach) => {
                let find = FindWords::of(words.get(1..).unwrap_or_default());
                // What find deletes is below its starting points.
                find.starts.iter().find_map(|start| {
                    let below = format!("{}/{{}}", start.trim_end_matches('/'));
                    self.protected(&below, reach)
                        .map(|(path, what)| found(Some(path), Some(what)))
                })
            }
            Operands::DevicePath => reading.paths.iter().find_map(|word| {
                let device = written_device(word)
                    .filter(|device| !SOURCE_DEVICES.contains(&device.as_str()))?;
                Some(found(Some(device), Some("a device")))
            }),
            Operands::Device(key) => operands.iter().find_map(|word| {
                let value = word.strip_prefix(key)?.strip_prefix('=')?;
                let device = normalize(value);
                (value.starts_with("/dev/") && !SAFE_DEVICES.contains(&device.as_str()))
                    .then(|| found(Some(device), Some("a device")))
            }),
        }
    }

    /// Whether the path operand `word` is out of bounds for `reach`: the path and what it is.
    fn protected(&self, word: &str, reach: Reach) -> Option<(String, &'static str)> {
        match self.context.place(word) {
            Place::Inside => None,
            Place::Protected { path, what, system } => {
                (reach == Reach::Outside || system).then_some((path, what))
            }
        }
    }
}

/// Whether `pattern` names `program` (ASCII case ignored; a name ending in `.` is a prefix).
fn names(pattern: &Pattern, program: &str) -> bool {
    pattern
        .programs
        .iter()
        .any(|name| match name.strip_suffix('.') {
            Some(_) => program
                .get(..name.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(name)),
            None => program.eq_ignore_ascii_case(name),
        })
}

/// The words of one command as the patterns read them.
#[derive(Debug)]
struct Reading<'a> {
    subcommand: Vec<&'a str>,
    /// Where the (first) subcommand word stands in the command's words.
    subcommand_at: Option<usize>,
    /// The options given, as the program models give them: a modelled program's from its
    /// model; for a program read plainly, `--name[=value]` as the long option `name`, a find
    /// primary whole (`-delete`, dash kept) as a long option, `-abc` as the short options.
    options: Vec<ModelOption<'a>>,
    /// Whether the options are a modelled program's (long names spelt out in full).
    modelled: bool,
    operands: Vec<&'a str>,
    /// The words that are not options (every operand, however many).
    paths: Vec<&'a str>,
    /// Whether the model dropped options or operands beyond its limits.
    truncated: bool,
}

impl<'a> Reading<'a> {
    fn of(program: &'a str, rest: &[&'a str]) -> Reading<'a> {
        let paths = plain_operands(rest);
        // A modelled program, by the model's own name when the case differs.
        let name = model_names(program).first().copied().or_else(|| {
            ["git", "rm"]
                .into_iter()
                .find(|name| program.eq_ignore_ascii_case(name))
        });
        if let Some(modelled) =
            name.and_then(|name| model(std::iter::once(name).chain(rest.iter().copied())))
        {
            let subcommand: Vec<&str> = modelled.subcommand().collect();
            let subcommand_at = subcommand
                .first()
                .and_then(|first| rest.iter().position(|word| word == first))
                .map(|at| at + 1);
            return Reading {
                subcommand,
                subcommand_at,
                options: modelled.options().collect(),
                modelled: true,
                operands: modelled.operands().collect(),
                paths,
                truncated: modelled.truncated(),
            };
        }
        let mut options = Vec::new();
        let mut operands = Vec::new();
        let mut only_operands = false;
        for word in rest {
            if only_operands || !word.starts_with('-') || *word == "-" {
                operands.push(*word);
            } else if *word == "--" {
                only_operands = true;
            } else if let Some(long) = word.strip_prefix("--") {
                options.push(ModelOption::Long(
                    long.split_once('=').map_or(long, |(name, _)| name),
                ));
            } else if program.eq_ignore_ascii_case("find") {
                // find's primaries are whole words.
                options.push(ModelOption::Long(word));
            } else {
                options.extend(word.chars().skip(1).map(ModelOption::Short));
            }
        }
        Reading {
            subcommand: Vec::new(),
            subcommand_at: None,
            options,
            modelled: false,
            operands,
            paths,
            truncated: false,
        }
    }

    /// Whether the option `spec` (`--name`, `-x`, `--name=value`, or a find primary) is given.
    fn has(&self, spec: &str, words: &[&str]) -> bool {
        if let Some((name, value)) = spec.strip_prefix("--").and_then(|s| s.split_once('=')) {
            // An option with a value: read from the words (`--prune=now`, `--pru=now`).
            return words.iter().any(|word| {
                word.strip_prefix("--")
                    .and_then(|w| w.split_once('='))
                    .is_some_and(|(n, v)| !n.is_empty() && name.starts_with(n) && v == value)
            });
        }
        if let Some(primary) = spec
            .strip_prefix('-')
            .filter(|p| p.len() > 1 && !p.starts_with('-'))
        {
            // A find primary such as `-delete`.
            return self
                .options
                .iter()
                .any(|given| matches!(given, ModelOption::Long(word) if word.strip_prefix('-') == Some(primary)));
        }
        if let Some(name) = spec.strip_prefix("--") {
            return self.options.iter().any(|given| match given {
                ModelOption::Long(given) if self.modelled => *given == name,
                // Unmodelled programs accept unique prefixes of long options (GNU getopt).
                ModelOption::Long(given) => !given.is_empty() && name.starts_with(given),
                ModelOption::Short(_) => false,
            });
        }
        let Some(letter) = spec.strip_prefix('-').and_then(|s| s.chars().next()) else {
            return false;
        };
        self.options.iter().any(|given| match given {
            ModelOption::Short(given) => *given == letter,
            // A short option a model reads into a one-letter name (`-b` of `git checkout`).
            ModelOption::Long(given) => {
                given.len() == letter.len_utf8() && given.starts_with(letter)
            }
        })
    }
}

/// The words that are not options: every word after `--`, and every word not starting with
/// `-` (or `-` alone).
fn plain_operands<'a>(rest: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut only = false;
    for word in rest {
        if only || !word.starts_with('-') || *word == "-" {
            out.push(*word);
        } else if *word == "--" {
            only = true;
        }
    }
    out
}

/// A `find` command's starting points and the commands its `-exec` primaries run.
struct FindWords<'a> {
    starts: Vec<&'a str>,
    payloads: Vec<Vec<&'a str>>,
}

impl<'a> FindWords<'a> {
    fn of(rest: &[&'a str]) -> FindWords<'a> {
        let mut words = rest.iter().copied().peekable();
        // Leading options: -H, -L, -P, -D debugopts, -Olevel.
        while let Some(word) = words.peek().copied() {
            match word {
                "-H" | "-L" | "-P" => {
                    words.next();
                }
                "-D" => {
                    words.next();
                    words.next();
                }
                w if w.starts_with("-O") => {
                    words.next();
                }
                _ => break,
            }
        }
        let mut starts = Vec::new();
        while let Some(word) = words.peek().copied() {
            if word.starts_with('-') || word == "(" || word == "!" {
                break;
            }
            starts.push(word);
            words.next();
        }
        if starts.is_empty() {
            starts.push(".");
        }
        let mut payloads = Vec::new();
        while let Some(word) = words.next() {
            if matches!(word, "-exec" | "-execdir" | "-ok" | "-okdir") {
                let payload: Vec<&str> = words
                    .by_ref()
                    .take_while(|word| *word != ";" && *word != "+")
                    .collect();
                payloads.push(payload);
            }
        }
        FindWords { starts, payloads }
    }
}

/// A fork bomb in the text, quoted or not (a `bash -c '...'` payload is quoted too): a function (`name()` then `{` or `(`) whose body runs its own name
/// twice with a pipe or `&` between, or once in the background, as `:(){ :|:& };:` does.
fn fork_bomb(text: &str) -> Option<Finding> {
    let bytes = text.as_bytes();
    let is_name = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'.' | b'-');
    let mut search = 0;
    while let Some(at) = text
        .get(search..)
        .and_then(|t| t.find("()"))
        .map(|i| i + search)
    {
        search = at + 2;
        let start = bytes
            .get(..at)
            .unwrap_or_default()
            .iter()
            .rposition(|b| !is_name(*b))
            .map_or(0, |i| i + 1);
        let Some(name) = text.get(start..at).filter(|n| !n.is_empty()) else {
            continue;
        };
        let body = text.get(at + 2..).unwrap_or_default().trim_start();
        let Some(open) = body.chars().next().filter(|c| *c == '{' || *c == '(') else {
            continue;
        };
        let close = if open == '{' { '}' } else { ')' };
        let inner = body.get(1..).unwrap_or_default();
        let inner = inner.split(close).next().unwrap_or_default();
        // A fork bomb's body is short; reading at most this much keeps the search linear.
        let inner = prefix(inner, MAX_FORK_BODY_BYTES);
        let calls = token_count(inner, name, is_name);
        if (calls >= 2 && inner.contains(['|', '&'])) || (calls >= 1 && inner.contains('&')) {
            return Some(Finding {
                pattern: &FORK_BOMB,
                form: text.to_owned(),
                path: None,
                place: None,
            });
        }
    }
    None
}

/// `path` normalized, when it names a device whose writing destroys something: below `/dev/`,
/// other than [`SAFE_DEVICES`], a process's own descriptors (`/dev/fd/...`) and terminals
/// (`/dev/pts/...`).
fn written_device(path: &str) -> Option<String> {
    let device = normalize(path);
    let harmless = SAFE_DEVICES.contains(&device.as_str())
        || device.starts_with("/dev/fd/")
        || device.starts_with("/dev/pts/");
    (path.starts_with("/dev/") && !harmless).then_some(device)
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
fn prefix(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

/// How often `name` stands alone in `text` (not as part of a longer name).
fn token_count(text: &str, name: &str, is_name: impl Fn(u8) -> bool) -> usize {
    let bytes = text.as_bytes();
    let mut count = 0;
    let mut from = 0;
    while let Some(at) = text
        .get(from..)
        .and_then(|t| t.find(name))
        .map(|i| i + from)
    {
        let end = at + name.len();
        let before = at.checked_sub(1).and_then(|i| bytes.get(i)).copied();
        let after = bytes.get(end).copied();
        if !before.is_some_and(&is_name) && !after.is_some_and(&is_name) {
            count += 1;
        }
        from = end.max(at + 1);
    }
    count
}

/// Output redirected onto a block device outside quotes (`> /dev/sda`, `>/dev/nvme0n1`).
fn device_redirect(text: &str) -> Option<Finding> {
    let mut quote = None;
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (None, '\\') | (Some('"'), '\\') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            // The first `>` of a run (`>>`, `>|`) reads the target once.
            (None, '>') if text.get(..at).is_some_and(|before| before.ends_with('>')) => {}
            (None, '>') => {
                let target = text.get(at + 1..).unwrap_or_default();
                let target = prefix(target, MAX_REDIRECT_TARGET_BYTES);
                let target = target.trim_start_matches(['>', '|', '&']).trim_start();
                let end = target
                    .find(|c: char| c.is_ascii_whitespace() || ";&|)".contains(c))
                    .unwrap_or(target.len());
                let path = target.get(..end).unwrap_or_default();
                if let Some(device) = written_device(path) {
                    return Some(Finding {
                        pattern: &DEVICE_REDIRECT,
                        form: text.to_owned(),
                        path: Some(device),
                        place: Some("a device"),
                    });
                }
            }
            _ => {}
        }
    }
    None
}

impl DestructiveGuard {
    /// The refusal for a finding, naming the pattern, the form and the path.
    fn refusal(found: &Finding) -> (String, Because) {
        let because = Because::rule_and_form(
            format!("destructive-guard:{}", found.pattern.id),
            found.form.clone(),
        );
        (found.to_string(), because)
    }
}

/// As a guard: denies a call whose command matches a pattern (only after an allow, as every
/// guard; see [`Listener`] for the use before the rules).
impl Guard for DestructiveGuard {
    fn check(&self, call: &ToolCall) -> Result<Check, StageError> {
        let Some(found) = call
            .command()
            .and_then(|command| self.check_command(command))
        else {
            return Ok(Check::Pass);
        };
        let (reason, because) = DestructiveGuard::refusal(&found);
        Ok(Check::Deny {
            reason: reason.into(),
            because: Some(because),
        })
    }
}

/// As a listener placed first: denies a call whose command matches a pattern before any rule
/// can ask about it (so no approval can let it through), and hands every other call on.
impl Listener for DestructiveGuard {
    fn decide(&self, call: &ToolCall, next: Next<'_>) -> Result<Ruling, StageError> {
        match call
            .command()
            .and_then(|command| self.check_command(command))
        {
            Some(found) => {
                let (reason, because) = DestructiveGuard::refusal(&found);
                Ok(Ruling::new(Decision::deny(reason)).because(because))
            }
            None => Ok(next.run()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use seal_parse::json::{parse, JsonLimits};
    use seal_record::SealedCall;

    use super::*;
    use crate::chain::{Chain, Evaluation, Scope, Verdict};

    thread_local! {
        /// Every command text [`Reader::segment`] segmented on this thread, in order.
        pub(super) static SEGMENTED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    }

    /// What `run` gives, and the texts segmented while it runs.
    fn segmented<T>(run: impl FnOnce() -> T) -> (T, Vec<String>) {
        SEGMENTED.with(|seen| seen.borrow_mut().clear());
        let out = run();
        (out, SEGMENTED.with(RefCell::take))
    }

    fn guard() -> DestructiveGuard {
        DestructiveGuard::new()
            .with_workspace_root("/home/dev/project")
            .with_home_dir("/home/dev")
    }

    /// Commands whose payloads stand in several forms, below several kinds of `find` starting
    /// points, in several `-exec` primaries, inside each other and in `bash -c`.
    const LAUNCHERS: &[&str] = &[
        "rm -rf build",
        "ls && sudo git reset --hard",
        "env A=1 nice timeout 5 sudo watch 'ls -l'",
        r"find / ~ . build -exec watch 'ls -l' \; -exec watch 'ls -l' +",
        r"find / ~ . build -exec find / ~ . build -exec watch 'ls -l' \; \;",
        r#"watch 'watch "ls"' && watch 'watch "ls"'"#,
        "bash -c 'watch ls' ; xargs watch 'ls'",
        r"find / ~ . -exec watch 'rm -rf ~' \;",
    ];

    #[test]
    fn one_check_segments_each_command_line_once() {
        let guard = guard();
        for command in LAUNCHERS {
            let (found, checked) = segmented(|| guard.check_command(command));
            let (explained, seen) = segmented(|| guard.explain_command(command));
            assert_eq!(explained.first(), found.as_ref());
            for seen in [checked, seen] {
                assert_eq!(seen.first().map(String::as_str), Some(*command));
                let mut once = seen.clone();
                once.sort();
                once.dedup();
                assert_eq!(once.len(), seen.len(), "{command:?} segmented {seen:?}");
            }
        }
        // The command and its one payload line, where reading the payload at each kind of
        // starting point of each `-exec` would segment it four times more.
        let (_, seen) = segmented(|| guard.check_command(LAUNCHERS[3]));
        assert_eq!(seen, [LAUNCHERS[3], "ls -l"]);
    }

    #[test]
    fn each_stage_of_a_decision_segments_the_command_once() {
        let mut chain = Chain::new(Decision::Allow);
        chain
            .prepend("destructive-commands", Scope::everywhere(), guard())
            .unwrap();
        chain
            .add_global_guard("destructive-guard", guard())
            .unwrap();
        let call = |command: &str| {
            let arguments = serde_json::json!({ "command": command }).to_string();
            let arguments = parse(arguments.as_bytes(), &JsonLimits::default()).unwrap();
            ToolCall::new(
                "s1",
                None,
                SealedCall::new("c1", "Bash", &arguments).unwrap(),
            )
            .unwrap()
        };

        // Allowed: the listener reads the command and its payload line once, then the guard.
        let command = r"ls && find / . -exec watch 'ls -l' \; && watch 'ls -l'";
        let allowed = call(command);
        let (verdict, seen) = segmented(|| chain.evaluate(&allowed));
        assert!(matches!(verdict, Evaluation::Decided(Verdict::Allow(_))));
        assert_eq!(seen, [command, "ls -l", command, "ls -l"]);

        // Denied by the listener: the guard stage never runs.
        let command = "git reset --hard && rm -rf ~";
        let denied = call(command);
        let (verdict, seen) = segmented(|| chain.evaluate(&denied));
        assert!(matches!(verdict, Evaluation::Decided(Verdict::Deny(_))));
        assert_eq!(seen, [command]);
    }
}
