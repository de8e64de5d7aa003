//go:build !headless

package main

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"mvdan.cc/sh/v3/syntax"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/tui"
	"github.com/openseek/openseek/internal/tui/remote"
)

func (c *cli) tuiCmd() *cobra.Command {
	var tf tuiFlags
	cmd := &cobra.Command{
		Use:   "tui",
		Short: "The interactive terminal UI (also what bare `openseek` opens on a terminal)",
		Long: `Open the full-screen interactive agent in the current workspace. Type a task;
while a turn runs, what you type steers it. /help lists keys and commands.
--attach URL drives a running ` + "`openseek serve --http`" + ` instead of an
in-process engine (the URL it printed, with #token=…).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return c.runTUI(cmd, tf) },
	}
	tf.bind(cmd, c)
	return cmd
}

// runTUI opens the UI on the in-process host or an attached server.
func (c *cli) runTUI(cmd *cobra.Command, tf tuiFlags) error {
	if !isTerminal(c.stdin) || !isTerminal(c.stdout) {
		return errors.New("the terminal UI needs a terminal: run it in one, or use `openseek run \"task\"` or `openseek serve` from scripts")
	}
	if tf.cont && c.g.session != "" {
		return errors.New("--continue contradicts --session; pick one session")
	}
	c.interactiveApproval(cmd)
	opts := tui.Options{
		Open:     tui.OpenRequest{ID: c.g.session, Continue: tf.cont},
		NoColor:  c.getenv("NO_COLOR") != "",
		Throttle: 40 * time.Millisecond,
	}
	var backend tui.Backend
	if tf.attach != "" {
		rb, err := remote.New(tf.attach, c.getenv("OPENSEEK_HTTP_TOKEN"))
		if err != nil {
			return err
		}
		if cmd.Flags().Changed("model") {
			opts.Open.Model = c.g.model
		}
		backend = rb
		if u, err := url.Parse(tf.attach); err == nil {
			opts.Workspace = "attached to " + u.Host // the server's workspace; no token on screen
		}
	} else {
		host, err := c.tuiHost(cmd, tf)
		if err != nil {
			return err
		}
		if _, _, err := prepareDir(c.g.dir); err != nil {
			host.Close()
			return err
		}
		opts.Approval = c.g.approval
		opts.Workspace = host.Workspace()
		opts.FilesRoot = host.Workspace()
		backend = &tui.Local{Host: host, Holder: "openseek tui", Home: c.getenv("HOME")}
	}
	settings, err := c.tuiSettings(backend)
	if err != nil {
		backend.Close()
		return err
	}
	opts.Bell = settings.Bell
	opts.Inline = tf.inline || settings.Inline
	opts.ResumeHint = c.resumeHint(cmd, tf)
	defer backend.Close()
	return tui.Run(cmd.Context(), backend, opts, c.stdin, c.rawStdout())
}

// tuiSettings reads [tui]: from the host's config (the user's file and a
// workspace's), or the user's file alone when attached to a server.
func (c *cli) tuiSettings(b tui.Backend) (engine.TUISettings, error) {
	if l, ok := b.(*tui.Local); ok {
		return l.Host.Config().TUI()
	}
	cfg, err := engine.LoadConfig(c.getenv("HOME"), "", c.getenv, false)
	if err != nil {
		return engine.TUISettings{}, err
	}
	return cfg.TUI()
}

// tuiHost is the in-process host with its model resolved. A first run
// without a key gets the guided setup instead of an error: the key (or
// the command that prints it) is stored in ~/.openseek/config.toml, 0600,
// and the host is built again from it.
func (c *cli) tuiHost(cmd *cobra.Command, tf tuiFlags) (*engine.Host, error) {
	host, err := c.newHost(cmd, tf.sysFile, tf.addendum)
	if err != nil {
		return nil, err
	}
	_, err = host.ResolveModel(cmd.Context())
	var missing *engine.MissingKeyError
	if err == nil || !errors.As(err, &missing) {
		if err != nil {
			host.Close()
		}
		return host, err
	}
	models := host.Models()
	host.Close()
	home := c.getenv("HOME")
	where := engine.UserConfigPath(home)
	choice, err := tui.RunSetup(cmd.Context(), tui.SetupRequest{Missing: missing, Models: models, Where: where,
		NoColor: c.getenv("NO_COLOR") != ""}, c.stdin, c.rawStdout())
	if err != nil {
		return nil, err
	}
	if err := engine.SaveSetup(home, choice); err != nil {
		return nil, fmt.Errorf("store the key: %w", err)
	}
	if choice.Model != "" && cmd.Flags().Changed("model") {
		c.g.model = choice.Model // the model chosen now, not the flag's, for this run
	}
	host, err = c.newHost(cmd, tf.sysFile, tf.addendum)
	if err != nil {
		return nil, err
	}
	if _, err := host.ResolveModel(cmd.Context()); err != nil {
		host.Close()
		return nil, err
	}
	return host, nil
}

// resumeHint is the command line that opens a session again in this UI,
// printed when it quits: bare openseek on a terminal is the UI, and the
// flags that chose the workspace or the server come along.
func (c *cli) resumeHint(cmd *cobra.Command, tf tuiFlags) func(id string) string {
	return func(id string) string {
		args := []string{"openseek", "--session", id}
		if cmd.Flags().Changed("dir") {
			if abs, err := filepath.Abs(c.g.dir); err == nil {
				args = append(args, "--dir", abs)
			}
		}
		if tf.attach != "" {
			args = append(args, "tui", "--attach", tf.attach)
		}
		for i, a := range args {
			if q, err := syntax.Quote(a, syntax.LangPOSIX); err == nil {
				args[i] = q
			}
		}
		return strings.Join(args, " ")
	}
}
