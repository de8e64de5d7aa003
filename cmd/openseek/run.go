package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/render"
	"github.com/openseek/openseek/protocol"
)

func (c *cli) runCmd() *cobra.Command {
	var (
		noSession, cont   bool
		sysFile, addendum string
		format            string
		j                 jsonRun
		bo                bestOfFlags
	)
	cmd := &cobra.Command{
		Use:   "run [flags] [--] [task...]",
		Short: "Run one task headlessly; stream JSONL events on stdout",
		Long: `Run one task headlessly. The words of the task are joined; with none, the task
is read from standard input; with task words, piped input is added to the
task as context (git diff | openseek run "review this"). Events stream on
stdout as JSONL when stdout is not a terminal, as readable text when it is
(--format forces either); --format json prints one result object when the
run ends instead. Exit status: 0 the turn finished, 1 usage error or the run
could not start, 2 the turn failed, 3 the model or provider failed, 4 the
prompt was refused, 5 a limit was hit, 130 interrupted.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if bo.asked(cmd) {
				return c.runBestOf(cmd, args, &bo, format)
			}
			if err := j.check(cmd, args); err != nil {
				return err
			}
			if j.inputFormat == "json" {
				return c.runJSON(cmd, &j, noSession, cont, sysFile, addendum, format)
			}
			task, err := c.taskWords(args)
			if err != nil {
				return err
			}
			if task == "" {
				return errors.New(`a task is required: openseek run "what to do"`)
			}
			if c.asksApproval() {
				return fmt.Errorf("--approval %s needs a controller to ask: this command reads no commands, so use never (refuse escalation) or always (grant it unasked)", c.g.approval)
			}
			if noSession && (c.g.session != "" || cont) {
				return errors.New("--no-session contradicts --session; pick one behavior")
			}
			if cont && c.g.session != "" {
				return errors.New("--continue contradicts --session; pick one session")
			}
			host, err := c.newHost(cmd, sysFile, addendum)
			if err != nil {
				return err
			}
			defer host.Close()
			// Check the model and key before anything is created or printed.
			if _, err := host.ResolveModel(cmd.Context()); err != nil {
				return err
			}
			if format == "json" {
				c.report = newRunReport()
			}
			sess, err := c.openSession(cmd.Context(), host, engine.OpenOptions{NoSession: noSession, Continue: cont, ID: c.g.session, Holder: "openseek run"}, format)
			if err != nil {
				return err
			}
			defer sess.close()
			out, err := sess.Prompt(cmd.Context(), protocol.Text(task), nil)
			if err == nil && j.reviewGate && out.OK() {
				out, err = c.reviewGate(cmd.Context(), cmd, sess, out, j.reviewDeadline)
			}
			if c.report != nil {
				fmt.Fprintf(c.stdout, "%s\n", marshalResult(c.report.result(out, err, noSession)))
			}
			if err != nil {
				return err
			}
			if code := exitCode(out); code != exitDone {
				return exitError(code)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&noSession, "no-session", false, "run ephemerally (no durable session)")
	f.BoolVar(&cont, "continue", false, "continue the most recent session of the workspace")
	f.StringVar(&sysFile, "system-prompt-file", c.getenv("OPENSEEK_SYSTEM_PROMPT_FILE"), "complete system prompt replacement [env OPENSEEK_SYSTEM_PROMPT_FILE]")
	f.StringVar(&addendum, "system-prompt-addendum-file", c.getenv("OPENSEEK_SYSTEM_PROMPT_ADDENDUM_FILE"), "appended to the system prompt [env OPENSEEK_SYSTEM_PROMPT_ADDENDUM_FILE]")
	f.StringVar(&format, "format", "", "output: jsonl (the event stream), text, or json (one result object at the end; docs/schema/run-result.v1.json) (default: text on a terminal, jsonl otherwise)")
	j.addFlags(f)
	bo.addFlags(f)
	return cmd
}

// engineOptions turns the global flags into the host's options.
func (c *cli) engineOptions(cmd *cobra.Command, sysFile, addendum string) (engine.Options, error) {
	sys, err := engine.ReadPromptFile(sysFile, "--system-prompt-file")
	if err != nil {
		return engine.Options{}, err
	}
	add, err := engine.ReadPromptFile(addendum, "--system-prompt-addendum-file")
	if err != nil {
		return engine.Options{}, err
	}
	if err := engine.CheckApproval(c.g.approval); err != nil {
		return engine.Options{}, err
	}
	if c.g.maxCost < 0 {
		return engine.Options{}, fmt.Errorf("--max-cost must not be negative, not %g", c.g.maxCost)
	}
	if c.g.maxSteps < 0 {
		return engine.Options{}, fmt.Errorf("--max-steps must be positive, not %d", c.g.maxSteps)
	}
	switch c.g.thinking {
	case "no", "high", "max":
	default:
		return engine.Options{}, fmt.Errorf("--thinking must be no, high or max, not %q", c.g.thinking)
	}
	dir, err := filepath.Abs(c.g.dir)
	if err != nil {
		return engine.Options{}, err
	}
	// A reasoning knob the user did not choose is decided by the host
	// once the model is known.
	thinking := ""
	if cmd.Flags().Changed("thinking") || c.getenv("OPENSEEK_THINKING") != "" {
		thinking = c.g.thinking
	}
	return engine.Options{
		Dir:                  dir,
		Cwd:                  c.g.cwd,
		SessionRoot:          c.g.sessionRoot,
		Model:                c.g.model,
		APIKey:               c.g.apiKey,
		APIURL:               c.g.apiURL,
		Thinking:             thinking,
		MaxSteps:             c.g.maxSteps,
		MaxCost:              c.g.maxCost,
		Window:               c.g.window,
		SystemPrompt:         sys,
		SystemPromptAddendum: add,
		Getenv:               c.getenv,
		Home:                 c.getenv("HOME"),
		GlobalSkillsDir:      c.g.skillsDir,
		TrustWorkspace:       c.g.trustWS,
		MCPConfig:            c.g.mcpConfig,
		Approval:             c.g.approval,
		NoSandbox:            c.g.noSandbox,
		Network:              c.g.network,
		NoVerify:             c.g.noVerify,
		Tools:                c.g.tools,
	}, nil
}

// sink returns where events go for the chosen output format: readable
// text (coloured and live only on a terminal that allows it) or JSONL.
func (c *cli) sink(format string, cost render.CostFunc) (func(protocol.Event), error) {
	text := func() func(protocol.Event) {
		tty := isTerminal(c.stderr)
		return render.NewText(c.stdout, c.stderr, render.Options{Color: render.ColorAllowed(tty, c.getenv), Live: tty, Cost: cost}).Emit
	}
	switch format {
	case "":
		if isTerminal(c.stdout) {
			return text(), nil
		}
		fallthrough
	case "json":
		if c.report != nil {
			return c.report.observe, nil // run prints one result at the end
		}
		fallthrough
	case "jsonl":
		w := protocol.NewWriter(c.stdout)
		return func(e protocol.Event) { _ = w.Emit(e) }, nil
	case "text":
		return text(), nil
	}
	return nil, fmt.Errorf("--format must be jsonl, json or text, not %q", format)
}

// prepareDir resolves the workspace directory, creating its last
// component when the parent exists.
func prepareDir(dir string) (abs string, created bool, err error) {
	abs, err = filepath.Abs(dir)
	if err != nil {
		return "", false, err
	}
	st, err := os.Stat(abs)
	switch {
	case err == nil && st.IsDir():
		return abs, false, nil
	case err == nil:
		return "", false, fmt.Errorf("--dir %s is not a directory", dir)
	case !errors.Is(err, os.ErrNotExist):
		return "", false, fmt.Errorf("--dir %s: %w", dir, err)
	}
	parent := filepath.Dir(abs)
	if st, err := os.Stat(parent); err != nil || !st.IsDir() {
		return "", false, fmt.Errorf("--dir %s: parent directory %s does not exist", dir, parent)
	}
	if err := os.Mkdir(abs, 0o755); err != nil {
		return "", false, fmt.Errorf("--dir %s: %w", dir, err)
	}
	return abs, true, nil
}

func isTerminal(v any) bool {
	f, ok := v.(interface{ Fd() uintptr })
	return ok && f.Fd() != ^uintptr(0) && term.IsTerminal(int(f.Fd()))
}

// MaxPipedInput bounds what run reads from standard input.
const MaxPipedInput = 8 << 20

// readPiped reads piped standard input. When it is the task itself
// (wait), it reads to the end; when it only adds context to task words,
// an input that sends nothing within a second (a pipe inherited from a
// parent that never writes) is taken as empty rather than waited for.
func readPiped(in io.Reader, wait bool) (string, error) {
	type result struct {
		data []byte
		err  error
	}
	first := make(chan struct{})
	done := make(chan result, 1)
	go func() {
		r := &firstByte{r: io.LimitReader(in, MaxPipedInput+1), first: first}
		data, err := io.ReadAll(r)
		done <- result{data, err}
	}()
	if !wait {
		select {
		case <-first:
		case res := <-done:
			return checkPiped(res.data, res.err)
		case <-time.After(time.Second):
			return "", nil
		}
	}
	res := <-done
	return checkPiped(res.data, res.err)
}

func checkPiped(data []byte, err error) (string, error) {
	if err != nil {
		return "", fmt.Errorf("read standard input: %w", err)
	}
	if len(data) > MaxPipedInput {
		return "", fmt.Errorf("standard input is over %d MiB; pass a file path in the task instead", MaxPipedInput>>20)
	}
	return strings.TrimSpace(string(data)), nil
}

// firstByte closes first when the first byte arrives.
type firstByte struct {
	r     io.Reader
	first chan struct{}
	seen  bool
}

func (f *firstByte) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if n > 0 && !f.seen {
		f.seen = true
		close(f.first)
	}
	return n, err
}

// taskWords is the task given as words, joined with what is piped on
// stdin (which alone is the task when no words were given).
func (c *cli) taskWords(args []string) (string, error) {
	task := strings.TrimSpace(strings.Join(args, " "))
	if isTerminal(c.stdin) {
		return task, nil
	}
	piped, err := readPiped(c.stdin, task == "")
	if err != nil {
		return "", err
	}
	switch {
	case task == "":
		return piped, nil
	case piped != "":
		return task + "\n\n<stdin>\n" + piped + "\n</stdin>", nil
	}
	return task, nil
}

// bestOfNames are run's best-of-N flags (bestOfFlags.addFlags), --runs
// first.
var bestOfNames = []string{"runs", "concurrency", "verify", "judge", "apply", "keep"}

// asked reports whether any best-of-N flag was given: run then goes
// through runBestOf (which wants --runs with the others).
func (b *bestOfFlags) asked(cmd *cobra.Command) bool {
	for _, name := range bestOfNames {
		if cmd.Flags().Changed(name) {
			return true
		}
	}
	return false
}
