// Package policy decides what the agent may do: which shell commands run,
// which need the user's approval, which are refused, and where the file
// tools may write. Key invariant: every simple command of a script is
// judged and the strictest judgement wins (deny > ask > allow), so
// `ls && rm -rf ~` is judged as `rm -rf ~`, not as `ls`.
//
// # Modes (--approval)
//
//   - auto (the default of the interactive faces: the terminal UI, the web
//     app, ACP): what the OS sandbox contains runs unasked — writes in the
//     workspace, builds, tests. A command that needs more is asked about:
//     an escalation (an "ask" rule, sudo/doas/su, an opaque command), a
//     program that uses the network when the sandbox cuts it off (curl,
//     git push/fetch, npm install, …), a redirection that writes outside
//     the workspace and temporary directories, or the model's request to
//     leave the sandbox (the shell tool's escalate). Once allowed it runs
//     outside the sandbox, as Codex's on-request mode does. Without a
//     sandbox nothing is contained, so auto asks like ask.
//   - never (the default of run, serve and workers): nothing is asked. Commands run (inside the OS
//     sandbox) unless a deny rule matches; an escalation — an "ask" rule,
//     sudo/doas/su, a program or script only known at run time, a script
//     that does not parse, a shell reading its script from a pipe — is
//     refused with a reason naming --approval.
//   - ask: the controller is asked (approval_requested) for every command
//     that is not a known-safe read-only command and not allowed by a rule.
//     `openseek run` refuses this mode: it has no controller.
//   - always: escalations are granted unasked; deny rules still apply.
//   - plan: read-only. Only known-safe read-only commands run (an allow
//     rule does not make `make` read-only); every write tool is refused.
//   - full-access: no sandbox; only deny rules refuse.
//
// # Command rules
//
// Config files carry [[rules]] tables (ParseRules, LoadRules):
//
//	[[rules]]
//	pattern = ["git", "push"]
//	decision = "ask"   # or "allow", "deny"
//
// A rule matches a command whose argv starts with the pattern's exact words
// (no globs); the first word also matches a path ending in it. Scripts are
// parsed with mvdan.cc/sh/v3/syntax and every simple command is judged: in
// pipelines, && / || lists, subshells, $(…) and `…`, <(…), function
// bodies, here-documents fed to a shell, bash|sh|zsh -c '…', eval, alias
// bodies, trap actions, find -exec. Env-prefix assignments are stripped;
// sudo, doas, env, nice, nohup, timeout, stdbuf, time, command, builtin,
// exec and xargs are seen through (the wrapped command is matched too).
// A rule matching a wrapper decides everything it wraps; wrappers outside
// the match keep their own judgement (an allow rule for ["ls"] does not
// allow `sudo ls`). Quotes and backslashes are removed before matching
// ("gi"t pu\sh is git push); a word only known at run time ($X, $(…)) may
// be anything, so a deny or ask rule that could match it asks. Every
// matching rule counts and the strictest wins, so a project's rules file
// can add denies but cannot loosen a user's deny. A bad rules file is an
// error "file:line: reason", and the engine must not start with it.
//
// Known-safe read-only commands (ls, cat, grep, rg without --pre, find
// without -exec/-delete, git status/log/diff/show/branch listing, go
// list/vet/version/env, …; see safe.go) run without asking. A write
// redirection (> file, >> file; not /dev/null or 2>&1), or setting PATH,
// LD_*, GIT_* and the like, makes a command not read-only.
//
// # Destructive commands
//
// A recursive delete or a git command that discards work (destructive.go)
// is marked in Verdict.Destructive, and Guard calls its Snapshot hook
// before it runs; one whose target may lie outside the workspace ($HOME,
// ~, /, .. climbing out, a glob or link rooted outside, a word only known
// at run time, a remote) is denied in every mode but full-access.
//
// # Approvals
//
// Broker holds the pending questions (ids ap-1, ap-2, …): Ask emits
// approval_requested (with the prefixes "for this session" covers) and
// blocks until Resolve (the approval command), CancelAll or the context;
// approval_resolved reports the outcome (allowed_once, rejected with the
// user's reason if any, cancelled, or allowed_for_session when the
// controller sent "remember": true, after which commands with the same
// prefixes — program and subcommand: "git push", "go test", "sudo apt
// install", "echo" — run without asking for the rest of the session; a
// compound command needs every part covered, and a prefix allowed inside
// the sandbox does not cover a request to leave it). The model reads a
// rejection's reason in the refused tool's result. An approval for an
// unknown id is an error and approves nothing.
//
// # File tools
//
// Paths reach CheckWrite after tool.Env.Resolve (inside the writable
// roots, symlinks followed). Writes into .git or .openseek (which holds
// config.toml) at any depth, and into the Protected config files, are
// refused in every mode; plan mode refuses all writes. Guard turns a
// verdict into the error text the model sees: what was refused, why, and
// what the user can do.
package policy
