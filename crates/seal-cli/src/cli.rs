//! The command line (clap, derive): every command, flag and environment fallback of
//! spec/cli.md, with the help generated from these definitions.
//!
//! Values arrive as `OsString`s ([`std::env::args_os`]); a value that is not UTF-8 is a usage
//! error, never a panic. Environment fallbacks (`SEAL_STORE` and the rest) are read by clap;
//! an empty variable counts as unset.

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::keygen::{DEFAULT_DAYS, MAX_DAYS};

/// The exit codes, shown after the main help.
const EXIT_CODES: &str = "\
exit codes: 0 ok, 2 usage, 3 input, 4 keys/store, 5 rules, 6 output, 7 decode,
10 tainted, 11 deny, 12 ask, 13 lint findings, 14 doctor problems,
20 stale policy, 21 stale manifest, 22 stale model, 23 not approved,
24 recomputed mismatch, 25 approval refused, 70 internal (spec/cli.md)";

/// `seal`: the whole command line.
#[derive(Debug, Parser)]
#[command(
    name = "seal",
    version,
    about = "seal: trust by construction for AI-agent runtimes",
    after_help = EXIT_CODES,
    max_term_width = 80,
    propagate_version = true,
    subcommand_required = true,
    arg_required_else_help = false
)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// New trust store and secret key file.
    Keygen(KeygenArgs),
    /// Sign a frame around the body on stdin.
    Sign(SignArgs),
    /// Verify the frames in the text on stdin; print it followed by the alarms.
    Scan(ScanArgs),
    /// Escape stdin (escape-v1); --decode to decode.
    Render(RenderArgs),
    /// Disclosure manifests: seal, approve, verify before a run.
    #[command(subcommand)]
    Manifest(ManifestCommand),
    /// Decide a tool call against a rules file, or lint the rules.
    #[command(subcommand)]
    Policy(PolicyCommand),
    /// Trust stores: sign the next document, rotate to it.
    #[command(subcommand)]
    Store(StoreCommand),
    /// Check store, keys, expiries, verification state and rules.
    Doctor(DoctorArgs),
    /// See what seal does, with fixed demo keys and time (no setup, no files).
    Demo,
    /// Agent hooks: Claude Code and Codex.
    #[command(subcommand)]
    Hook(HookCommand),
    /// The decision and disclosure log: create it, verify it, show and prove its entries.
    #[command(subcommand)]
    Audit(AuditCommand),
    /// Write seal's hooks into Claude Code's or Codex's settings.
    Install(InstallArgs),
    /// Remove seal's hooks from Claude Code's or Codex's settings.
    Uninstall(UninstallArgs),
    /// Print a shell completion script for `seal` on stdout.
    Completions(CompletionsArgs),
    /// The approval server: a browser panel answers the hooks that wait for a person.
    Serve(crate::serve::ServeArgs),
}

/// `seal install`.
#[derive(Debug, Args)]
#[command(
    long_about = "Writes seal's hook entries for every event seal answers into the client's \
                  settings file (user scope by default: ~/.claude/settings.json, \
                  ~/.codex/hooks.json), keeping every other setting and hook byte for byte. \
                  The previous file is kept as FILE.seal-backup; a file that is not JSON is \
                  refused and left as it is (spec/install.md)."
)]
pub struct InstallArgs {
    /// The client.
    #[arg(value_enum)]
    pub client: crate::install::settings::Client,
    /// A project's settings instead of the user's (DIR/.claude/settings.json,
    /// DIR/.codex/hooks.json).
    #[arg(long, value_name = "DIR", conflicts_with = "settings")]
    pub project: Option<String>,
    /// This settings file instead of the client's own.
    #[arg(long, value_name = "FILE")]
    pub settings: Option<String>,
    /// Print the change as a diff and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The seal the hooks run (default: `seal`, as the client's PATH finds it).
    #[arg(long, value_name = "PATH")]
    pub binary: Option<String>,
    /// Rules file for the tool hooks (written into their commands as an absolute path).
    #[arg(long, value_name = "PATH")]
    pub rules: Option<String>,
    /// Trust store (the prompt hook is written only with one).
    #[arg(long, value_name = "PATH")]
    pub store: Option<String>,
    /// Secret key file.
    #[arg(long, value_name = "PATH")]
    pub keys: Option<String>,
    /// Replay state, a file or redis://host:port/db (no password: set SEAL_STATE for that).
    #[arg(long, value_name = "PATH|URL")]
    pub state: Option<String>,
    /// The hook timeout written, in seconds (more than the hooks' 30-second deadline; a
    /// waiting hook's is raised above its wait).
    #[arg(long, value_name = "SECONDS",
          default_value_t = crate::install::DEFAULT_TIMEOUT_SECONDS)]
    pub timeout: u64,
    /// Put the calls the client or the rules ask about on the approval panel of `seal serve`:
    /// `relay` adds the `PermissionRequest` hook (Claude Code's own prompt stays usable beside
    /// it, the first answer wins; Codex asks itself only after the relay), `hold` makes the
    /// `PreToolUse` hook wait (for `claude -p` and background runs).
    #[arg(long, value_enum, default_value = "off")]
    pub approvals: crate::install::settings::Approvals,
    /// Seconds a waiting hook waits for the person (default 300 for `relay`, 60 for Codex's
    /// relay, 120 for `hold`).
    #[arg(long = "approval-wait", value_name = "SECONDS",
          value_parser = clap::value_parser!(u64).range(1..=crate::hook::MAX_DEADLINE_SECONDS - 5))]
    pub approval_wait: Option<u64>,
}

