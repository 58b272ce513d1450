//! The destructive-command guard on destructive forms and their harmless neighbours, in
//! the context of spec/destructive-guard.md (workspace `/home/dev/project`, home `/home/dev`).

use seal_policy::destructive::{DestructiveGuard, PATTERNS};

fn guard() -> DestructiveGuard {
    DestructiveGuard::new()
        .with_workspace_root("/home/dev/project")
        .with_home_dir("/home/dev")
}

/// Commands the guard refuses, with the pattern that fires.
const REFUSED: &[(&str, &str)] = &[
    ("rm -rf /", "rm-outside-workspace"),
    ("rm -fr ~", "rm-outside-workspace"),
    ("rm -r -f ~/", "rm-outside-workspace"),
    ("rm --recursive --force /etc", "rm-outside-workspace"),
    ("rm --recur --forc /etc", "rm-outside-workspace"),
    ("rm -r -v -f /", "rm-outside-workspace"),
    ("rm a b c d e f g h i j -rf /", "rm-outside-workspace"),
    ("rm -rf .", "rm-outside-workspace"),
    ("rm -rf ..", "rm-outside-workspace"),
    ("rm -rf ../other", "rm-outside-workspace"),
    ("rm -rf /tmp", "rm-outside-workspace"),
    ("rm -rf /*", "rm-outside-workspace"),
    ("rm -rf .*", "rm-outside-workspace"),
    ("rm -rf -- /", "rm-outside-workspace"),
    ("sudo rm -rf /var/lib", "rm-outside-workspace"),
    ("/bin/rm -rf /usr", "rm-outside-workspace"),
    ("RM -rf /", "rm-outside-workspace"),
    ("Rm -Rf ~", "rm-outside-workspace"),
    (
        "env X=1 nice -n 5 timeout 9 rm -rf /opt",
        "rm-outside-workspace",
    ),
    ("echo x | xargs rm -rf /", "rm-outside-workspace"),
    ("bash -c 'rm -rf ~'", "rm-outside-workspace"),
    ("rm /etc/passwd", "rm-system-path"),
    ("find / -delete", "find-delete-outside-workspace"),
    (
        "find ~ -name '*.txt' -delete",
        "find-delete-outside-workspace",
    ),
    (
        "find -L /etc -type f -delete",
        "find-delete-outside-workspace",
    ),
    ("find ~ -exec rm -rf {} +", "rm-outside-workspace"),
    ("find /var -execdir rm -f {} \\;", "rm-outside-workspace"),
    ("watch -n1 rm -rf ~", "rm-outside-workspace"),
    ("watch 'rm -rf /'", "rm-outside-workspace"),
    ("parallel rm -rf ::: /a /b", "rm-outside-workspace"),
    ("git reset --hard", "git-reset-hard"),
    ("git -C repo reset --hard", "git-reset-hard"),
    ("git -Crepo reset --ha", "git-reset-hard"),
    (
        "git --git-dir=.git --work-tree=. reset --hard HEAD~1",
        "git-reset-hard",
    ),
    ("git --no-pager -c k=v reset --hard", "git-reset-hard"),
    ("git -- reset --hard", "git-reset-hard"),
    ("GIT reset --hard", "git-reset-hard"),
    ("git checkout -qf main", "git-checkout-force"),
    ("git checkout --forc main", "git-checkout-force"),
    ("git checkout HEAD file.txt", "git-checkout-tree-paths"),
    ("git checkout main a.txt b.txt", "git-checkout-tree-paths"),
    ("git checkout -- a.txt", "git-checkout-paths"),
    ("git checkout .", "git-checkout-everything"),
    (
        "git checkout -B main origin/main",
        "git-checkout-force-create",
    ),
    ("git switch -f main", "git-switch-force"),
    ("git switch --discard-changes main", "git-switch-force"),
    ("git restore .", "git-restore-worktree"),
    (
        "git restore --staged --worktree a.txt",
        "git-restore-staged-worktree",
    ),
    ("git clean -fdx", "git-clean-force"),
    ("git clean -xdf", "git-clean-force"),
    ("git clean --force", "git-clean-force"),
    ("git branch -D x", "git-branch-force-delete"),
    ("git branch -Dv x", "git-branch-force-delete"),
    ("git branch --del --forc x", "git-branch-force-delete"),
    ("git branch -M old main", "git-branch-force-overwrite"),
    ("git tag -d v1", "git-tag-delete"),
    ("git push --force origin main", "git-push-force"),
    ("git push origin main --force", "git-push-force"),
    ("git push -f", "git-push-force"),
    ("git push --forc origin main", "git-push-force"),
    ("git push --force-with-lease", "git-push-force"),
    ("git push --mir origin", "git-push-force"),
    ("git push origin --delete old", "git-push-force"),
    ("git push origin :old-branch", "git-push-force"),
    ("git push origin +refs/heads/main", "git-push-force"),
    ("git stash drop", "git-stash-drop"),
    ("git stash clear", "git-stash-clear"),
    (
        "git worktree remove --forc /tmp/wt",
        "git-worktree-force-remove",
    ),
    ("git worktree remove -f wt", "git-worktree-force-remove"),
    (
        "git filter-branch --tree-filter 'rm x' HEAD",
        "git-filter-branch",
    ),
    ("git reflog expire --expire=now --all", "git-reflog-expire"),
    ("git reflog delete 'HEAD@{1}'", "git-reflog-delete"),
    (
        "git filter-repo --path secrets --invert-paths",
        "git-filter-repo",
    ),
    ("git update-ref -d refs/heads/x", "git-update-ref-delete"),
    ("git gc --prune=now", "git-gc-prune-now"),
    ("git gc --pru=now", "git-gc-prune-now"),
    ("dd if=/dev/zero of=/dev/sda bs=1M", "dd-device"),
    ("sudo dd if=x.img of=/dev/nvme0n1", "dd-device"),
    ("mkfs.ext4 /dev/sdb1", "filesystem-create"),
    ("mkfs -t ext4 /dev/sdb1", "filesystem-create"),
    ("wipefs -a /dev/sda", "device-wipe"),
    ("shred -u ~/secrets.txt", "file-shred"),
    ("shred /dev/sda", "file-shred"),
    ("mkswap /dev/sdc2", "filesystem-create"),
    ("fdisk /dev/sda", "partition-table"),
    ("chmod -R 777 /", "permissions-recursive-outside-workspace"),
    (
        "chmod --recursive 000 ~",
        "permissions-recursive-outside-workspace",
    ),
    (
        "chown -R nobody /home",
        "permissions-recursive-outside-workspace",
    ),
    ("chmod 777 /etc/passwd", "permissions-system-path"),
    (":(){ :|:& };:", "fork-bomb"),
    ("bomb() { bomb | bomb & }; bomb", "fork-bomb"),
    ("f(){ f & f; }; f", "fork-bomb"),
    ("bash -c ':(){ :|:& };:'", "fork-bomb"),
    ("cat img > /dev/sda", "device-redirect"),
    ("cp /dev/zero /dev/sdb", "device-copy"),
    ("git branch -f main HEAD~3", "git-branch-force-overwrite"),
    ("git reset --merge ORIG_HEAD", "git-reset-hard"),
    ("echo x >/dev/nvme0n1", "device-redirect"),
];

