//! Help texts, one per command (the flags are specified in spec/cli.md).

/// `seal --help`.
pub const MAIN: &str = "\
seal: trust by construction for AI-agent runtimes

usage: seal <command> [flags]   (every command takes --help)

commands:
  keygen            new trust store and secret key file
  sign              sign a frame around the body on stdin
  scan              verify the frames in the text on stdin; print it + alarms
  render            escape stdin (escape-v1); --decode to decode
  manifest seal     seal a disclosure manifest from a description and files
  manifest approve  sign a manifest's disclosure hash with an approver key
  manifest verify   re-verify a manifest against the files before a run
  policy check      decide a tool call (JSON on stdin) against a rules file
  policy lint       report rules that never fire or mislead
  doctor            check store, keys, expiries, verification state and rules
  demo              see what seal does, with fixed demo keys
  hook claude-code user-prompt-submit | pre-tool-use
  hook codex user-prompt-submit | pre-tool-use

exit codes: 0 ok, 2 usage, 3 input, 4 keys/store, 5 rules, 6 output, 7 decode,
10 tainted, 11 deny, 12 ask, 13 lint findings, 14 doctor problems,
20 stale policy, 21 stale manifest, 22 stale model, 23 not approved,
24 recomputed mismatch, 25 approval refused, 70 internal (spec/cli.md)
";

/// `seal keygen --help`.
pub const KEYGEN: &str = "\
usage: seal keygen --store STORE.json --keys KEYS.json [flags]

Writes a signed trust-store document (spec/trust-store.md) with a store-update
root key (Ed25519) and an HMAC frame key, and a secret key file (mode 0600).

  --store PATH            trust store to write
  --keys PATH             secret key file to write (mode 0600)
  --element NAME          frame element the frame key signs (default channel)
  --source VALUE          allowed `source` value (repeatable; none: any source)
  --frame-key-id ID       default frames-1
  --root-key-id ID        default root-1
  --approver              also an Ed25519 approver key (manifest approval)
  --approver-key-id ID    default approver-1
  --tag-chars N           HMAC tag length in characters, 16..42 (default 22,
                          132 bits)
  --days N                validity in days, 1..3650 (default 365)
  --now SECONDS           issue time (default: the clock, or SEAL_NOW)
  --force                 replace existing files
";

/// `seal sign --help`.
pub const SIGN: &str = "\
usage: seal sign --keys KEYS.json --key-id ID --conversation ID [flags] < body

Prints a signed frame around the body read from stdin (UTF-8), then LF.

  --keys PATH             secret key file
  --key-id ID             key to sign with (HMAC or Ed25519)
  --conversation ID       conversation the frame is for (HMAC subkey)
  --element NAME          default channel
  --attr NAME=VALUE       attribute, in order (repeatable); `id` is generated
                          when not given
  --raw                   body as is (harness style) instead of escaped
";

/// `seal scan --help`.
pub const SCAN: &str = "\
usage: seal scan --store STORE.json --conversation ID [flags] < text

Prints the text unchanged followed by the alarms; exit 10 when tainted.

  --store PATH            trust store (or SEAL_STORE)
  --keys PATH             secret key file with the HMAC secrets (or SEAL_KEYS)
  --conversation ID       conversation to verify in (or SEAL_CONVERSATION)
  --element NAME          default channel (or SEAL_ELEMENT)
  --seen PATH             seen-id file: replays alarm, new ids are added
                          (or SEAL_SEEN)
  --json                  print the operator's report as JSON instead
  --now SECONDS           time to verify at (default: the clock, or SEAL_NOW)
SEAL_VERIFY=off turns verification off (visible notice on every frame).
";

/// `seal render --help`.
pub const RENDER: &str = "\
usage: seal render [--context inline|attribute|block] [--decode] < input

Escapes stdin with escape-v1 (bytes that are not UTF-8 become \\x{hh}); with
--decode, decodes strictly (exit 7 when the input is not an escape).
Default context: block.
";