/// `seal uninstall`.
#[derive(Debug, Args)]
#[command(
    long_about = "Removes every seal hook from the client's settings file, keeping every other \
                  setting and hook byte for byte (spec/install.md)."
)]
pub struct UninstallArgs {
    /// The client.
    #[arg(value_enum)]
    pub client: crate::install::settings::Client,
    /// A project's settings instead of the user's.
    #[arg(long, value_name = "DIR", conflicts_with = "settings")]
    pub project: Option<String>,
    /// This settings file instead of the client's own.
    #[arg(long, value_name = "FILE")]
    pub settings: Option<String>,
    /// Print the change as a diff and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// `seal keygen`.
#[derive(Debug, Args)]
#[command(
    long_about = "Writes a signed trust-store document (spec/trust-store.md) with a store-update \
                  root key (Ed25519) and an HMAC frame key, and a secret key file (mode 0600)."
)]
pub struct KeygenArgs {
    /// Trust store to write.
    #[arg(long, value_name = "PATH")]
    pub store: String,
    /// Secret key file to write (mode 0600).
    #[arg(long, value_name = "PATH")]
    pub keys: String,
    /// Frame element the frame key signs.
    #[arg(long, value_name = "NAME", default_value = "channel")]
    pub element: String,
    /// Allowed `source` value (repeatable; none: any source).
    #[arg(long, value_name = "VALUE")]
    pub source: Vec<String>,
    /// Id of the HMAC frame key.
    #[arg(long, value_name = "ID", default_value = "frames-1")]
    pub frame_key_id: String,
    /// Id of the store-update root key.
    #[arg(long, value_name = "ID", default_value = "root-1")]
    pub root_key_id: String,
    /// Also write an Ed25519 approver key (manifest approval).
    #[arg(long)]
    pub approver: bool,
    /// Id of the approver key.
    #[arg(long, value_name = "ID", default_value = "approver-1")]
    pub approver_key_id: String,
    /// HMAC tag length in characters, 16 to 42 (22 = 132 bits).
    #[arg(long, value_name = "N", default_value_t = 22,
          value_parser = clap::value_parser!(u8).range(16..=42))]
    pub tag_chars: u8,
    /// Compact-profile frame key: 5-character (30-bit) tags. The hooks and `scan` verify them
    /// with per-conversation subkeys and claim every frame id in the replay state, the two
    /// controls the profile requires; a forger has one chance in about a billion per try.
    #[arg(long, conflicts_with = "tag_chars")]
    pub compact: bool,
    /// Validity in days.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_DAYS,
          value_parser = clap::value_parser!(u64).range(1..=MAX_DAYS))]
    pub days: u64,
    /// Issue time in Unix seconds (default: SEAL_NOW, else the clock).
    #[arg(long, value_name = "SECONDS")]
    pub now: Option<String>,
    /// Replace existing files.
    #[arg(long)]
    pub force: bool,
}

/// `seal sign`.
#[derive(Debug, Args)]
#[command(long_about = "Prints a signed frame around the body read from stdin (UTF-8), then LF.")]
pub struct SignArgs {
    /// Secret key file.
    #[arg(long, value_name = "PATH")]
    pub keys: String,
    /// Key to sign with (HMAC or Ed25519).
    #[arg(long, value_name = "ID")]
    pub key_id: String,
    /// Conversation the frame is for (the HMAC subkey).
    #[arg(long, value_name = "ID")]
    pub conversation: String,
    /// Frame element.
    #[arg(long, value_name = "NAME", default_value = "channel")]
    pub element: String,
    /// Attribute, in order (repeatable); `id` is generated when not given.
    #[arg(long, value_name = "NAME=VALUE")]
    pub attr: Vec<String>,
    /// Write the body as is (harness style) instead of escaped.
    #[arg(long, conflicts_with = "footer")]
    pub raw: bool,
    /// Footer lane (lanes that cannot carry attributes): print the body unchanged, then a
    /// `seal-footer` line signing it (--attr values go in the footer; --element is not used).
    #[arg(long)]
    pub footer: bool,
    /// Issue time written in `iat`, in Unix seconds (default: SEAL_NOW, else the clock).
    #[arg(long, value_name = "SECONDS")]
    pub now: Option<String>,
}

/// The frame-verification flags shared by `scan` and the prompt hooks.
#[derive(Debug, Args)]
pub struct FrameFlags {
    /// Trust store.
    #[arg(long, value_name = "PATH", env = "SEAL_STORE")]
    pub store: Option<String>,
    /// Secret key file with the HMAC secrets.
    #[arg(long, value_name = "PATH", env = "SEAL_KEYS")]
    pub keys: Option<String>,
    /// Replay state: a SQLite file shared by every lane on the machine (default
    /// $XDG_STATE_HOME/seal/replay.sqlite3, else ~/.local/state/seal/replay.sqlite3), or
    /// redis://host:port/db shared by a fleet.
    #[arg(long, value_name = "PATH|URL", env = "SEAL_STATE")]
    pub state: Option<String>,
    /// How long a claim waits for another lane's write to the replay state (for Redis: to
    /// connect, and for each answer), in milliseconds, before the run fails closed.
    #[arg(long, value_name = "MS", env = "SEAL_STATE_TIMEOUT_MS",
          default_value_t = crate::state::DEFAULT_STATE_TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(1..=600_000))]
    pub state_timeout_ms: u64,
    /// Old seen-id file: imported once into the replay state, then left alone.
    #[arg(long, value_name = "PATH", env = "SEAL_SEEN")]
    pub seen: Option<String>,
    /// Frame element.
    #[arg(
        long,
        value_name = "NAME",
        env = "SEAL_ELEMENT",
        default_value = "channel"
    )]
    pub element: String,
    /// Time to verify at, in Unix seconds (default: SEAL_NOW, else the clock).
    #[arg(long, value_name = "SECONDS")]
    pub now: Option<String>,
    /// Oldest issue time (`iat`) accepted, in seconds before the time of verification.
    #[arg(long, value_name = "SECONDS", env = "SEAL_MAX_AGE",
          default_value_t = seal::DEFAULT_MAX_AGE_SECONDS)]
    pub max_age: u64,
    /// Furthest issue time accepted in the future (the signer's clock ahead), in seconds.
    #[arg(long, value_name = "SECONDS", env = "SEAL_MAX_SKEW",
          default_value_t = seal::DEFAULT_MAX_SKEW_SECONDS)]
    pub max_skew: u64,
    /// Accept frames without `iat` (signed before issue times existed) until this Unix time.
    #[arg(long, value_name = "SECONDS")]
    pub accept_undated_until: Option<u64>,
    /// Footer lane: the text must end with a `seal-footer` line signing all of it (keys scoped
    /// to the element `seal-footer`); without one it alarms `unsigned_frame`.
    #[arg(long, env = "SEAL_FOOTER")]
    pub footer: bool,
}

