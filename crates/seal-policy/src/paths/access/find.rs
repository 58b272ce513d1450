//! `find`'s words: leading options, starting points, then predicates, some of which name a
//! file.

use super::Access::{self, Both, Read, Write};
use super::{path_value, MAX_PATH_WORDS};

/// `find`: starting points (read; written when `-delete` is given), then predicates, some with
/// a file value.
pub(super) fn find<'a, I>(words: I, found: &mut dyn FnMut(&'a str, Access))
where
    I: Iterator<Item = &'a str> + Clone,
{
    let deletes = words.clone().any(|word| word == "-delete");
    let start_access = if deletes { Both } else { Read };
    let mut words = words.take(MAX_PATH_WORDS).peekable();
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
    let mut starts = 0usize;
    while let Some(word) = words.peek().copied() {
        if word.starts_with('-') || word == "(" || word == "!" || word == ")" {
            break;
        }
        found(word, start_access);
        starts += 1;
        words.next();
    }
    if starts == 0 {
        found(".", start_access);
    }
    while let Some(word) = words.next() {
        match word {
            "-newer" | "-anewer" | "-cnewer" | "-samefile" | "-files0-from" => {
                if let Some(file) = words.next() {
                    path_value(file, Read, found);
                }
            }
            w if w.starts_with("-newer") && w.len() == 8 => {
                if let Some(file) = words.next() {
                    path_value(file, Read, found);
                }
            }
            "-fprint" | "-fprint0" | "-fls" => {
                if let Some(file) = words.next() {
                    path_value(file, Write, found);
                }
            }
            "-fprintf" => {
                if let Some(file) = words.next() {
                    path_value(file, Write, found);
                }
                words.next();
            }
            "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename" | "-regex"
            | "-iregex" | "-type" | "-xtype" | "-maxdepth" | "-mindepth" | "-size" | "-mtime"
            | "-mmin" | "-atime" | "-amin" | "-ctime" | "-cmin" | "-user" | "-group" | "-uid"
            | "-gid" | "-perm" | "-links" | "-inum" | "-printf" | "-used" | "-lname"
            | "-ilname" | "-context" | "-regextype" | "-fstype" => {
                words.next();
            }
            _ => {}
        }
    }
}
