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
	"syscall"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/sandbox"
	"github.com/spf13/pflag"
)

// exitError carries a process exit status without an error message
// (the frontend already reported what happened).
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func main() {
	// A sandboxed command starts as a re-execution of this binary that
	// confines itself and then becomes the command; it never returns.
	sandbox.Main()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes the command line and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
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
	envErrs        []error // environment values that did not parse
}

// globals are the options every subcommand accepts.
type globals struct {
	apiKey, model, apiURL, thinking string
	maxSteps, window                int
	session, sessionRoot, dir       string
	approval, mcpConfig, skillsDir  string
	noSandbox, network, trustWS     bool
	noVerify                        bool
	tools                           string
}

func newRoot(c *cli) *cobra.Command {
	root := &cobra.Command{
		Use:   "openseek",
		Short: "OpenSeek: a coding agent for DeepSeek, Kimi, GLM and any OpenAI-compatible model",
		Long: `OpenSeek gives a language model tools to work on your code base — shell with
background jobs, reading, editing and writing files — and records every step
in an append-only session log under .openseek/ that can be resumed and shown.

  openseek run "fix the failing test"      run one task headlessly
  openseek serve                           JSONL commands in, JSONL events out
  openseek sessions list                   sessions of this workspace`,
		SilenceErrors: true,
		SilenceUsage:  true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unexpected value '%s' found; no more were expected", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return errors.New("the following required argument was not provided: 'subcommand'")
		},
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return errors.Join(c.envErrs...)
		},
	}
	root.SetFlagErrorFunc(flagError)
	f := root.PersistentFlags()
	f.StringVar(&c.g.apiKey, "api-key", "", "API key for the selected chat provider (default: the provider's environment variable)")
	f.StringVar(&c.g.model, "model", c.getenv("OPENSEEK_MODEL"), "provider/model, a model name or a profile (default: the config's model, else deepseek-v4-flash) [env OPENSEEK_MODEL]")
	f.StringVar(&c.g.apiURL, "api-url", c.getenv("OPENSEEK_API_URL"), "full OpenAI-compatible chat-completions URL; any model name is accepted with it [env OPENSEEK_API_URL]")
	f.IntVar(&c.g.maxSteps, "max-steps", c.envInt("OPENSEEK_MAX_STEPS"), "max model calls per turn; 0 = unbounded [env OPENSEEK_MAX_STEPS]")
	f.IntVar(&c.g.window, "context-window", c.envInt("OPENSEEK_CONTEXT_WINDOW"), "context window in tokens for models the catalogue does not know [env OPENSEEK_CONTEXT_WINDOW]")
	f.StringVar(&c.g.thinking, "thinking", envOr(c.getenv, "OPENSEEK_THINKING", "high"), "reasoning effort: no, high or max [env OPENSEEK_THINKING]")
	f.StringVar(&c.g.session, "session", "", "create or resume this durable session id")
	f.StringVar(&c.g.sessionRoot, "session-root", ".openseek", "directory holding sessions (relative roots resolve under --dir)")
	f.StringVar(&c.g.dir, "dir", ".", "workspace root; its last component is created if its parent exists")
	f.StringVar(&c.g.approval, "approval", envOr(c.getenv, "OPENSEEK_APPROVAL", "never"), "permission mode: never (refuse escalation), ask (ask the controller; serve only), always, plan (read-only) or full-access (no sandbox) [env OPENSEEK_APPROVAL]")
	f.BoolVar(&c.g.noSandbox, "no-sandbox", c.getenv("OPENSEEK_SANDBOX") == "off", "run commands without the OS sandbox [env OPENSEEK_SANDBOX=off]")
	f.BoolVar(&c.g.network, "network", c.getenv("OPENSEEK_NETWORK") == "on", "let sandboxed commands use the network [env OPENSEEK_NETWORK=on]")
	f.StringVar(&c.g.mcpConfig, "mcp-config", c.getenv("OPENSEEK_MCP_CONFIG"), "a JSON file of MCP servers ({\"mcpServers\": …}), trusted by being named [env OPENSEEK_MCP_CONFIG]")
	f.StringVar(&c.g.skillsDir, "global-skills-dir", c.getenv("OPENSEEK_GLOBAL_SKILLS_DIR"), "user-level skills directory (default ~/.openseek/skills) [env OPENSEEK_GLOBAL_SKILLS_DIR]")
	f.BoolVar(&c.g.noVerify, "no-verify", c.getenv("OPENSEEK_VERIFY") == "off", "do not run the project's check (build, type check) after a turn that changed files [env OPENSEEK_VERIFY=off]")
	f.BoolVar(&c.g.trustWS, "trust-workspace", false, "trust this repository's .mcp.json and .openseek/hooks.json for this run")
	f.StringVar(&c.g.tools, "tools", c.getenv("OPENSEEK_TOOLS"), "change the built-in tools: +apply_patch,-multi_edit adds and removes; bare names (read,grep,finish) are the exact set [env OPENSEEK_TOOLS]")
	root.AddCommand(c.runCmd(), c.serveCmd(), c.sessionsCmd(), c.mcpCmd(), c.trustCmd(), c.rulesCmd(), c.modelsCmd(), c.doctorCmd())
	root.AddCommand(c.applyPatchCmd())
	root.AddCommand(c.rewindCmd(), c.reviewCmd())
	root.AddCommand(c.tasksCmd(), c.workerCmd())
	root.SetHelpCommand(&cobra.Command{Hidden: true})
	for _, sub := range root.Commands() {
		sub.SetFlagErrorFunc(flagError)
	}
	return root
}

// flagError translates pflag's messages into the reference's wording.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "unknown flag: "):
		return fmt.Errorf("unexpected argument '%s' found", strings.TrimPrefix(msg, "unknown flag: "))
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