/// `seal scan`.
#[derive(Debug, Args)]
#[command(
    long_about = "Prints the text unchanged followed by the alarms; exit 10 when tainted. \
                  SEAL_VERIFY=off turns verification off (a visible notice on every frame)."
)]
pub struct ScanArgs {
    /// Store, keys, seen ids, element and time.
    #[command(flatten)]
    pub frames: FrameFlags,
    /// Conversation to verify in.
    #[arg(long, value_name = "ID", env = "SEAL_CONVERSATION")]
    pub conversation: Option<String>,
    /// Print the operator's report as JSON instead.
    #[arg(long)]
    pub json: bool,
}

/// An escape-v1 context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RenderContext {
    /// Single-line fields: no LF.
    Inline,
    /// Attribute values.
    Attribute,
    /// Bodies: LF kept, no `<`.
    Block,
}

/// `seal render`.
#[derive(Debug, Args)]
#[command(
    long_about = "Escapes stdin with escape-v1 (bytes that are not UTF-8 become \\x{hh}); with \
                  --decode, decodes strictly (exit 7 when the input is not an escape)."
)]
pub struct RenderArgs {
    /// The escape context.
    #[arg(long, value_enum, default_value = "block")]
    pub context: RenderContext,
    /// Decode instead of escaping.
    #[arg(long)]
    pub decode: bool,
}

/// `seal store ...`.
#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Sign a trust-store document with store-update keys of the key file.
    Sign(StoreSignArgs),
    /// Replace the pinned trust store with the next version, once the rotation checks pass.
    Rotate(StoreRotateArgs),
}

/// `seal store sign`.
#[derive(Debug, Args)]
#[command(
    long_about = "Prints the signed envelope of a trust-store document (spec/trust-store.md \
                  section 8): the document checked by the strict store parser, signed by each \
                  --key-id in order. A rotation needs a threshold of the current store's \
                  store-update keys and a threshold of the new document's own."
)]
pub struct StoreSignArgs {
    /// The store document (JSON, the `document` member of an envelope).
    #[arg(long, value_name = "PATH")]
    pub document: String,
    /// Secret key file holding the Ed25519 signing keys.
    #[arg(long, value_name = "PATH")]
    pub keys: String,
    /// Key to sign with (repeatable; each listed by the document, or by --current).
    #[arg(long, value_name = "ID", required = true)]
    pub key_id: Vec<String>,
    /// The pinned store this document rotates from: its keys may sign too (a root the new
    /// version drops still signs the handover).
    #[arg(long, value_name = "PATH")]
    pub current: Option<String>,
    /// Write the envelope here instead of stdout.
    #[arg(long, value_name = "PATH")]
    pub out: Option<String>,
    /// Replace an existing --out file.
    #[arg(long)]
    pub force: bool,
}

/// `seal store rotate`.
#[derive(Debug, Args)]
#[command(
    long_about = "Checks that --next may replace the pinned --store (version exactly one above, \
                  not expired, signed by a threshold of the current store-update keys and by a \
                  threshold of its own), then replaces --store with it atomically. Exit 4 when \
                  the rotation is refused; the pinned store is then unchanged."
)]
pub struct StoreRotateArgs {
    /// The pinned trust store (replaced).
    #[arg(long, value_name = "PATH")]
    pub store: String,
    /// The next signed store envelope.
    #[arg(long, value_name = "PATH")]
    pub next: String,
    /// Only check; leave --store as it is.
    #[arg(long)]
    pub check: bool,
    /// Time of the check in Unix seconds (default: SEAL_NOW, else the clock).
    #[arg(long, value_name = "SECONDS")]
    pub now: Option<String>,
}

/// `seal manifest ...`.
#[derive(Debug, Subcommand)]
pub enum ManifestCommand {
    /// Seal a disclosure manifest from a description and the files.
    Seal(ManifestSealArgs),
    /// Sign a manifest's disclosure hash with an approver key.
    Approve(ManifestApproveArgs),
    /// Re-verify a manifest against the files and the approval before a run.
    Verify(ManifestVerifyArgs),
}

/// `seal manifest seal`.
#[derive(Debug, Args)]
#[command(
    long_about = "Builds the manifest from the description and the files under --root, writes \
                  it, and prints the summary with the disclosure hash."
)]
pub struct ManifestSealArgs {
    /// The manifest description.
    #[arg(long, value_name = "PATH")]
    pub description: String,
    /// The manifest file to write.
    #[arg(long, value_name = "PATH")]
    pub out: String,
    /// Directory the description's paths are relative to.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: String,
    /// Print `{"disclosure_hash", "manifest"}` instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Record the manifest's event in this decision log (`seal audit init`).
    #[command(flatten)]
    pub log: RecordLogFlags,
}

