// Command openseek is a coding agent: it gives a language model tools to
// work on a code base (shell, files, edits, background jobs) and records
// every step in an append-only session log.
//
// This file only wires flags to the engine and a frontend; see the
// packages under internal/ for everything else.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/spf13/pflag"

	"github.com/openseek/openseek/internal/engine"
	// The sandbox's helper and sandboxed commands, re-executions of this
	// binary, become what they were started as during package
	// initialisation, before most packages initialise.
	_ "github.com/openseek/openseek/internal/engine/entry"
)

// exitError carries a process exit status without an error message
// (the frontend already reported what happened).
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes the command line and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// A closed stdout (`openseek run … | head -1`) must not kill the
	// process mid-turn: the write fails instead, and the run ends
	// cleanly, recorded, as if cancelled.
	signal.Ignore(syscall.SIGPIPE)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stdout = &outWriter{w: stdout, closed: func(err error) { cancel(fmt.Errorf("standard output was closed: %w", err)) }}
	root := newRoot(&cli{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv})
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	var code exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	default:
		fmt.Fprintf(stderr, "error: %s\n", strings.TrimPrefix(err.Error(), "error: "))
		return 1
	}
}

// cli holds the streams and environment of one invocation.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	g              globals
	envErrs        []error    // environment values that did not parse
	report         *runReport // run --format json: the result gathered from the events
}

// globals are the options every subcommand accepts.
type globals struct {
	apiKey, model, apiURL, thinking string
	maxSteps, window                int
	session, sessionRoot, dir       string
	approval, mcpConfig, skillsDir  string
	noSandbox, network, trustWS     bool
	noVerify                        bool
	cwd                             string // where the user is, when --dir was found above it
	maxCost                         float64
	tools                           string
}

