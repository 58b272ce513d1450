//! A rule file of broad allows (`Bash(git:*)`, `Bash(find:*)`, `Bash(xargs:*)`, `Bash(awk:*)`,
//! `Bash(node:*)`, `Bash(docker:*)`, `Bash(aws:*)` ...) with deny rules for the destructive
//! subcommands: every destructive shape below (global options, abbreviations, clusters and
//! order, forms without a marker word, commands built from data, code in arguments,
//! configuration that runs a program, other CLIs' global options, case-folded names, `watch`)
//! is denied or asked (or, for an environment prefix no allow rule covers, left to the
//! default), never allowed, by the rules alone; the everyday neighbours stay
//! allowed. Negative control: the same rules without program models (literal prefixes of the
//! canonical form) allow some of them.

use seal_policy::rules::{Effect, RuleLimits, RuleSet, Subject};

const RULES: &str = r#"{"permissions": {
  "allow": ["Bash(git:*)", "Bash(rm:*)", "Bash(find:*)", "Bash(xargs:*)", "Bash(awk:*)",
            "Bash(node:*)", "Bash(python3:*)", "Bash(perl:*)", "Bash(ruby:*)", "Bash(docker:*)",
            "Bash(aws:*)", "Bash(gcloud:*)", "Bash(kubectl:*)", "Bash(npm:*)", "Bash(parallel:*)",
            "Bash(watch:*)", "Bash(sudo:*)", "Bash(echo:*)", "Bash(printf:*)"],
  "deny": ["Bash(git reset --hard:*)", "Bash(git checkout --force:*)", "Bash(git push --force:*)",
           "Bash(git push --mirror:*)", "Bash(git push --delete:*)", "Bash(git branch --delete --force:*)",
           "Bash(git worktree remove --force:*)", "Bash(git clean --force:*)", "Bash(git stash drop:*)",
           "Bash(git checkout HEAD:*)", "Bash(rm -r:*)", "Bash(rm -f:*)",
           "Bash(aws s3 rb:*)", "Bash(aws ec2 terminate-instances:*)", "Bash(aws rds delete-db-instance:*)",
           "Bash(gcloud projects delete:*)", "Bash(gcloud compute instances delete:*)",
           "Bash(kubectl delete:*)", "Bash(docker rm:*)", "Bash(docker system prune:*)",
           "Bash(npm unpublish:*)"]
}}"#;

/// The destructive shapes, by class.
const DESTRUCTIVE: &[&str] = &[
    // git global options before the subcommand
    "git -C repo reset --hard",
    "git -Crepo reset --hard",
    "git --git-dir=.git reset --hard",
    "git --work-tree=. reset --hard",
    "git --no-pager reset --hard",
    "git -c k=v reset --hard",
    "git --config-env=core.pager=PAGER reset --hard",
    "git -- reset --hard",
    // abbreviated long options
    "git reset --ha",
    "git checkout --forc main",
    "git push --mir origin",
    "git branch --del --forc x",
    "git worktree remove --forc /tmp/wt",
    // clusters and order
    "git checkout -qf main",
    "git branch -Dv x",
    "git worktree remove -f /tmp/wt",
    "rm -r -f t",
    "rm -fr t",
    "rm --recursive --force t",
    "rm -r -v -f /",
    "rm / -rf",
    "git push origin main --force",
    // no marker word
    "git checkout HEAD file.txt",
    "git push origin :old-branch",
    "git push origin +refs/heads/main",
    // commands built from data
    "echo x | xargs git",
    "printf 'reset --hard\\n' | xargs git",
    "xargs sudo --",
    "parallel rm ::: a b",
    // code in arguments
    "awk 'BEGIN { system(\"rm -rf /\") }'",
    "awk 'BEGIN { system(\"rm\\x20-rf\\x20/\") }'",
    "find . -exec sh -c 'rm -rf \"$1\"' _ {} \\;",
    "find . -type f -mtime +7 -delete",
    "node -pe 'require(\"child_process\").execSync(\"rm -rf /\")'",
    "python3 -c 'import shutil; shutil.rmtree(\"/\")'",
    "perl -e 'system(\"rm -rf /\")'",
    "ruby -e 'system(\"rm -rf /\")'",
    // configuration that runs a program
    "git -c core.sshCommand=./x fetch",
    "GIT_SSH_COMMAND=./x git fetch",
    // other CLIs' global options
    "aws --profile p --region r s3 rb s3://bucket --force",
    "aws --profile p ec2 terminate-instances --instance-ids i-1",
    "aws rds delete-db-instance --db-instance-identifier db --profile p",
    "gcloud --project p projects delete p",
    "gcloud compute --project p instances delete vm1 --zone z",
    "kubectl --context c delete ns prod",
    "kubectl -n prod delete pod x",
    "kubectl delete -n prod pod x",
    "docker --host h rm -f c1",
    "docker -H tcp://h:2375 system prune -af",
    "npm --registry https://r unpublish pkg",
    // case-folded program names, watch
    "RM -rf /",
    "watch -n1 rm -rf t",
];