/// `seal manifest approve`.
#[derive(Debug, Args)]
#[command(
    long_about = "Signs the manifest's disclosure hash with an Ed25519 approver key: a \
                  single-use approval id, valid for --valid-for seconds."
)]
#[command(
    override_usage = "seal manifest approve --manifest <PATH> --keys <PATH> --key-id <ID>
           --approval-id <ID> --out <PATH> [OPTIONS]"
)]
pub struct ManifestApproveArgs {
    /// The manifest to approve.
    #[arg(long, value_name = "PATH")]
    pub manifest: String,
    /// Secret key file.
    #[arg(long, value_name = "PATH")]
    pub keys: String,
    /// Approver key (Ed25519).
    #[arg(long, value_name = "ID")]
    pub key_id: String,
    /// Single-use approval id (1 to 64 of A-Z a-z 0-9 . _ -).
    #[arg(long, value_name = "ID")]
    pub approval_id: String,
    /// The approval file to write.
    #[arg(long, value_name = "PATH")]
    pub out: String,
    /// How long the approval is valid, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = crate::approve::DEFAULT_VALID_SECONDS)]
    pub valid_for: u64,
    /// Signing time in Unix seconds (default: SEAL_NOW, else the clock).
    #[arg(long, value_name = "SECONDS")]
    pub now: Option<String>,
    /// Record the manifest's event in this decision log (`seal audit init`).
    #[command(flatten)]
    pub log: RecordLogFlags,
}

/// `seal manifest verify`.
#[derive(Debug, Args)]
#[command(
    long_about = "Recomputes the manifest from the files now and checks it against the \
                  approval: the approved hash (--approved) or a signed approval (--approval with \
                  --store). Exit 20 stale policy, 21 stale manifest, 22 stale model, 23 not the \
                  approved manifest, 24 the manifest rebuilt from the description and files \
                  differs, 25 approval refused."
)]
#[command(group = clap::ArgGroup::new("approval_given").required(true).args(["approved", "approval"]))]
#[command(
    override_usage = "seal manifest verify --description <PATH> --manifest <PATH>
           (--approved <HASH> | --approval <PATH> --store <PATH>) [OPTIONS]"
)]
pub struct ManifestVerifyArgs {
    /// The manifest description.
    #[arg(long, value_name = "PATH")]
    pub description: String,
    /// The stored manifest.
    #[arg(long, value_name = "PATH")]
    pub manifest: String,
    /// Directory the description's paths are relative to.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: String,
    /// The approved disclosure hash (64 lowercase hex digits).
    #[arg(long, value_name = "HASH", conflicts_with = "approval")]
    pub approved: Option<String>,
    /// A signed approval file (needs --store).
    #[arg(long, value_name = "PATH", requires = "store")]
    pub approval: Option<String>,
    /// Trust store resolving the approver key.
    #[arg(long, value_name = "PATH", env = "SEAL_STORE")]
    pub store: Option<String>,
    /// Replay state the approval id is claimed in (a file or redis://host:port/db, as for the
    /// prompt hooks).
    #[arg(long, value_name = "PATH|URL", env = "SEAL_STATE")]
    pub state: Option<String>,
    /// Old file of approval ids already used: imported once into the replay state.
    #[arg(long, value_name = "PATH", requires = "approval")]
    pub used: Option<String>,
    /// Time to verify at, in Unix seconds (default: SEAL_NOW, else the clock).
    #[arg(long, value_name = "SECONDS")]
    pub now: Option<String>,
    /// Print `{"outcome", "detail", "approved"}`.
    #[arg(long)]
    pub json: bool,
    /// Record the manifest's event in this decision log (`seal audit init`).
    #[command(flatten)]
    pub log: RecordLogFlags,
}

/// An end-of-chain decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DefaultDecision {
    /// Allow what no rule decides.
    Allow,
    /// Ask about what no rule decides.
    Ask,
    /// Deny what no rule decides.
    Deny,
    /// As Claude Code's default permission mode: allow the read-only commands, reads inside
    /// the workspace and Agent/Task/Skill calls it allows with no rule; ask about the rest.
    ClaudeCode,
    /// As Claude Code's accept-edits mode: as `claude-code`, and edits inside the workspace.
    ClaudeCodeAcceptEdits,
    /// What the client itself would do in the call's `permission_mode` (the hook input's):
    /// Claude Code's `default` and `plan` as `claude-code`, `acceptEdits` as
    /// `claude-code-accept-edits`, `bypassPermissions` as `allow`, `dontAsk` as `deny`, any
    /// other as `ask`; for Codex, `allow` (an allow is no decision: Codex decides).
    Client,
}

impl DefaultDecision {
    /// The facade's fallback (for `client`, Claude Code's default mode: a call whose
    /// permission mode is not known).
    pub fn fallback(self) -> seal::Fallback {
        match self {
            DefaultDecision::Allow => seal::Fallback::Allow,
            DefaultDecision::Ask => seal::Fallback::Ask,
            DefaultDecision::Deny => seal::Fallback::Deny,
            DefaultDecision::ClaudeCode | DefaultDecision::Client => seal::Fallback::ClaudeCode,
            DefaultDecision::ClaudeCodeAcceptEdits => seal::Fallback::ClaudeCodeAcceptEdits,
        }
    }
}

/// The fallback of `--default client` for a call of `agent` (`claude-code`, `codex`,
/// `seal-cli`) in the permission mode `mode` (spec/cli.md section 6.1).
pub fn client_fallback(agent: &str, mode: Option<&str>) -> seal::Fallback {
    if agent == "codex" {
        return seal::Fallback::Allow;
    }
    match mode {
        None | Some("default" | "plan") => seal::Fallback::ClaudeCode,
        Some("acceptEdits") => seal::Fallback::ClaudeCodeAcceptEdits,
        Some("bypassPermissions") => seal::Fallback::Allow,
        Some("dontAsk") => seal::Fallback::Deny,
        Some(_) => seal::Fallback::Ask,
    }
}

