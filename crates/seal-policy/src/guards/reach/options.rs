//! What a program's options say about the tree below its operands: a recursive option, and
//! what a `find` expression does to what it finds.

/// What a `find` command does to what it finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FindReading<'a> {
    /// It deletes (`-delete`) or runs commands on (`-exec`, `-execdir`, `-ok`, `-okdir`) what
    /// it finds.
    pub(super) changes: bool,
    /// The globs every name it finds matches (its `-name` and `-iname` tests), when its
    /// expression is a conjunction with at least one of them; `None` otherwise.
    pub(super) names: Option<Vec<&'a str>>,
}

impl<'a> FindReading<'a> {
    pub(super) fn of(args: impl Iterator<Item = &'a str>) -> FindReading<'a> {
        let mut changes = false;
        let mut names = Vec::new();
        let mut conjunction = true;
        let mut words =
            args.skip_while(|word| !(word.starts_with('-') || matches!(*word, "(" | "!")));
        while let Some(word) = words.next() {
            match word {
                "-delete" | "-exec" | "-execdir" | "-ok" | "-okdir" => changes = true,
                "-o" | "-or" | "," | "!" | "-not" | "(" | ")" => conjunction = false,
                "-name" | "-iname" => match words.next() {
                    Some(glob) => names.push(glob),
                    None => conjunction = false,
                },
                _ => {}
            }
        }
        let names = (conjunction && !names.is_empty()).then_some(names);
        FindReading { changes, names }
    }
}

/// Whether the words hold a recursive option: a short cluster with one of `letters`, or a long
/// `--recursive`, `--dereference-recursive`, `--archive` (with `archive`), each also as a
/// prefix of at least 3 letters (as GNU accepts), or `--directories=recurse` / `-d recurse`.
pub(super) fn has_recursive_option<'a>(
    words: impl Iterator<Item = &'a str>,
    letters: &[char],
    archive: bool,
) -> bool {
    let mut previous = "";
    for word in words {
        if word == "--" {
            return false;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, value) = long.split_once('=').unwrap_or((long, ""));
            let prefix_of = |full: &str| name.len() >= 3 && full.starts_with(name);
            if prefix_of("recursive")
                || (archive && prefix_of("archive"))
                || prefix_of("dereference-recursive")
                || (prefix_of("directories") && value == "recurse")
            {
                return true;
            }
        } else if let Some(short) = word.strip_prefix('-') {
            if short.contains(letters) {
                return true;
            }
        } else if previous == "-d" && word == "recurse" {
            return true;
        }
        previous = word;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recursive_options() {
        let has = |words: &str| has_recursive_option(words.split(' '), &['r', 'R', 'a'], true);
        assert!(has("-rn x ."));
        assert!(has("-R x"));
        assert!(has("-avz a b"));
        assert!(has("--recursive x"));
        assert!(has("--recur x"));
        assert!(has("-d recurse x"));
        assert!(has("--directories=recurse x"));
        assert!(!has("-n x"));
        assert!(!has("-- -r"));
        assert!(!has("--re x"));
        assert!(!has_recursive_option("-a x".split(' '), &['r', 'R'], false));
        assert!(!has_recursive_option(
            "--archive x".split(' '),
            &['r', 'R'],
            false
        ));
    }
}
