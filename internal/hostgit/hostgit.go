// Package hostgit runs the git binary on the host, for every part of
// OpenSeek that does (snapshots and rewind, review, worker worktrees,
// fleet workspaces), with a configuration under which nothing a workspace
// or a repository holds makes git run a program.
//
// A workspace is written by the model, and may come from anyone; git
// reads much of it: a repository's config (.git/config, or wherever a
// .git file points), .gitattributes, .gitmodules, nested repositories.
// Each can name a program for git to run: core.fsmonitor, hooks, filter
// drivers (clean, smudge, process), diff drivers (textconv, command), the
// pager, editors, the ssh command, askpass and credential helpers. So
// every git process started here:
//
//   - reads no system or global configuration (GIT_CONFIG_NOSYSTEM,
//     GIT_CONFIG_GLOBAL=/dev/null) and no GIT_* variable of the caller's
//     (GIT_SSH_COMMAND, GIT_EXTERNAL_DIFF, GIT_CONFIG_PARAMETERS, …);
//   - gets, at command-line precedence (-c, above any repository's),
//     settings that turn off fsmonitor, hooks, the pager, editors, a
//     repository's ssh command, askpass, credential helpers, signature
//     checks, the ext:: transport, submodule recursion and implicitly
//     found bare repositories;
//   - unless the repository's configuration is OpenSeek's own
//     ([Git.OwnConfig]), first lists that configuration's keys (git config
//     --list, which runs nothing) and empties every driver it defines:
//     filter.<x>.clean, smudge and process (and required=false),
//     credential.<url>.helper, remote.<x>.uploadpack and receivepack.
//     A driver's name is the repository's choice, so it cannot be
//     switched off in advance; a driver that .gitattributes selects
//     without a definition does nothing.
//
// A diff driver's textconv and command, and diff.external, cannot be
// switched off by a setting (an empty one is run, and fails): diff, log
// and show get --no-ext-diff and --no-textconv. Callers pass
// --ignore-submodules=dirty where git would otherwise start itself in a
// nested repository, whose own configuration was not listed. Merges and
// network operations in an existing repository (whose multi-valued
// core.gitProxy no -c can override) are not run through here.
package hostgit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// hardening is the configuration every git process gets on its command
// line (-c), above the repository's own.
var hardening = []string{
	"core.fsmonitor=false",
	"core.hooksPath=" + os.DevNull,
	"core.pager=cat",
	"core.editor=:",
	"sequence.editor=:",
	"core.sshCommand=ssh",
	"core.askPass=",
	"core.alternateRefsCommand=",
	"credential.helper=",
	"diff.ignoreSubmodules=dirty",
	"submodule.recurse=false",
	"log.showSignature=false",
	"protocol.ext.allow=never",
	"safe.bareRepository=explicit",
}

// Git runs git in one directory.
type Git struct {
	// Dir is git's working directory ("" = this process's).
	Dir string
	// Env is added to the hardened environment: GIT_DIR, GIT_WORK_TREE,
	// GIT_INDEX_FILE, identities, GIT_OPTIONAL_LOCKS=0 and the like.
	Env []string
	// OwnConfig says the repository's configuration is OpenSeek's own
	// (the snapshot side repository, named by GIT_DIR in Env): it
	// defines no driver, so it is not listed before each command.
	OwnConfig bool
}

// Error is a git command that exited with a non-zero status.
type Error struct {
	Args   []string
	Code   int
	Stderr string
}

func (e *Error) Error() string {
	return "git " + Verb(e.Args) + ": " + e.Message()
}

// Message is git's complaint: its standard error, trimmed, else the
// exit status.
func (e *Error) Message() string {
	if msg := strings.TrimSpace(e.Stderr); msg != "" {
		return msg
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

// ErrNotInstalled is returned (wrapped) when there is no git binary.
var ErrNotInstalled = errors.New("the git binary is not installed (apt-get install git)")

// Verb is the subcommand of a git command line (after any -c pairs and
// global options).
func Verb(args []string) string {
	if i := verbAt(args); i >= 0 {
		return args[i]
	}
	return ""
}

func verbAt(args []string) int {
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-c" || args[i] == "-C":
			i++
		case strings.HasPrefix(args[i], "-"):
		default:
			return i
		}
	}
	return -1
}

