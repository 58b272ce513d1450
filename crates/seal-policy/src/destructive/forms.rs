//! Reading one command form by form: its segments, every normalized form of each, the
//! commands a form's program runs (`find -exec`, `parallel`, `watch`), and the patterns that
//! fire on each form (spec/destructive-guard.md, section 2).

#[cfg(test)]
use std::cell::RefCell;
use std::collections::BTreeMap;

use seal_parse::shell::{segment, Segments, ShellLimits, Unanalysable};

use super::places::{normalize, Context, Place};
use super::reading::{names, FindWords, Reading};
use super::text::{text_finding, written_device};
use super::{
    GuardExplanation, GuardFinding, GuardForm, Operands, Pattern, Reach, PATTERNS, SAFE_DEVICES,
    SOURCE_DEVICES,
};

/// How deep the guard follows commands that run commands (`find -exec`, `watch`, `parallel`,
/// inside each other).
pub const MAX_PAYLOAD_DEPTH: usize = 4;

/// One reading of one command by a guard (one call of
/// [`DestructiveGuard::check_command`](super::DestructiveGuard::check_command) or
/// [`DestructiveGuard::explain_command`](super::DestructiveGuard::explain_command), so one
/// decision of one stage).
///
/// It segments the command once, in [`Reader::segment`], and each command line a launcher
/// runs (`watch 'WORDS'`) once: a payload met again, in another form of its segment, below
/// another kind of `find` starting point or in another `-exec`, gives the finding it gave
/// the first time (a command line's finding depends on its text alone).
pub(super) struct Reader<'g> {
    context: &'g Context,
    limits: &'g ShellLimits,
    /// The findings of the payload command lines read so far, by their text.
    lines: BTreeMap<String, Option<GuardFinding>>,
}

impl<'g> Reader<'g> {
    /// A reader of paths against `context`, segmenting with `limits`.
    pub(super) fn new(context: &'g Context, limits: &'g ShellLimits) -> Reader<'g> {
        Reader {
            context,
            limits,
            lines: BTreeMap::new(),
        }
    }

    /// The first pattern the command line `command` matches: its text, then every form of
    /// every segment.
    pub(super) fn command(&mut self, command: &str) -> Option<GuardFinding> {
        if let Some(found) = text_finding(command) {
            return Some(found);
        }
        // A command seal cannot segment is read for its text alone (spec/destructive-guard.md,
        // section 2): the rules never allow it.
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

    /// What the guard reads in `command`: the finding on its text, then every form of every
    /// segment with the pattern that fires on it, if any.
    pub(super) fn explain(&mut self, command: &str) -> GuardExplanation {
        let mut out = GuardExplanation {
            text: text_finding(command),
            analysable: false,
            forms: Vec::new(),
        };
        let Ok(segments) = self.segment(command) else {
            return out;
        };
        out.analysable = true;
        for (at, segment) in segments.iter().enumerate() {
            for (position, form) in segment.forms().all().enumerate() {
                let words: Vec<&str> = form.words().collect();
                out.forms.push(GuardForm {
                    segment: at,
                    position,
                    finding: self.words(&words, 0),
                    words: form.to_words(),
                });
            }
        }
        out
    }

    /// `command` segmented with the guard's limits: the one place the guard segments.
    fn segment(&self, command: &str) -> Result<Segments, Unanalysable> {
        #[cfg(test)]
        SEGMENTED.with(|seen| seen.borrow_mut().push(command.to_owned()));
        segment(command, self.limits)
    }

    /// The first pattern the command line a launcher runs matches, read once per text.
    fn payload_line(&mut self, text: &str) -> Option<GuardFinding> {
        if let Some(found) = self.lines.get(text) {
            return found.clone();
        }
        let found = self.command(text);
        self.lines.insert(text.to_owned(), found.clone());
        found
    }

    /// The first pattern the words of one command (program first) match.
    fn words(&mut self, words: &[&str], depth: usize) -> Option<GuardFinding> {
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
            .find_map(|pattern| self.fires(pattern, &reading, words, rest))
    }

    /// The commands that `find -exec`, `parallel` and `watch` run.
    fn payloads(&mut self, program: &str, rest: &[&str], depth: usize) -> Option<GuardFinding> {
        let folded = |name: &str| program.eq_ignore_ascii_case(name);
        if folded("find") {
            let find = FindWords::of(rest);
            // What a payload does depends on where its starting point is, not which it is: one
            // starting point of each kind of place is read (so the work stays linear).
            let mut kinds: Vec<(bool, bool)> = Vec::new();
            let mut starts: Vec<&str> = Vec::new();
            for start in &find.starts {
                let kind = match self
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
            // The command is the words before the first `:::`, its options skipped; its
            // arguments are the other words after it.
            let command = rest
                .iter()
                .copied()
                .take_while(|word| *word != ":::")
                .skip_while(|word| word.starts_with('-'));
            let arguments = rest
                .iter()
                .copied()
                .skip_while(|word| *word != ":::")
                .filter(|word| *word != ":::");
            let command: Vec<&str> = command.chain(arguments).collect();
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
                    // An option missing its value leaves nothing to run.
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

    /// The finding when `pattern` fires on the form `words` (`rest` after its program), read
    /// as `reading`.
    fn fires(
        &self,
        pattern: &'static Pattern,
        reading: &Reading<'_>,
        words: &[&str],
        rest: &[&str],
    ) -> Option<GuardFinding> {
        let found = |path: Option<String>, place: Option<&'static str>| GuardFinding {
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
                // Without a subcommand, `--` counts anywhere after the program.
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
                let find = FindWords::of(rest);
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

#[cfg(test)]
thread_local! {
    /// Every command text [`Reader::segment`] segmented on this thread, in order.
    static SEGMENTED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// What `run` gives, and the texts the guard segmented while it ran (on this thread).
#[cfg(test)]
pub(super) fn segmented<T>(run: impl FnOnce() -> T) -> (T, Vec<String>) {
    SEGMENTED.with(|seen| seen.borrow_mut().clear());
    let out = run();
    (out, SEGMENTED.with(RefCell::take))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::destructive::DestructiveGuard;

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
        let guard = DestructiveGuard::new()
            .with_workspace_root("/home/dev/project")
            .with_home_dir("/home/dev");
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
}