/// `seal manifest --help`.
pub const MANIFEST: &str = "\
usage: seal manifest seal --description DESC.json --out MANIFEST.json
                          [--root DIR] [--json]
       seal manifest approve --manifest MANIFEST.json --keys KEYS.json
                             --key-id ID --approval-id ID --out APPROVAL.json
                             [--valid-for SECONDS] [--now SECONDS]
       seal manifest verify --description DESC.json --manifest MANIFEST.json
                            [--root DIR] [--approved HASH | --approval PATH
                            --store STORE.json [--used PATH]] [--now SECONDS]
                            [--json]

seal: builds the manifest from the description and the files under --root
(default .), writes it, prints the summary and the disclosure hash.
approve: signs the manifest's disclosure hash with an approver key (single-use
approval id, valid --valid-for seconds, default 3600).
verify: recomputes from the files now; exit 20 stale policy, 21 stale manifest,
22 stale model, 23 not the approved manifest, 24 recomputed hash differs,
25 approval refused. --approved defaults to the hash of the manifest file;
--approval checks a signed approval against the store and, with --used,
records its id so it is used once.
";

/// `seal policy --help`.
pub const POLICY: &str = "\
usage: seal policy check --rules RULES.json [--default allow|ask|deny]
                         [--cwd DIR] [--json] < call
       seal policy lint --rules RULES.json [--json]

check: the call is {\"tool_name\": .., \"tool_input\": {..}} (hook shape); prints
the decision, its reason, the chain trace and the rule that matched; exit 0
allow, 11 deny, 12 ask. --default is the end of the chain (default ask).
lint: one line per finding with a counterexample; exit 13 when any.
";

/// `seal doctor --help`.
pub const DOCTOR: &str = "\
usage: seal doctor --store STORE.json [--keys KEYS.json] [--rules RULES.json]
                   [--warn-days N] [--now SECONDS] [--json]

Checks the store (accepted, expiry, each key's window and status, compact
keys), the key file against the store, SEAL_VERIFY, and lints the rules.
Flags fall back to SEAL_STORE, SEAL_KEYS, SEAL_RULES. Exit 14 when
any check is an error.
";

/// `seal demo --help`.
pub const DEMO: &str = "\
usage: seal demo

Shows, with fixed demo keys and time: a signed message verified, the
close-and-reopen forgery caught, a replayed frame caught, bypass-shaped
commands decided with their traces, an approval card, and a manifest refused
after one byte changes. No setup, no files.
";

/// `seal hook --help`.
pub const HOOK: &str = "\
usage: seal hook claude-code user-prompt-submit [flags] < hook-input.json
       seal hook claude-code pre-tool-use [flags] < hook-input.json
       seal hook codex user-prompt-submit [flags] < hook-input.json
       seal hook codex pre-tool-use [flags] < hook-input.json

Answers one JSON object on stdout and exits 0 (see each event's --help).
";

/// `seal hook .. user-prompt-submit --help`.
pub const HOOK_PROMPT: &str = "\
usage: seal hook <claude-code|codex> user-prompt-submit [flags] < input.json

Verifies every frame in `prompt`; answers
{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",
\"additionalContext\":ALARMS}}
and exit 0. Never blocks: on any failure the context is a verification_failed
alarm and the cause goes to stderr.

  --store PATH            trust store (or SEAL_STORE)
  --keys PATH             secret key file (or SEAL_KEYS)
  --seen PATH             seen-id file (or SEAL_SEEN)
  --element NAME          default channel (or SEAL_ELEMENT)
  --conversation ID       default: the hook's session_id (or SEAL_CONVERSATION)
  --now SECONDS           time to verify at (default: the clock, or SEAL_NOW)
";

/// `seal hook .. pre-tool-use --help`.
pub const HOOK_TOOL: &str = "\
usage: seal hook <claude-code|codex> pre-tool-use [flags] < hook-input.json

Decides tool_name / tool_input with the rules; answers
{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":..,
\"permissionDecisionReason\":..}} and exit 0. Any failure answers deny.
Codex: allow is answered as {} (no decision), ask as deny.

  --rules PATH            rules file (or SEAL_RULES)
  --default allow|ask|deny  end of the chain (or SEAL_DEFAULT; default ask)
";
