//! Lexical path normalization, the one normalizer of seal: `.` and empty components dropped,
//! `..` removing the component before it, with no file system access (a symbolic link is not
//! followed, so `a/..` is read as nothing even where `a` links elsewhere). What a `..` above the
//! start means is the caller's choice ([`AboveRoot`]); where the components are kept is too
//! ([`ComponentStack`]): a `Vec` by default, or a fixed array of the caller's, so that
//! normalizing allocates nothing.

use std::fmt;

/// What a `..` with no component before it to remove means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AboveRoot {
    /// It stays at the root, as the kernel reads `/..`; the climb is counted
    /// ([`Lexical::climbed`]).
    Stay,
    /// It is refused: normalizing fails with [`ClimbsAboveRoot`].
    Refuse,
}

/// A `..` climbed above the start of a path normalized with [`AboveRoot::Refuse`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClimbsAboveRoot;

impl fmt::Display for ClimbsAboveRoot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`..` climbs above the root")
    }
}

impl std::error::Error for ClimbsAboveRoot {}

/// Where a [`Lexical`] keeps its components: a stack of names borrowed from the path.
///
/// `Vec` keeps any number. A fixed-capacity stack may run out of room: it then keeps what fits
/// and says so itself (its own accessor), and its owner treats the path as too deep; the
/// normalizer never reads the components back while pushing, so what it decides does not
/// depend on the storage.
pub trait ComponentStack<'p> {
    /// Adds `name` (never empty, `.` or `..`) on top.
    fn push_component(&mut self, name: &'p str);
    /// Removes the top component; `None` when there is none.
    fn pop_component(&mut self) -> Option<&'p str>;
    /// The components kept, in order.
    fn components(&self) -> &[&'p str];
}

impl<'p> ComponentStack<'p> for Vec<&'p str> {
    fn push_component(&mut self, name: &'p str) {
        self.push(name);
    }

    fn pop_component(&mut self) -> Option<&'p str> {
        self.pop()
    }

    fn components(&self) -> &[&'p str] {
        self
    }
}

/// A path's components after lexical normalization, borrowed from the path: none is empty,
/// `.` or `..`. A leading `/` is read as an empty component: whether the path was absolute is
/// the caller's to keep ([`Lexical::to_absolute`], [`Lexical::to_relative`]).
///
/// ```
/// use seal_record::{AboveRoot, ClimbsAboveRoot, Lexical};
///
/// let path = Lexical::of("/ws/./src//a/../main.rs", AboveRoot::Refuse)?;
/// assert_eq!(path.components(), ["ws", "src", "main.rs"]);
/// assert_eq!(path.to_absolute(), "/ws/src/main.rs");
///
/// assert_eq!(Lexical::of("a/../../x", AboveRoot::Refuse), Err(ClimbsAboveRoot));
/// let stayed = Lexical::staying("a/../../x");
/// assert_eq!((stayed.to_relative(), stayed.climbed()), ("x".to_owned(), 1));
/// # Ok::<(), ClimbsAboveRoot>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lexical<'p, S = Vec<&'p str>> {
    components: S,
    climbed: usize,
    path: std::marker::PhantomData<&'p str>,
}