/// A stage turned on or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Toggle {
    /// On.
    On,
    /// Off.
    Off,
}

/// `seal policy ...`.
#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Decide a tool call (JSON on stdin) against a rules file.
    Check(PolicyCheckArgs),
    /// Report rules that never fire or mislead.
    Lint(PolicyLintArgs),
    /// Print the recommended rule file (everyday allows, asks, cloud and container deletions
    /// denied), to use with the destructive-command guard (spec/recommended-rules.md).
    Recommended,
}

/// `seal policy check`.
#[derive(Debug, Args)]
#[command(
    long_about = "The call is {\"tool_name\": .., \"tool_input\": {..}} (the hook shape) on stdin; \
                  prints the decision, its reason, the chain trace and the rule that matched. \
                  Exit 0 allow, 11 deny, 12 ask."
)]
pub struct PolicyCheckArgs {
    /// Rules file.
    #[arg(long, value_name = "PATH")]
    pub rules: String,
    /// The end of the chain: what no rule decides gets this.
    #[arg(long = "default", value_enum, default_value = "ask")]
    pub default: DefaultDecision,
    /// The destructive-command guard: denies deletions outside the workspace, git history and
    /// worktree destruction, device and file-system writes, mass permission changes and fork
    /// bombs before any rule (spec/destructive-guard.md).
    #[arg(long = "destructive-guard", value_enum, default_value = "on")]
    pub destructive_guard: Toggle,
    /// The self-protection and secret-read guards, and what they protect.
    #[command(flatten)]
    pub guards: GuardFlags,
    /// Secret key file the self-protection guard keeps from every read and write.
    #[arg(long, value_name = "PATH", env = "SEAL_KEYS")]
    pub keys: Option<String>,
    /// Trust store the self-protection guard keeps from writes.
    #[arg(long, value_name = "PATH", env = "SEAL_STORE")]
    pub store: Option<String>,
    /// Replay state the self-protection guard keeps from writes (a file; default as for the
    /// prompt hooks).
    #[arg(long, value_name = "PATH|URL", env = "SEAL_STATE")]
    pub state: Option<String>,
    /// Workspace root (default: the call's `cwd`).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<String>,
    /// A directory counted as inside the workspace besides the root (repeatable).
    #[arg(long = "add-dir", value_name = "DIR")]
    pub add_dir: Vec<String>,
    /// Also show, for a command, every normalized form of every segment, how its program's
    /// model reads it, the payloads the rules read, which rule matches each form and whether
    /// the destructive-command guard fires on it.
    #[arg(long)]
    pub explain: bool,
    /// Print the decision as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `seal policy lint`.
#[derive(Debug, Args)]
#[command(long_about = "One line per finding with a counterexample; exit 13 when any.")]
pub struct PolicyLintArgs {
    /// Rules file.
    #[arg(long, value_name = "PATH")]
    pub rules: String,
    /// Print `{"findings": [..]}`.
    #[arg(long)]
    pub json: bool,
}

/// `seal doctor`.
#[derive(Debug, Args)]
#[command(
    long_about = "Checks the store (accepted, expiry, each key's window and status, compact \
                  keys), the key file against the store, SEAL_VERIFY, the hook settings, the \
                  tool hooks' guards and every path and pattern they protect, the \
                  replay state (its file or Redis server, live ids and window), and lints the rules. Exit 14 \
                  when any check is an error."
)]
pub struct DoctorArgs {
    /// Trust store.
    #[arg(long, value_name = "PATH", env = "SEAL_STORE")]
    pub store: Option<String>,
    /// Secret key file.
    #[arg(long, value_name = "PATH", env = "SEAL_KEYS")]
    pub keys: Option<String>,
    /// Rules file.
    #[arg(long, value_name = "PATH", env = "SEAL_RULES")]
    pub rules: Option<String>,
    /// Replay state, a file or redis://host:port/db (default as for the prompt hooks).
    #[arg(long, value_name = "PATH|URL", env = "SEAL_STATE")]
    pub state: Option<String>,
    /// Freshness window the hooks use, in seconds (as their `--max-age`).
    #[arg(long, value_name = "SECONDS", env = "SEAL_MAX_AGE",
          default_value_t = seal::DEFAULT_MAX_AGE_SECONDS)]
    pub max_age: u64,
    /// Clock-skew allowance the hooks use, in seconds (as their `--max-skew`).
    #[arg(long, value_name = "SECONDS", env = "SEAL_MAX_SKEW",
          default_value_t = seal::DEFAULT_MAX_SKEW_SECONDS)]
    pub max_skew: u64,
    /// Warn about expiries this many days ahead.
    #[arg(long, value_name = "N", default_value_t = crate::doctor::DEFAULT_WARN_DAYS)]
    pub warn_days: u64,
    /// Time to check at, in Unix seconds (default: SEAL_NOW, else the clock).
    #[arg(long, value_name = "SECONDS")]
    pub now: Option<String>,
    /// Print the checks as JSON.
    #[arg(long)]
    pub json: bool,
    /// The self-protection and secret-read guards, as the tool hooks read them.
    #[command(flatten)]
    pub guards: GuardFlags,
}

/// `seal hook <harness> <event>`.
#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Claude Code's hooks.
    #[command(subcommand)]
    ClaudeCode(HookEvent),
    /// Codex's hooks (an allow is written as no decision, an ask as a deny).
    #[command(subcommand)]
    Codex(HookEvent),
}