/// Everyday neighbours the same rules allow.
const EVERYDAY: &[&str] = &[
    "git -C repo status",
    "git reset --soft HEAD~1",
    "git checkout -b topic main",
    "git push origin main",
    "git branch -d merged",
    "git clean -n",
    "rm a.txt",
    "find . -name '*.rs'",
    "awk '{ print $1 }' a.txt",
    "node build.js",
    "aws --profile p s3 ls s3://bucket",
    "gcloud --project p compute instances list",
    "kubectl --context c get pods -n prod",
    "docker --host h ps -a",
    "npm --registry https://r install",
];

fn effect(rules: &RuleSet, command: &str) -> Option<Effect> {
    rules.evaluate("Bash", Subject::Command(command)).effect()
}

fn rules() -> RuleSet {
    RuleSet::from_json(RULES.as_bytes(), &RuleLimits::default()).unwrap()
}

#[test]
fn every_destructive_shape_is_denied_or_asked() {
    let rules = rules();
    let allowed: Vec<&&str> = DESTRUCTIVE
        .iter()
        .filter(|command| effect(&rules, command) == Some(Effect::Allow))
        .collect();
    assert!(allowed.is_empty(), "allowed: {allowed:#?}");
    // Most are denied; code the rules cannot see asks; an environment prefix no allow rule
    // covers is left to the default (which asks in the hooks).
    let denied = DESTRUCTIVE
        .iter()
        .filter(|command| effect(&rules, command) == Some(Effect::Deny))
        .count();
    assert!(
        denied * 2 > DESTRUCTIVE.len(),
        "{denied} of {}",
        DESTRUCTIVE.len()
    );
}

#[test]
fn the_other_clis_deny_through_their_global_options() {
    let rules = rules();
    for command in [
        "aws --profile p --region r s3 rb s3://bucket --force",
        "gcloud compute --project p instances delete vm1 --zone z",
        "kubectl -n prod delete pod x",
        "kubectl --context c delete ns prod",
        "docker --host h rm -f c1",
        "docker -H tcp://h:2375 system prune -af",
        "npm --registry https://r unpublish pkg",
    ] {
        assert_eq!(effect(&rules, command), Some(Effect::Deny), "{command}");
    }
}

#[test]
fn everyday_neighbours_stay_allowed() {
    let rules = rules();
    for command in EVERYDAY {
        assert_eq!(effect(&rules, command), Some(Effect::Allow), "{command}");
    }
}

/// The same rules matched literally: each deny rule as a prefix of the canonical words.
fn literal(command: &str) -> Option<Effect> {
    let value = seal_parse::json::parse(RULES.as_bytes(), &Default::default()).unwrap();
    let list = |name: &str| -> Vec<String> {
        value
            .as_object()
            .unwrap()
            .get("permissions")
            .unwrap()
            .as_object()
            .unwrap()
            .get(name)
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|rule| {
                let rule = rule.as_str().unwrap();
                rule.trim_start_matches("Bash(")
                    .trim_end_matches(')')
                    .trim_end_matches(":*")
                    .to_owned()
            })
            .collect()
    };
    let words = |text: &str| text.split(' ').map(str::to_owned).collect::<Vec<_>>();
    let hit = |patterns: &[String]| {
        patterns.iter().any(|p| {
            command
                .split(' ')
                .collect::<Vec<_>>()
                .starts_with(&words(p).iter().map(String::as_str).collect::<Vec<_>>())
        })
    };
    if hit(&list("deny")) {
        Some(Effect::Deny)
    } else if hit(&list("allow")) {
        Some(Effect::Allow)
    } else {
        None
    }
}

#[test]
fn negative_control_literal_prefixes_allow_destructive_shapes() {
    let allowed = DESTRUCTIVE
        .iter()
        .filter(|command| literal(command) == Some(Effect::Allow))
        .count();
    assert!(allowed > 20, "{allowed}");
}