// diffVerbs are the commands that run diff drivers (textconv, command)
// and diff.external unless told not to; each gets --no-ext-diff and
// --no-textconv. OpenSeek runs no other command that does (blame, merges,
// git apply --3way).
var diffVerbs = map[string]bool{"diff": true, "log": true, "show": true}

// Output runs git and returns its standard output, trimmed.
func (g Git) Output(ctx context.Context, args ...string) (string, error) {
	out, _, err := g.Run(ctx, args...)
	return strings.TrimSpace(out), err
}

// Run runs git and returns its standard output and standard error,
// whatever its exit status; a non-zero status is an *Error.
func (g Git) Run(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	var drivers []string
	if !g.OwnConfig {
		if drivers, err = g.drivers(ctx); err != nil {
			return "", "", err
		}
	}
	return g.run(ctx, drivers, args)
}

func (g Git) run(ctx context.Context, extra, args []string) (string, string, error) {
	full := make([]string, 0, 1+2*(len(hardening)+len(extra))+len(args))
	full = append(full, "--no-pager")
	for _, kv := range hardening {
		full = append(full, "-c", kv)
	}
	for _, kv := range extra {
		full = append(full, "-c", kv)
	}
	full = append(full, args...)
	if v := verbAt(args); v >= 0 && diffVerbs[args[v]] {
		// A diff driver's textconv or command, and diff.external, have no
		// value that switches them off: only these options do.
		at := len(full) - len(args) + v + 1
		full = append(full[:at], append([]string{"--no-ext-diff", "--no-textconv"}, full[at:]...)...)
	}
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Dir = g.Dir
	cmd.Env = Environ(g.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A cancelled git is killed; its children (if any) must not hold
	// the call open through its pipes.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), nil
	case errors.As(err, &ee) && ee.ExitCode() > 0:
		return stdout.String(), stderr.String(), &Error{Args: args, Code: ee.ExitCode(), Stderr: stderr.String()}
	case errors.Is(err, exec.ErrNotFound):
		return "", "", fmt.Errorf("git %s: %w", Verb(args), ErrNotInstalled)
	}
	return stdout.String(), stderr.String(), fmt.Errorf("git %s: %w", Verb(args), err)
}

// Environ is the environment of a git process: this process's without
// any GIT_* variable, the settings that cut off the system and global
// configuration, prompts, pagers and editors, then extra.
func Environ(extra ...string) []string {
	env := make([]string, 0, len(os.Environ())+8+len(extra))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_PAGER=cat",
		"GIT_EDITOR=:",
		"GIT_SEQUENCE_EDITOR=:",
		// Messages are parsed: git's own words.
		"LC_ALL=C",
	)
	return append(env, extra...)
}

// driverKeys are the per-name keys that make git run a program, and the
// value that switches each off.
var driverKeys = map[[2]string]string{
	{"filter", "clean"}:       "",
	{"filter", "smudge"}:      "",
	{"filter", "process"}:     "",
	{"filter", "required"}:    "false",
	{"credential", "helper"}:  "",
	{"remote", "uploadpack"}:  "git-upload-pack",
	{"remote", "receivepack"}: "git-receive-pack",
}

// drivers lists the repository's configuration (git config --list runs
// no program) and returns -c settings that switch off each driver it
// defines.
func (g Git) drivers(ctx context.Context) ([]string, error) {
	out, _, err := g.run(ctx, nil, []string{"config", "--list", "--name-only", "-z"})
	if err != nil {
		return nil, fmt.Errorf("read the repository's git configuration: %w", err)
	}
	return neutralise(out)
}

// neutralise turns git config --list --name-only -z output into the -c
// settings that switch off the drivers it defines.
func neutralise(list string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, name := range strings.Split(list, "\x00") {
		first, last := strings.IndexByte(name, '.'), strings.LastIndexByte(name, '.')
		if first < 0 || first == last || seen[name] {
			continue // no subsection: not a driver
		}
		off, ok := driverKeys[[2]string{strings.ToLower(name[:first]), strings.ToLower(name[last+1:])}]
		if !ok {
			continue
		}
		if strings.ContainsAny(name, "=\n") {
			// -c cannot name it, so it cannot be switched off.
			return nil, fmt.Errorf("the repository's git configuration defines %q, a driver whose name git's -c cannot override; openseek does not run git in it", name)
		}
		seen[name] = true
		out = append(out, name+"="+off)
	}
	return out, nil
}