func newRoot(c *cli) *cobra.Command {
	var rootTUI tuiFlags
	root := &cobra.Command{
		Use:   "openseek",
		Short: "OpenSeek: a coding agent for DeepSeek, Kimi, GLM and any OpenAI-compatible model",
		Long: `OpenSeek gives a language model tools to work on your code base — shell with
background jobs, reading, editing and writing files — and records every step
in an append-only session log under .openseek/ that can be resumed and shown.

  openseek                                 the interactive terminal UI
  openseek run "fix the failing test"      run one task headlessly
  openseek serve                           JSONL commands in, JSONL events out
  openseek sessions list                   sessions of this workspace`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				hint := ""
				if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
					hint = fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
				}
				return fmt.Errorf("unexpected value '%s' found; no more were expected%s", args[0], hint)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// On a terminal, bare openseek is the interactive UI.
			if isTerminal(c.stdin) && isTerminal(c.stdout) {
				return c.runTUI(cmd, rootTUI)
			}
			return errors.New("the following required argument was not provided: 'subcommand'")
		},
		Version: version(),
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if err := errors.Join(c.envErrs...); err != nil {
				return err
			}
			if !cmd.Flags().Changed("dir") {
				c.findProjectRoot()
			}
			return nil
		},
	}
	root.SetFlagErrorFunc(flagError)
	rootTUI.bind(root, c)
	f := root.PersistentFlags()
	f.StringVar(&c.g.apiKey, "api-key", "", "API key for the selected chat provider (default: the provider's environment variable)")
	f.StringVar(&c.g.model, "model", c.getenv("OPENSEEK_MODEL"), "provider/model, a model name or a profile (default: the config's model, else deepseek-v4-flash) [env OPENSEEK_MODEL]")
	f.StringVar(&c.g.apiURL, "api-url", c.getenv("OPENSEEK_API_URL"), "full OpenAI-compatible chat-completions URL; any model name is accepted with it [env OPENSEEK_API_URL]")
	f.IntVar(&c.g.maxSteps, "max-steps", c.envInt("OPENSEEK_MAX_STEPS"), "max model calls per turn; 0 = unbounded [env OPENSEEK_MAX_STEPS]")
	f.IntVar(&c.g.window, "context-window", c.envInt("OPENSEEK_CONTEXT_WINDOW"), "context window in tokens for models the catalogue does not know [env OPENSEEK_CONTEXT_WINDOW]")
	f.Float64Var(&c.g.maxCost, "max-cost", c.envFloat("OPENSEEK_MAX_COST"), "cost budget of the session in USD, sub-agents included: a turn never sends a request that could pass it (default: [budget] max_cost) [env OPENSEEK_MAX_COST]")
	f.StringVar(&c.g.thinking, "thinking", envOr(c.getenv, "OPENSEEK_THINKING", "high"), "reasoning effort: no, high or max [env OPENSEEK_THINKING]")
	f.StringVar(&c.g.session, "session", "", "create or resume this durable session id")
	f.StringVar(&c.g.sessionRoot, "session-root", ".openseek", "directory holding sessions (relative roots resolve under --dir)")
	f.StringVar(&c.g.dir, "dir", ".", "workspace root; its last component is created if its parent exists")
	f.StringVar(&c.g.approval, "approval", envOr(c.getenv, "OPENSEEK_APPROVAL", "never"), "permission mode: auto (run what the sandbox contains, ask for more; the default of the terminal UI, serve --http and acp), never (refuse escalation; the default elsewhere), ask (ask for anything not read-only), always, plan (read-only) or full-access (no sandbox) [env OPENSEEK_APPROVAL]")
	f.BoolVar(&c.g.noSandbox, "no-sandbox", c.getenv("OPENSEEK_SANDBOX") == "off", "run commands without the OS sandbox [env OPENSEEK_SANDBOX=off]")
	f.BoolVar(&c.g.network, "network", c.getenv("OPENSEEK_NETWORK") == "on", "let sandboxed commands use the network [env OPENSEEK_NETWORK=on]")
	f.StringVar(&c.g.mcpConfig, "mcp-config", c.getenv("OPENSEEK_MCP_CONFIG"), "a JSON file of MCP servers ({\"mcpServers\": …}), trusted by being named [env OPENSEEK_MCP_CONFIG]")
	f.StringVar(&c.g.skillsDir, "global-skills-dir", c.getenv("OPENSEEK_GLOBAL_SKILLS_DIR"), "user-level skills directory (default ~/.openseek/skills) [env OPENSEEK_GLOBAL_SKILLS_DIR]")
	f.BoolVar(&c.g.noVerify, "no-verify", c.getenv("OPENSEEK_VERIFY") == "off", "do not run the project's check (build, type check) after a turn that changed files [env OPENSEEK_VERIFY=off]")
	f.BoolVar(&c.g.trustWS, "trust-workspace", false, "trust this repository's .mcp.json, .openseek/hooks.json and .openseek/config.toml for this run")
	f.StringVar(&c.g.tools, "tools", c.getenv("OPENSEEK_TOOLS"), "change the built-in tools: +apply_patch,-multi_edit adds and removes; bare names (read,grep,finish) are the exact set [env OPENSEEK_TOOLS]")
	root.AddCommand(c.runCmd(), c.serveCmd(), c.tuiCmd(), c.sessionsCmd(), c.mcpCmd(), c.trustCmd(), c.rulesCmd(), c.modelsCmd(), c.doctorCmd())
	root.AddCommand(c.applyPatchCmd(), c.proxyConnectCmd())
	root.AddCommand(c.rewindCmd(), c.reviewCmd())
	root.AddCommand(c.workflowCmd())
	root.AddCommand(c.exportCmd(), c.replayCmd(), c.importCmd())
	root.AddCommand(c.versionCmd(), c.acpCmd(), c.inspectCmd(), c.subrunCmd(), c.editCmd(), c.tasksCmd(), c.workerCmd())
	root.SuggestionsMinimumDistance = 2
	scopeHelp(root)
	for _, sub := range root.Commands() {
		sub.SetFlagErrorFunc(flagError)
	}
	return root
}

// apiKeyWarning is printed when a key is given on the command line, where
// every process of the user can read it (sandboxed commands cannot: their
// PID namespace hides this process).
const apiKeyWarning = "openseek: warning: --api-key is readable by every process of this user (ps, /proc/<pid>/cmdline); prefer the provider's variable (e.g. DEEPSEEK_API_KEY) or api_key_command in ~/.openseek/config.toml"

