// Package sandbox confines the shell commands and background jobs the agent
// runs: on Linux each command runs in its own user, mount, PID and (unless
// the network is allowed) network namespace, with Landlock limiting writes
// to the workspace and the temporary directories, the protected paths
// (.git, .openseek, the user's config) bind-mounted read-only so they can
// be neither written nor replaced, no capabilities, a seccomp filter and
// PR_SET_NO_NEW_PRIVS.
//
// How it runs: Go cannot run ordinary code between fork and exec, so
// [Policy.Wrap] rewrites a command to start /proc/self/exe with the policy
// in the OPENSEEK_SANDBOX_CHILD environment variable and the real argv
// after it; the parent asks for the namespaces through SysProcAttr (an
// ordinary user gets the few capabilities the setup needs as ambient
// ones, valid only in the new namespaces). [Main], called first thing in
// main() (and in the TestMain of every package whose tests run sandboxed
// commands), sees the marker and becomes the PID namespace's init: it
// mounts a private /proc, makes the host's language caches read-only and
// points the tools at private ones (Policy.Caches, Policy.CacheDir),
// without network hides /tmp, /var/tmp, /run, /var/run and
// $XDG_RUNTIME_DIR behind empty tmpfs mounts (keeping the workspace),
// bind-mounts the protected paths read-only, applies Landlock, drops every
// capability (bounding set, ambient, securebits locked), loads the seccomp
// filter (no mount family, namespaces, ptrace, bpf, perf, keyrings,
// userfaultfd, modules or kexec) and then starts the command, reaps
// orphans, and exits with the command's status — taking everything the
// command left behind with it.
//
// That costs a program start per command, so [Policy.Start] (what the
// jobs package uses) keeps one such sandbox alive per policy as a helper
// (helper_linux.go, helperd_linux.go): built once, it stops short of
// confining itself and, for each command it is handed over a socket
// (with the command's stdin, stdout and stderr), forks a supervisor into
// a new PID and mount namespace. The supervisor — raw system calls only,
// prepared beforehand (fork_linux.go) — mounts that namespace's /proc,
// sets no_new_privs, enters its own Landlock domain, drops every
// capability, loads the seccomp filter, tells the parent its pid and
// forks the command, then reaps until the command ends and exits with its
// status. Each command keeps every guarantee below; only the build is
// shared. A dead helper is replaced at the next command; a helper that
// cannot be built leaves its commands to Wrap, which reports why.
//
// On amd64 the supervisor and its command's process are not forks: they
// are cloned with CLONE_VM (clonevm_linux_amd64.s) and share the
// helper's memory, each on a stack of its own, until the command's exec
// gives it its own — as vfork does, without a copy of the helper's page
// tables per process and the copy-on-write faults after it, which cost
// more than the command on a virtual machine. The code they run writes
// only their stacks, their plan and their spare buffer, which the helper
// keeps untouched until it has reaped them. The helper is not dumpable,
// so a command cannot reach that shared memory through /proc/1/mem (it
// would need CAP_SYS_PTRACE). Other architectures fork.
//
// The helper is the fast path, used only where it is known good: a gc
// build of a Go release the suite passed with, OPENSEEK_SANDBOX_REEXEC
// unset (startpath.go, [StartPath]). Elsewhere every command takes
// Wrap's re-exec path, with the same guarantees.
//
// The helper also keeps a spare: a supervisor, confined, with its
// command's process started and waiting, built when a command ends (while
// the model thinks). The next command goes straight to that process over
// the spare's socket — it acknowledges with "run", enters the directory
// and execs — so a step pays for one exec. A spare made before a
// protected path appeared, or before the private caches were, is stale
// and set aside; one still being made is waited for, since the helper
// would make it before it served the command anyway.
//
// Invariants:
//   - a wrapped command either runs with the whole policy applied or does
//     not run at all: when any step fails the child prints
//     "openseek sandbox: …" and exits 126 — it never falls back to running
//     unsandboxed;
//   - when the command ends, or the process group is killed, or this
//     program dies, every process the command started ends too (`cmd &`,
//     `setsid cmd &`, nohup): they live in the command's PID namespace;
//   - with Network false the command sees an empty network namespace (not
//     even loopback is up; with a Proxy, loopback and the proxy's listener
//     at ProxyAddr alone, served from outside) and private temporary and
//     runtime directories,
//     and the seccomp filter refuses UNIX sockets but connected stream
//     and seqpacket pairs, socket families the namespace does not confine
//     (vsock), and io_uring, so no socket of the host is reachable,
//     wherever in the file system it lives;
//   - commands of one Policy.Session share its helper's private /tmp;
//     those of different sessions never do;
//   - a path in ReadOnly stays read-only even inside the workspace and
//     cannot be renamed, removed or replaced by a symlink; a ReadOnly path
//     that does not exist when the command starts is not protected; with
//     ReadOnlyWorkspace (plan mode) the whole workspace is;
//   - a command cannot write the host's language caches; its tools write
//     private ones;
//   - [Detect] reports what the kernel offers, [Support.Problems] says in
//     plain words why a policy cannot be enforced here, and [Policy.Try]
//     builds the sandbox and runs a command in it; callers must not claim
//     a sandbox unless Try succeeds (running unsandboxed is the user's
//     explicit choice, made by the caller).
//
// [FilterEnv] drops environment variables whose names look like secrets
// (*KEY*, *TOKEN*, *SECRET*, *PASSWORD*, AWS_*, the providers' DEEPSEEK,
// KIMI, GLM, …) unless allowed; [Secrets] also drops variables holding a
// key the process knows under any name, and redacts those keys from tool
// output. The jobs package applies them to every command, sandboxed or not.
//
// On systems other than Linux, Detect reports nothing available, Wrap and
// Try fail and Main does nothing.
package sandbox
