package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/prompt"
	"github.com/openseek/openseek/internal/render"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

func (c *cli) runCmd() *cobra.Command {
	var (
		noSession, cont   bool
		sysFile, addendum string
		format            string
	)
	cmd := &cobra.Command{
		Use:   "run [flags] [--] [task...]",
		Short: "Run one task headlessly; stream JSONL events on stdout",
		Long: `Run one task headlessly. The words of the task are joined; with none, the task
is read from standard input. Events stream on stdout as JSONL when stdout is
not a terminal, as readable text when it is (--format forces either). Exit
status 0 when the turn finished, 1 otherwise.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			task := strings.TrimSpace(strings.Join(args, " "))
			if task == "" && !isTerminal(c.stdin) {
				data, err := io.ReadAll(c.stdin)
				if err != nil {
					return fmt.Errorf("read the task from stdin: %w", err)
				}
				task = strings.TrimSpace(string(data))
			}
			if task == "" {
				return errors.New(`a task is required: openseek run "what to do"`)
			}
			if c.g.approval == "ask" {
				return errors.New("--approval ask needs a controller to ask: this command reads no commands, so use never (refuse escalation) or always (grant it unasked)")
			}
			if noSession && (c.g.session != "" || cont) {
				return errors.New("--no-session contradicts --session; pick one behavior")
			}
			if cont && c.g.session != "" {
				return errors.New("--continue contradicts --session; pick one session")
			}
			opts, err := c.engineOptions(cmd, sysFile, addendum)
			if err != nil {
				return err
			}
			opts.NoSession, opts.Continue, opts.Holder = noSession, cont, "openseek run"
			// Check the config, model and key before anything is created
			// or printed.
			res, err := engine.Resolve(opts)
			if err != nil {
				return err
			}
			emit, err := c.sink(format, costFunc(res.Price))
			if err != nil {
				return err
			}
			opts.Resolved = res
			eng, err := c.startEngine(opts, emit)
			if err != nil {
				return err
			}
			defer eng.Close()
			out, err := eng.Prompt(cmd.Context(), protocol.Text(task), nil)
			// A turn that reached the context ceiling was checkpointed;
			// a headless run carries on from the summary.
			for yields := 0; err == nil && out.Kind == session.ContextYield && yields < maxYields; yields++ {
				out, err = eng.Prompt(cmd.Context(), protocol.Text(continuePrompt), nil)
			}
			if err != nil {
				return err
			}
			if !out.OK() {
				return exitError(1)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&noSession, "no-session", false, "run ephemerally (no durable session)")
	f.BoolVar(&cont, "continue", false, "continue the most recent session of the workspace")
	f.StringVar(&sysFile, "system-prompt-file", c.getenv("OPENSEEK_SYSTEM_PROMPT_FILE"), "complete system prompt replacement [env OPENSEEK_SYSTEM_PROMPT_FILE]")
	f.StringVar(&addendum, "system-prompt-addendum-file", c.getenv("OPENSEEK_SYSTEM_PROMPT_ADDENDUM_FILE"), "appended to the system prompt [env OPENSEEK_SYSTEM_PROMPT_ADDENDUM_FILE]")
	f.StringVar(&format, "format", "", "output: jsonl or text (default: text on a terminal, jsonl otherwise)")
	return cmd
}

// A headless run continues after this many context-ceiling checkpoints
// at most, with this prompt.
const (
	maxYields      = 20
	continuePrompt = "Continue the task from the checkpoint summary."
)

// costFunc prices usage with a price table (nil when it is unknown).
func costFunc(p llm.Price) render.CostFunc {
	if p == (llm.Price{}) {
		return nil
	}
	return func(u protocol.Usage) (float64, bool) {
		return p.Cost(u.PromptCacheHitTokens, u.PromptCacheMissTokens, u.CompletionTokens), true
	}
}

// costOf prices usage for the selected model when its price is known
// without a key (sessions show works offline), and names that model: a
// session does not record which model's prices apply.
func (c *cli) costOf() (render.CostFunc, string) {
	dir, _ := filepath.Abs(c.g.dir)
	cfg, err := config.Load(c.getenv("HOME"), dir, c.getenv)
	if err != nil {
		return nil, ""
	}
	spec := c.g.model
	if spec == "" {
		spec = cfg.Model
	}
	if spec == "" {
		spec = config.DefaultSpec
	}
	for _, m := range cfg.List() {
		if m.Spec() == spec || m.Name == spec {
			return costFunc(m.Price), m.Spec()
		}
	}
	return nil, ""
}

// engineOptions turns the global flags into engine options.
func (c *cli) engineOptions(cmd *cobra.Command, sysFile, addendum string) (engine.Options, error) {
	sys, err := prompt.ReadFile(sysFile, "--system-prompt-file")
	if err != nil {
		return engine.Options{}, err
	}
	add, err := prompt.ReadFile(addendum, "--system-prompt-addendum-file")
	if err != nil {
		return engine.Options{}, err
	}
	if _, err := policy.ParseMode(c.g.approval); err != nil {
		return engine.Options{}, err
	}
	if c.g.maxSteps < 0 {
		return engine.Options{}, fmt.Errorf("--max-steps must be positive, not %d", c.g.maxSteps)
	}
	switch c.g.thinking {
	case "no", "high", "max":
	default:
		return engine.Options{}, fmt.Errorf("--thinking must be no, high or max, not %q", c.g.thinking)
	}
	thinking := c.g.thinking
	if _, known := llm.LookupModel(c.g.model); !known && !cmd.Flags().Changed("thinking") && c.getenv("OPENSEEK_THINKING") == "" {
		// A model of an arbitrary server may reject reasoning knobs
		// (OpenAI's gpt-4o refuses reasoning_effort): send none unless asked.
		thinking = ""
	}
	dir, err := filepath.Abs(c.g.dir)
	if err != nil {
		return engine.Options{}, err
	}
	return engine.Options{
		Dir:                  dir,
		SessionRoot:          c.g.sessionRoot,
		SessionID:            c.g.session,
		Model:                c.g.model,
		APIKey:               c.g.apiKey,
		APIURL:               c.g.apiURL,
		Thinking:             thinking,
		MaxSteps:             c.g.maxSteps,
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
	}, nil
}

// sink returns where events go for the chosen output format.
func (c *cli) sink(format string, cost render.CostFunc) (func(protocol.Event), error) {
	switch format {
	case "":
		if isTerminal(c.stdout) {
			return render.NewText(c.stdout, c.stderr, cost).Emit, nil
		}
		fallthrough
	case "jsonl", "json":
		w := protocol.NewWriter(c.stdout)
		return func(e protocol.Event) { _ = w.Emit(e) }, nil
	case "text":
		return render.NewText(c.stdout, c.stderr, cost).Emit, nil
	}
	return nil, fmt.Errorf("--format must be jsonl or text, not %q", format)
}

// startEngine creates the workspace directory if needed (reporting
// workspace_created) and builds the engine that emits to emit.
func (c *cli) startEngine(opts engine.Options, emit func(protocol.Event)) (*engine.Engine, error) {
	dir, created, err := prepareDir(c.g.dir)
	if err != nil {
		return nil, err
	}
	opts.Dir, opts.Emit = dir, emit
	if created {
		emit(protocol.WorkspaceCreated{Dir: dir})
	}
	if opts.APIKey != "" {
		fmt.Fprintln(c.stderr, apiKeyWarning)
	}
	return engine.New(opts)
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
	f, ok := v.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