impl<'p> Lexical<'p> {
    /// Normalizes `path`, reading a `..` above its start as `above_root` says.
    ///
    /// # Errors
    ///
    /// [`ClimbsAboveRoot`] when a `..` climbs above the start with [`AboveRoot::Refuse`].
    pub fn of(path: &'p str, above_root: AboveRoot) -> Result<Lexical<'p>, ClimbsAboveRoot> {
        let mut lexical = Lexical::default();
        lexical.push(path, above_root)?;
        Ok(lexical)
    }

    /// Normalizes `path` with [`AboveRoot::Stay`], which never fails.
    #[must_use]
    pub fn staying(path: &'p str) -> Lexical<'p> {
        let mut lexical = Lexical::default();
        lexical.push_staying(path);
        lexical
    }

    /// The components, in order, owned by the caller.
    #[must_use]
    pub fn into_components(self) -> Vec<&'p str> {
        self.components
    }
}

impl<'p, S: ComponentStack<'p>> Lexical<'p, S> {
    /// No component yet, kept in `components` (which should be empty).
    #[must_use]
    pub fn in_stack(components: S) -> Lexical<'p, S> {
        Lexical {
            components,
            climbed: 0,
            path: std::marker::PhantomData,
        }
    }

    /// Applies the components of `path` on top of these (a leading `/` is read as an empty
    /// component, so `path` is read relative to them), `..` above the start read as
    /// `above_root` says.
    ///
    /// # Errors
    ///
    /// [`ClimbsAboveRoot`] when a `..` climbs above the start with [`AboveRoot::Refuse`]; the
    /// components are then those applied before it.
    pub fn push(&mut self, path: &'p str, above_root: AboveRoot) -> Result<(), ClimbsAboveRoot> {
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    if self.components.pop_component().is_none() {
                        if above_root == AboveRoot::Refuse {
                            return Err(ClimbsAboveRoot);
                        }
                        self.climbed += 1;
                    }
                }
                name => self.components.push_component(name),
            }
        }
        Ok(())
    }

    /// Applies `path` with [`AboveRoot::Stay`], which never fails.
    pub fn push_staying(&mut self, path: &'p str) {
        let pushed = self.push(path, AboveRoot::Stay);
        debug_assert!(pushed.is_ok(), "`AboveRoot::Stay` never refuses a climb");
    }

    /// The components, in order.
    #[must_use]
    pub fn components(&self) -> &[&'p str] {
        self.components.components()
    }

    /// The stack the components are kept in.
    #[must_use]
    pub fn stack(&self) -> &S {
        &self.components
    }

    /// How many `..` climbed above the start and stayed there ([`AboveRoot::Stay`]).
    #[must_use]
    pub fn climbed(&self) -> usize {
        self.climbed
    }

    /// The components as an absolute path: `/` before each, `/` alone for none.
    #[must_use]
    pub fn to_absolute(&self) -> String {
        let components = self.components();
        if components.is_empty() {
            return "/".to_owned();
        }
        let mut out = String::new();
        for part in components {
            out.push('/');
            out.push_str(part);
        }
        out
    }

    /// The components as a relative path: joined by `/`, empty for none.
    #[must_use]
    pub fn to_relative(&self) -> String {
        self.components().join("/")
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    use super::*;

    #[test]
    fn a_climb_above_the_root_says_so() {
        let error = Lexical::of("a/../..", AboveRoot::Refuse).err();
        assert_eq!(error, Some(ClimbsAboveRoot));
        assert_eq!(ClimbsAboveRoot.to_string(), "`..` climbs above the root");
    }

    type Normalized<'p> = Result<(Vec<&'p str>, usize), ClimbsAboveRoot>;

    fn real(path: &str, above_root: AboveRoot) -> Normalized<'_> {
        Lexical::of(path, above_root).map(|l| (l.components().to_vec(), l.climbed()))
    }

    /// The reference: drop empty and `.` components, then cancel a name followed by `..`,
    /// leftmost first, until none is left; what remains is the climbs, then the names.
    fn naive(path: &str, above_root: AboveRoot) -> Normalized<'_> {
        let mut parts: Vec<&str> = path
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        while let Some(at) = parts
            .windows(2)
            .position(|w| matches!(w, [name, ".."] if *name != ".."))
        {
            parts.drain(at..at + 2);
        }
        let climbed = parts.iter().take_while(|p| **p == "..").count();
        if climbed > 0 && above_root == AboveRoot::Refuse {
            return Err(ClimbsAboveRoot);
        }
        Ok((parts.split_off(climbed), climbed))
    }

    /// A broken twin: `..` at the start is silently dropped in both modes, and not counted.
    fn broken(path: &str, _above_root: AboveRoot) -> Normalized<'_> {
        let mut parts = Vec::new();
        for part in path.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                name => parts.push(name),
            }
        }
        Ok((parts, 0))
    }

    /// Paths of `a`, `b`, `.`, `..` and empty components, absolute or not.
    fn paths() -> impl Strategy<Value = String> {
        let component = prop::sample::select(vec!["a", "b", ".", "..", ""]);
        (any::<bool>(), prop::collection::vec(component, 0..10)).prop_map(|(absolute, parts)| {
            let body = parts.join("/");
            if absolute {
                format!("/{body}")
            } else {
                body
            }
        })
    }

    fn agrees(normalize: fn(&str, AboveRoot) -> Normalized<'_>) -> Result<(), String> {
        let mut runner = TestRunner::new(Config {
            cases: 512,
            failure_persistence: None,
            ..Config::default()
        });
        runner
            .run(&paths(), |path| {
                for above_root in [AboveRoot::Stay, AboveRoot::Refuse] {
                    prop_assert_eq!(normalize(&path, above_root), naive(&path, above_root));
                }
                Ok(())
            })
            .map_err(|e| e.to_string())
    }

    #[test]
    fn agrees_with_the_naive_reference() {
        agrees(real).unwrap();
    }

    #[test]
    fn the_broken_twin_is_caught() {
        assert!(agrees(broken).is_err());
    }

    proptest! {
        #[test]
        fn pushing_is_normalizing_the_joined_path(a in paths(), b in paths()) {
            for above_root in [AboveRoot::Stay, AboveRoot::Refuse] {
                let mut pushed = Lexical::default();
                let pushed = pushed
                    .push(&a, above_root)
                    .and_then(|()| pushed.push(&b, above_root))
                    .map(|()| pushed);
                let joined = format!("{a}/{b}");
                prop_assert_eq!(pushed, Lexical::of(&joined, above_root));
            }
        }

        #[test]
        fn staying_never_fails(path in paths()) {
            prop_assert_eq!(Ok(Lexical::staying(&path)), Lexical::of(&path, AboveRoot::Stay));
        }

        #[test]
        fn joined_forms_read_back(path in paths()) {
            let lexical = Lexical::staying(&path);
            let absolute = lexical.to_absolute();
            let again = Lexical::staying(&absolute);
            prop_assert_eq!(again.components(), lexical.components());
            prop_assert!(absolute.starts_with('/'));
            let relative = lexical.to_relative();
            let again = Lexical::staying(&relative);
            prop_assert_eq!(again.components(), lexical.components());
            prop_assert!(!relative.starts_with('/'));
        }
    }

    #[test]
    fn examples() {
        let of = |p| real(p, AboveRoot::Refuse);
        assert_eq!(of("./a//b/./c"), Ok((vec!["a", "b", "c"], 0)));
        assert_eq!(of("a/x/../.env"), Ok((vec!["a", ".env"], 0)));
        assert_eq!(of("/ws/../etc"), Ok((vec!["etc"], 0)));
        assert_eq!(of(""), Ok((vec![], 0)));
        assert_eq!(of("/"), Ok((vec![], 0)));
        assert_eq!(of("../x"), Err(ClimbsAboveRoot));
        assert_eq!(of("/.."), Err(ClimbsAboveRoot));
        assert_eq!(real("/../x", AboveRoot::Stay), Ok((vec!["x"], 1)));
        assert_eq!(real("../../a/..", AboveRoot::Stay), Ok((vec![], 2)));
        assert_eq!(Lexical::staying("/a/..").to_absolute(), "/");
        assert_eq!(Lexical::staying("/a/..").to_relative(), "");
    }

    #[test]
    fn the_components_are_handed_over_as_normalized() {
        let lexical = Lexical::staying("/ws/./src/../lib.rs");
        assert_eq!(lexical.components(), ["ws", "lib.rs"]);
        assert_eq!(lexical.into_components(), vec!["ws", "lib.rs"]);
        assert_eq!(Lexical::staying("a/b").into_components(), vec!["a", "b"]);
    }
}