// flagError translates pflag's messages into the reference's wording.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "unknown flag: "):
		flag := strings.TrimPrefix(msg, "unknown flag: ")
		if near := similarFlag(cmd, strings.TrimPrefix(flag, "--")); near != "" {
			return fmt.Errorf("unexpected argument '%s' found; did you mean '--%s'?", flag, near)
		}
		return fmt.Errorf("unexpected argument '%s' found", flag)
	case strings.HasPrefix(msg, "unknown shorthand flag: "):
		var ch string
		fmt.Sscanf(strings.TrimPrefix(msg, "unknown shorthand flag: "), "%q", &ch)
		return fmt.Errorf("unexpected argument '-%s' found", strings.Trim(ch, "'"))
	case strings.HasPrefix(msg, "flag needs an argument: "):
		name := strings.TrimPrefix(msg, "flag needs an argument: ")
		if i := strings.Index(name, " "); i > 0 {
			name = name[:i]
		}
		name = strings.Trim(name, "'")
		if !strings.HasPrefix(name, "-") {
			name = "-" + name
		}
		return fmt.Errorf("a value is required for '%s' but none was supplied", name)
	}
	return err
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

// envFloat reads a non-negative number variable, like envInt.
func (c *cli) envFloat(key string) float64 {
	v := strings.TrimSpace(c.getenv(key))
	if v == "" {
		return 0
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n < 0 {
		c.envErrs = append(c.envErrs, fmt.Errorf("%s=%q is not a number ≥ 0; fix or unset it", key, v))
		return 0
	}
	return n
}

// envInt reads an integer variable; a value that is not a whole number
// is remembered as an error naming the variable, reported before any
// command runs.
func (c *cli) envInt(key string) int {
	v := strings.TrimSpace(c.getenv(key))
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		c.envErrs = append(c.envErrs, fmt.Errorf("%s=%q is not a whole number ≥ 0; fix or unset it", key, v))
		return 0
	}
	return n
}

var _ = pflag.ErrHelp

// outWriter is stdout: the first failed write (a closed pipe) calls
// closed, which cancels the command; later writes are dropped.
type outWriter struct {
	w      io.Writer
	failed atomic.Bool
	closed func(error)
}

func (o *outWriter) Write(p []byte) (int, error) {
	if o.failed.Load() {
		return len(p), nil
	}
	n, err := o.w.Write(p)
	if err != nil && o.failed.CompareAndSwap(false, true) {
		o.closed(err)
	}
	return n, err
}

// Fd is the descriptor of the stream below, so terminal checks still see it.
func (o *outWriter) Fd() uintptr {
	if f, ok := o.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// rawStdout is the stream below the closed-pipe guard, for a frontend
// that drives the terminal itself (the TUI needs the terminal's file).
func (c *cli) rawStdout() io.Writer {
	if o, ok := c.stdout.(*outWriter); ok {
		return o.w
	}
	return c.stdout
}

// similarFlag is the command's flag (its own or inherited) nearest to a
// mistyped name, at an edit distance of at most 2 (a swap counts one), or
// "" when none is that near.
func similarFlag(cmd *cobra.Command, name string) string {
	best, bestD := "", 3
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := editDistance(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return best
}

// editDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and swaps of neighbours.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// interactiveApproval makes auto the permission mode of a face a person
// answers (the terminal UI, the web app, an editor), unless --approval or
// OPENSEEK_APPROVAL chose one: what the sandbox contains runs unasked,
// what needs more is asked about.
func (c *cli) interactiveApproval(cmd *cobra.Command) {
	if !cmd.Flags().Changed("approval") && c.getenv("OPENSEEK_APPROVAL") == "" {
		c.g.approval = "auto"
	}
}

// asksApproval: the chosen permission mode asks a controller (auto, ask),
// which a face nobody answers (run, a worker, mcp serve) must refuse.
func (c *cli) asksApproval() bool { return engine.ApprovalAsks(c.g.approval) }