/// The hook events.
#[derive(Debug, Subcommand)]
pub enum HookEvent {
    /// Verify every frame in the prompt; alarms become additional context. Never blocks: any
    /// failure answers a verification_failed alarm.
    UserPromptSubmit(PromptHookArgs),
    /// Decide tool_name / tool_input with the rules. Any failure answers deny.
    PreToolUse(ToolHookArgs),
    /// Decide a skill's shell line (Claude Code's PreSkillShellCommand) as a Bash call with
    /// that command. Any failure answers deny.
    PreSkillShellCommand(ToolHookArgs),
    /// The client is about to ask the person: put the call on the approval panel of
    /// `seal serve` and wait (a deny of the rules answers deny at once). Only an allow given on
    /// the panel (its assertion verified, spent once for this call) answers allow; every other
    /// outcome, and every failure, answers no decision, so the client's own prompt stands.
    PermissionRequest(ToolHookArgs),
    /// The call ran (the person answered at the client's own prompt, or the panel's allow was
    /// used): the approval server cancels the panel's entry for it as answered elsewhere.
    /// Answers nothing, whatever happens.
    PostToolUse(NoticeHookArgs),
}

/// `seal hook .. post-tool-use`.
#[derive(Debug, Args)]
pub struct NoticeHookArgs {
    /// The approval server the waiting hooks use.
    #[command(flatten)]
    pub approval: ApprovalWaitFlags,
}

/// `seal hook .. user-prompt-submit`.
#[derive(Debug, Args)]
pub struct PromptHookArgs {
    /// Store, keys, seen ids, element and time.
    #[command(flatten)]
    pub frames: FrameFlags,
    /// Conversation to verify in (default: the hook input's session_id).
    #[arg(long, value_name = "ID", env = "SEAL_CONVERSATION")]
    pub conversation: Option<String>,
    /// The decision log this hook records alarms in.
    #[command(flatten)]
    pub log: HookLogFlags,
    /// When the hook answers by itself.
    #[command(flatten)]
    pub deadline: DeadlineFlag,
}

/// `seal hook .. pre-tool-use`.
#[derive(Debug, Args)]
pub struct ToolHookArgs {
    /// Rules file.
    #[arg(long, value_name = "PATH", env = "SEAL_RULES")]
    pub rules: Option<String>,
    /// The end of the chain: what no rule decides gets this (`client`: what the client itself
    /// would do in the call's permission mode).
    #[arg(
        long = "default",
        value_enum,
        env = "SEAL_DEFAULT",
        default_value = "client"
    )]
    pub default: DefaultDecision,
    /// A directory counted as inside the workspace besides the call's `cwd`, as Claude Code's
    /// `additionalDirectories` (repeatable; the rules file's own are read too).
    #[arg(
        long = "add-dir",
        value_name = "DIR",
        env = "SEAL_ADD_DIRS",
        value_delimiter = ':'
    )]
    pub add_dir: Vec<String>,
    /// The destructive-command guard: denies deletions outside the workspace (the call's
    /// `cwd`), git history and worktree destruction, device and file-system writes, mass
    /// permission changes and fork bombs before any rule (spec/destructive-guard.md).
    #[arg(
        long = "destructive-guard",
        value_enum,
        env = "SEAL_DESTRUCTIVE_GUARD",
        default_value = "on"
    )]
    pub destructive_guard: Toggle,
    /// The self-protection and secret-read guards, and what they protect.
    #[command(flatten)]
    pub guards: GuardFlags,
    /// Secret key file the self-protection guard keeps from every read and write.
    #[arg(long, value_name = "PATH", env = "SEAL_KEYS")]
    pub keys: Option<String>,
    /// Trust store the self-protection guard keeps from writes.
    #[arg(long, value_name = "PATH", env = "SEAL_STORE")]
    pub store: Option<String>,
    /// Replay state the self-protection guard keeps from writes (a file; default as for the
    /// prompt hooks).
    #[arg(long, value_name = "PATH|URL", env = "SEAL_STATE")]
    pub state: Option<String>,
    /// The decision log this hook records in, and shadow mode.
    #[command(flatten)]
    pub log: HookLogFlags,
    /// When the hook answers by itself.
    #[command(flatten)]
    pub deadline: DeadlineFlag,
    /// Hold mode (`pre-tool-use`): a call the rules ask about is put on the approval panel of
    /// `seal serve` and the hook waits; an allow given there answers allow, a refusal deny, and
    /// no answer leaves the ask (Claude Code prompts; `claude -p` and Codex deny).
    #[arg(long = "wait-approval", env = "SEAL_WAIT_APPROVAL")]
    pub hold: bool,
    /// The approval server the hook waits on.
    #[command(flatten)]
    pub approval: ApprovalWaitFlags,
}

/// The approval server a hook waits on (spec/approval-server.md, "The server").
#[derive(Debug, Args)]
pub struct ApprovalWaitFlags {
    /// The hook socket of `seal serve` (default: `$XDG_RUNTIME_DIR/seal/approvals.sock`, else
    /// `~/.config/seal/serve/approvals.sock`).
    #[arg(
        long = "approval-socket",
        value_name = "PATH",
        env = "SEAL_APPROVAL_SOCKET"
    )]
    pub socket: Option<String>,
    /// Seconds to wait for the person (default: 300 for `permission-request`, 120 in hold
    /// mode). The hook's `--deadline` is raised to this plus 5 seconds; the client's hook
    /// timeout must be longer still (`seal install` writes it).
    #[arg(long = "approval-wait", value_name = "SECONDS", env = "SEAL_APPROVAL_WAIT",
          value_parser = clap::value_parser!(u64).range(1..=crate::hook::MAX_DEADLINE_SECONDS - 5))]
    pub wait: Option<u64>,
    /// The enrolled approvers (public keys; default `~/.config/seal/approvers.json`): when it
    /// names any, an allow counts only with an assertion of one of them over this exact call.
    #[arg(long = "approvers", value_name = "PATH", env = "SEAL_APPROVERS")]
    pub approvers: Option<String>,
    /// The panel's origin, which an approver's assertion must name (for a panel over TLS,
    /// `https://HOST[:PORT]` as `seal serve` prints it; its host is the relying party id).
    #[arg(
        long = "approval-origin",
        value_name = "ORIGIN",
        env = "SEAL_APPROVAL_ORIGIN",
        default_value = "http://localhost:7979"
    )]
    pub origin: String,
}