/// Commands the guard lets through (the rules still decide them).
const PASSED: &[&str] = &[
    "rm -rf build",
    "rm -rf ./node_modules target",
    "rm -rf /tmp/cache-1",
    "rm -rf /home/dev/project/dist",
    "rm -rf *",
    "rm -f a.txt",
    "rm a.txt",
    "rm -i ~/notes.txt",
    "rm ~/notes.txt",
    "find . -name '*.o' -delete",
    "find build -type f -delete",
    "find /tmp/x -delete",
    "find . -exec rm -f {} +",
    "find . -name delete",
    "git status",
    "git -C sub status",
    "git reset --soft HEAD~1",
    "git reset HEAD a.txt",
    "git checkout main",
    "git checkout -b new-branch",
    "git checkout -b new origin/main",
    "git switch -c x",
    "git restore --staged a.txt",
    "git clean -n",
    "git clean -fn",
    "git branch -d merged",
    "git push origin main",
    "git push -u origin feature",
    "git tag v1.0",
    "git stash",
    "git stash pop",
    "git worktree remove wt",
    "git gc",
    "git gc --prune=2.weeks.ago",
    "git log --grep=force",
    "git diff -- -f",
    "git -- log",
    "git commit -m 'rm -rf cleanup'",
    "echo 'rm -rf /'",
    "echo \"x > /dev/sda\"",
    "grep -r 'reset --hard' docs",
    "dd if=/dev/zero of=disk.img bs=1M count=10",
    "dd if=x of=/dev/null",
    "echo hi > /dev/null",
    "cmd 2>/dev/stderr",
    "chmod +x script.sh",
    "chmod -R u+w build",
    "chmod 600 ~/.ssh/id_rsa",
    "fdisk -l",
    "mkfs.ext4 -F /tmp/disk.img",
    "shred -u secrets.txt",
    "cat -- -f",
    "ls -la /",
    "f() { echo hi; }; f",
    "git push --dry-run --force origin main",
    "cp /dev/urandom key.bin",
];

