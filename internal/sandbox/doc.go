// Package sandbox confines the shell commands and background jobs the agent
// runs: on Linux each command runs in its own user, mount and (unless the
// network is allowed) network namespace, with Landlock limiting writes to
// the workspace and a few temporary and cache directories, the protected
// paths (.git, .openseek, the user's config) bind-mounted read-only so they
// can be neither written nor replaced, and PR_SET_NO_NEW_PRIVS set.
//
// How it runs: Go cannot run code between fork and exec, so [Policy.Wrap]
// rewrites a command to start /proc/self/exe with the policy in the
// OPENSEEK_SANDBOX_CHILD environment variable and the real argv after it;
// the parent asks for the namespaces through SysProcAttr. [Main], called
// first thing in main() (and in the TestMain of every package whose tests
// run sandboxed commands), sees the marker, applies the policy to itself
// and execs the real command, so the pid, process group, output and exit
// status the caller sees are the command's own.
//
// Invariants:
//   - a wrapped command either runs with the whole policy applied or does
//     not run at all: when any step fails the child prints
//     "openseek sandbox: …" and exits 126 — it never falls back to running
//     unsandboxed;
//   - with Network false the command sees an empty network namespace (not
//     even loopback is up), so connections to any address fail, including
//     local ports and DNS;
//   - a path in ReadOnly stays read-only even inside the workspace and
//     cannot be renamed, removed or replaced by a symlink; a ReadOnly path
//     that does not exist when the command starts is not protected;
//   - [Detect] reports what the kernel offers and [Support.Problems] says in
//     plain words why a policy cannot be enforced here; callers must not
//     claim a sandbox when Problems is not empty (running unsandboxed is
//     the user's explicit choice, made by the caller).
//
// [FilterEnv] drops environment variables whose names look like secrets
// (*_KEY, *_TOKEN, *_SECRET, *PASSWORD*, AWS_*, …) unless allowed; the
// jobs package applies it to every command, sandboxed or not.
//
// On systems other than Linux, Detect reports nothing available, Wrap
// fails and Main does nothing.
package sandbox