/// The decision log of a hook (spec/audit-log.md).
#[derive(Debug, Args)]
pub struct HookLogFlags {
    /// Record every decision (or alarm) in this log, made by `seal audit init`; a decision
    /// that cannot be recorded is a deny (an alarm that cannot be recorded, a
    /// verification_failed alarm).
    #[arg(long = "log", value_name = "PATH", env = "SEAL_LOG")]
    pub log: Option<String>,
    /// The log's signing key (default: the key `seal audit init` made).
    #[arg(long = "log-key", value_name = "PATH", env = "SEAL_LOG_KEY")]
    pub log_key: Option<String>,
    /// Decide and record, but answer the client as if seal had no opinion (the client's own
    /// permission flow decides): read `seal audit show` before enforcing.
    #[arg(long, env = "SEAL_SHADOW")]
    pub shadow: bool,
}

/// The decision log a command records its event in.
#[derive(Debug, Args)]
pub struct RecordLogFlags {
    /// Record the event in this log, made by `seal audit init`.
    #[arg(long = "log", value_name = "PATH", env = "SEAL_LOG")]
    pub log: Option<String>,
    /// The log's signing key (default: the key `seal audit init` made).
    #[arg(long = "log-key", value_name = "PATH", env = "SEAL_LOG_KEY")]
    pub log_key: Option<String>,
}

/// `seal audit ...`.
#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Create the log and its signing key; print the verifier key to keep elsewhere.
    Init(AuditInitArgs),
    /// Check every entry, position and signed checkpoint; name the first broken entry.
    Verify(AuditVerifyArgs),
    /// List entries, latest last, filtered by time, session, tool, decision, rule or type.
    Show(AuditShowArgs),
    /// Print the latest signed checkpoint, to keep a copy elsewhere.
    Checkpoint(AuditLogArgs),
    /// Print an offline inclusion proof of one entry (c2sp.org/tlog-proof).
    Prove(AuditProveArgs),
    /// Check an inclusion proof against a record and a verifier key.
    CheckProof(AuditCheckProofArgs),
    /// Write the log as a static C2SP tlog-tiles directory (checkpoint, hash tiles, entry
    /// bundles), to serve or ship elsewhere.
    Export(AuditExportArgs),
    /// What left the machine: disclosures verified before a run.
    #[command(subcommand)]
    Query(AuditQueryCommand),
    /// Push the latest checkpoint (and, with --records, the entries) to a fleet's PostgreSQL
    /// store, which refuses a log that rolled back or forked.
    Push(AuditPushArgs),
}

/// `seal audit push`.
#[derive(Debug, Args)]
pub struct AuditPushArgs {
    /// Where the log is.
    #[command(flatten)]
    pub log: AuditLogArgs,
    /// The fleet store: a `postgres://` URL (its schema made by `seal audit fleet-init` or the
    /// store's own installer).
    #[arg(long, value_name = "URL", env = "SEAL_FLEET")]
    pub fleet: String,
    /// Also push the entries the store does not hold yet.
    #[arg(long)]
    pub records: bool,
    /// Create the store's tables and functions first (idempotent; needs a role that may).
    #[arg(long = "install-schema")]
    pub install_schema: bool,
}

/// Where the log and its key are.
#[derive(Debug, Args)]
pub struct AuditLogArgs {
    /// The log (default: `$XDG_STATE_HOME/seal/audit.db`, else `~/.local/state/seal/audit.db`).
    #[arg(long = "log", value_name = "PATH", env = "SEAL_LOG")]
    pub log: Option<String>,
}

/// `seal audit init`.
#[derive(Debug, Args)]
pub struct AuditInitArgs {
    /// Where the log is.
    #[command(flatten)]
    pub log: AuditLogArgs,
    /// Where the signing key goes (default: `$XDG_CONFIG_HOME/seal/audit.key`, else
    /// `~/.config/seal/audit.key`); it must not exist.
    #[arg(long = "log-key", value_name = "PATH", env = "SEAL_LOG_KEY")]
    pub log_key: Option<String>,
    /// The log's origin (default: `seal.audit/` and 26 random base32 characters).
    #[arg(long, value_name = "NAME")]
    pub origin: Option<String>,
}