#[test]
fn refuses_destructive_commands_naming_the_pattern() {
    let guard = guard();
    let mut wrong = Vec::new();
    for (command, pattern) in REFUSED {
        match guard.check_command(command) {
            Some(found) if found.pattern.id == *pattern => {
                let text = found.to_string();
                assert!(text.contains(pattern), "{text}");
            }
            other => wrong.push(format!(
                "{command}: expected {pattern}, got {:?}",
                other.map(|f| f.pattern.id)
            )),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn lets_everyday_commands_through() {
    let guard = guard();
    let refused: Vec<String> = PASSED
        .iter()
        .filter_map(|command| {
            guard
                .check_command(command)
                .map(|f| format!("{command}: {f}"))
        })
        .collect();
    assert!(refused.is_empty(), "{}", refused.join("\n"));
}

#[test]
fn refusals_name_the_path() {
    let found = guard().check_command("rm -rf ~/.ssh").unwrap();
    assert_eq!(found.path.as_deref(), Some("/home/dev/.ssh"));
    assert_eq!(found.place, Some("a path outside the workspace"));
    assert!(found
        .to_string()
        .contains("`/home/dev/.ssh` is a path outside the workspace"));
    let found = guard().check_command("dd of=/dev/sda").unwrap();
    assert_eq!(found.path.as_deref(), Some("/dev/sda"));
}

#[test]
fn without_a_workspace_absolute_paths_are_outside() {
    let guard = DestructiveGuard::new();
    assert!(guard.check_command("rm -rf build").is_none());
    assert!(guard
        .check_command("rm -rf /home/dev/project/build")
        .is_some());
    assert!(guard.check_command("rm -rf ~").is_some());
    assert!(guard.check_command("rm -rf /tmp/x").is_none());
    let guard = guard.with_temp_dir("/scratch");
    assert!(guard.check_command("rm -rf /scratch/x").is_none());
}

#[test]
fn every_pattern_fires_on_some_example() {
    let guard = guard();
    let fired: std::collections::BTreeSet<&str> = REFUSED
        .iter()
        .filter_map(|(command, _)| guard.check_command(command).map(|f| f.pattern.id))
        .collect();
    let silent: Vec<&str> = PATTERNS
        .iter()
        .map(|p| p.id)
        .filter(|id| !fired.contains(id))
        .collect();
    assert!(silent.is_empty(), "{silent:?}");
}

const SPEC: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../spec/destructive-guard.md"
));

/// The rows of the spec's examples table (section 6): command and finding (`pass` or an id).
fn spec_rows() -> Vec<(String, String)> {
    let section = SPEC.split("## 6. Examples").nth(1).expect("section 6");
    section
        .lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
            let unquote = |cell: &str| cell.trim().trim_matches('`').replace("\\|", "|");
            (unquote(cells[0]), unquote(cells[1]))
        })
        .collect()
}

#[test]
fn spec_examples() {
    let rows = spec_rows();
    assert!(rows.len() >= 40, "{}", rows.len());
    let guard = guard();
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|(command, expected)| {
            let got = guard
                .check_command(command)
                .map_or("pass", |found| found.pattern.id);
            (got != expected).then(|| format!("{command}: spec says {expected}, guard gives {got}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The spec's pattern table, rendered from [`PATTERNS`].
fn pattern_table() -> String {
    let code = |words: &[&str]| {
        words
            .iter()
            .map(|w| format!("`{w}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = String::from(
        "| Pattern | Programs | Subcommand | Any | All | None | Operands | Refuses |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
    for p in PATTERNS {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | `{:?}` | {} |\n",
            p.id,
            code(p.programs),
            p.subcommand.join(" "),
            code(p.any_option),
            code(p.all_options),
            code(p.no_option),
            p.operands,
            p.what.replace('|', "\\|")
        ));
    }
    out
}

#[test]
fn the_spec_lists_every_pattern_as_the_table_holds_it() {
    let begin = "<!-- patterns:begin -->\n";
    let end = "<!-- patterns:end -->";
    let start = SPEC.find(begin).expect("begin marker") + begin.len();
    let stop = SPEC.find(end).expect("end marker");
    let table = pattern_table();
    if seal_test_support::regenerating() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../spec/destructive-guard.md"
        );
        let text = format!("{}{table}{}", &SPEC[..start], &SPEC[stop..]);
        std::fs::write(path, text).unwrap();
        return;
    }
    assert_eq!(
        &SPEC[start..stop],
        table,
        "spec/destructive-guard.md section 3 differs from PATTERNS (SEAL_REGENERATE=1 rewrites it)"
    );
}

#[test]
fn options_past_the_model_limit_do_not_hide_a_force_push() {
    use seal_parse::shell::MAX_OPTIONS;
    use seal_test_support::spellings::GIT_PUSH_PADDING;
    let guard = guard();
    for count in [MAX_OPTIONS - 2, MAX_OPTIONS, MAX_OPTIONS + 4] {
        let padding = GIT_PUSH_PADDING[..count].join(" ");
        for command in [
            format!("git push {padding} --force origin main"),
            format!("git push {padding} origin main --force"),
            format!("git push {padding} origin +main"),
        ] {
            let found = guard.check_command(&command).map(|f| f.pattern.id);
            assert_eq!(found, Some("git-push-force"), "{command}");
        }
    }
    // A dry run the model saw stays harmless, and so does the padding alone below the limit.
    let padding = GIT_PUSH_PADDING[..MAX_OPTIONS - 2].join(" ");
    for command in [
        format!("git push --dry-run {padding} --force origin main"),
        format!("git push {padding} origin main"),
    ] {
        assert_eq!(
            guard.check_command(&command).map(|f| f.pattern.id),
            None,
            "{command}"
        );
    }
}