/// `seal audit verify`.
#[derive(Debug, Args)]
pub struct AuditVerifyArgs {
    /// Where the log is.
    #[command(flatten)]
    pub log: AuditLogArgs,
    /// Verify a tiles export (`seal audit export --tiles` output) instead of the log: its
    /// latest checkpoint, every hash tile and every entry. Needs `--vkey` (or `--log-key`);
    /// not with `--log` (a `SEAL_LOG` in the environment is ignored).
    #[arg(long, value_name = "DIR")]
    pub tiles: Option<String>,
    /// The verifier key (`name+id+key`, as `seal audit init` printed it), or a file holding
    /// it (default: the key of the signing key file, else the key the log itself records).
    #[arg(long, value_name = "VKEY|PATH")]
    pub vkey: Option<String>,
    /// The signing key file, whose verifier key is used when `--vkey` is not given.
    #[arg(long = "log-key", value_name = "PATH", env = "SEAL_LOG_KEY")]
    pub log_key: Option<String>,
    /// A checkpoint kept elsewhere (`seal audit checkpoint` output): the log must extend it
    /// (no rollback, no fork). Repeatable.
    #[arg(long = "since-checkpoint", value_name = "FILE")]
    pub since_checkpoint: Vec<String>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `seal audit show`.
#[derive(Debug, Args)]
pub struct AuditShowArgs {
    /// Where the log is.
    #[command(flatten)]
    pub log: AuditLogArgs,
    /// Only entries at or after this time: seconds since the epoch, or an age such as `90m`,
    /// `24h`, `7d`.
    #[arg(long, value_name = "TIME|AGE")]
    pub since: Option<String>,
    /// Only entries of this session.
    #[arg(long)]
    pub session: Option<String>,
    /// Only entries of this tool.
    #[arg(long)]
    pub tool: Option<String>,
    /// Only decisions of this kind.
    #[arg(long, value_parser = ["allow", "ask", "defer", "deny"])]
    pub decision: Option<String>,
    /// Only entries whose deciding stage or rule contains this text.
    #[arg(long, value_name = "TEXT")]
    pub rule: Option<String>,
    /// Only entries of this type (`hook/decision`, `frame/alarm`, `manifest/verified`, ...).
    #[arg(long = "type", value_name = "TYPE")]
    pub kind: Option<String>,
    /// At most this many entries (the latest).
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub limit: u64,
    /// Print each entry's stored JSON, one per line.
    #[arg(long)]
    pub json: bool,
}

/// `seal audit export`.
#[derive(Debug, Args)]
pub struct AuditExportArgs {
    /// Where the log is.
    #[command(flatten)]
    pub log: AuditLogArgs,
    /// The directory to write the tiles into (spec/audit-tiles.md): created if absent, and
    /// refused if it holds anything unless `--force`.
    #[arg(long, value_name = "DIR")]
    pub tiles: String,
    /// Write into a directory that is not empty, replacing the files of the same names.
    #[arg(long)]
    pub force: bool,
}

/// `seal audit prove`.
#[derive(Debug, Args)]
pub struct AuditProveArgs {
    /// Where the log is.
    #[command(flatten)]
    pub log: AuditLogArgs,
    /// The entry to prove.
    #[arg(long, value_name = "N")]
    pub index: u64,
}

/// `seal audit check-proof`.
#[derive(Debug, Args)]
pub struct AuditCheckProofArgs {
    /// The proof file (`seal audit prove` output).
    #[arg(value_name = "PROOF")]
    pub proof: String,
    /// A file holding the entry's record bytes exactly (`seal audit show --json` line, without
    /// its newline).
    #[arg(long, value_name = "FILE")]
    pub record: String,
    /// The verifier key, or a file holding it.
    #[arg(long, value_name = "VKEY|PATH")]
    pub vkey: String,
}

/// `seal audit query ...`.
#[derive(Debug, Subcommand)]
pub enum AuditQueryCommand {
    /// Manifests verified before a run: provider, model, files and line ranges, approval.
    Disclosures(AuditShowArgs),
}

/// The path guards of the tool hooks, `policy check` and `doctor` (spec/self-protection.md,
/// spec/secret-guard.md).
#[derive(Debug, Args)]
pub struct GuardFlags {
    /// The self-protection guard: no tool call may read seal's secret key files, or write,
    /// move, link, delete or change the mode of seal's keys, trust store, rules, replay state,
    /// binary or the clients' hook settings (spec/self-protection.md).
    #[arg(
        long = "self-protection",
        value_enum,
        env = "SEAL_SELF_PROTECTION",
        default_value = "on"
    )]
    pub self_protection: Toggle,
    /// The secret-read guard: no tool call may read well-known credential files (SSH and GnuPG
    /// keys, cloud credentials, registry tokens, .env files) (spec/secret-guard.md).
    #[arg(
        long = "secret-guard",
        value_enum,
        env = "SEAL_SECRET_GUARD",
        default_value = "on"
    )]
    pub secret_guard: Toggle,
    /// Another path pattern no tool call may read (repeatable; `~/...`, `/...`, `dir/file`
    /// below the workspace, or a name anywhere; globs; SEAL_SECRETS separates them with `:`).
    #[arg(
        long = "secret",
        value_name = "PATTERN",
        env = "SEAL_SECRETS",
        value_delimiter = ':'
    )]
    pub secret: Vec<String>,
    /// Drops the default secret pattern ID (repeatable; SEAL_ALLOW_SECRETS separates them with
    /// `,`).
    #[arg(
        long = "allow-secret",
        value_name = "ID",
        env = "SEAL_ALLOW_SECRETS",
        value_delimiter = ','
    )]
    pub allow_secret: Vec<String>,
    /// Another file, or directory with everything below it (written with a trailing `/`, or a
    /// directory now), no tool call may write (repeatable; SEAL_PROTECT separates them with
    /// `:`).
    #[arg(
        long = "protect",
        value_name = "PATH",
        env = "SEAL_PROTECT",
        value_delimiter = ':'
    )]
    pub protect: Vec<String>,
}

/// The deadline of a hook.
#[derive(Debug, Args)]
pub struct DeadlineFlag {
    /// Seconds after which the hook gives its failure answer by itself (a deny, or for a prompt
    /// a verification_failed alarm), whatever it is waiting for; keep it below the client's
    /// hook timeout.
    #[arg(long = "deadline", value_name = "SECONDS", env = "SEAL_DEADLINE",
          default_value_t = crate::hook::DEFAULT_DEADLINE_SECONDS,
          value_parser = clap::value_parser!(u64).range(1..=crate::hook::MAX_DEADLINE_SECONDS))]
    pub seconds: u64,
}

/// `seal completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_definitions_are_consistent() {
        Cli::command().debug_assert();
    }
}
