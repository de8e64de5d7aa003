//go:build headless

// The headless build (`go build -tags headless ./cmd/openseek`) leaves out
// what a person at a terminal or a browser uses — the terminal UI, the
// fleet with its embedded NATS server, the HTTP server and web app, the
// session viewer, ACP and best-of-N — and keeps everything headless use
// needs: run, serve (JSONL), mcp, sessions, rewind, review, subrun, edit
// and the rest, with the same flags and behaviour. It links 21 MB instead
// of 48 and starts a third faster (README: Headless build). The commands
// left out stay in the command tree and say how to get them.

package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
)

// notInThisBuild is the error of a command or flag the headless build
// leaves out.
func notInThisBuild(what string) error {
	return fmt.Errorf("%s is not in this openseek, built for headless use (-tags headless); install the full binary: CGO_ENABLED=0 go install ./cmd/openseek", what)
}

// absent is a command the headless build leaves out: listed with its
// usual summary, it accepts any arguments and fails with notInThisBuild.
func absent(use, short, what string) *cobra.Command {
	return &cobra.Command{
		Use:                use,
		Short:              short + " (not in the headless build)",
		DisableFlagParsing: true,
		RunE:               func(*cobra.Command, []string) error { return notInThisBuild(what) },
	}
}

func (c *cli) runTUI(*cobra.Command, tuiFlags) error { return notInThisBuild("the terminal UI") }

func (c *cli) tuiCmd() *cobra.Command {
	return absent("tui", "The interactive terminal UI", "the terminal UI")
}

func (c *cli) tasksCmd() *cobra.Command {
	return absent("tasks", "Queue background tasks for workers and follow them", "the fleet (openseek tasks)")
}

func (c *cli) workerCmd() *cobra.Command {
	return absent("worker", "Run queued tasks (openseek tasks add) until stopped", "the fleet (openseek worker)")
}

func (c *cli) acpCmd() *cobra.Command {
	return absent("acp", "Agent Client Protocol over stdio, for editors", "ACP (openseek acp)")
}

// exportHTML is export --format html, whose page is the session viewer's.
func exportHTML(io.Writer, *engine.Log) error {
	return notInThisBuild("the HTML export (export --format html; md and jsonl are here)")
}

func (c *cli) inspectCmd() *cobra.Command {
	return absent("inspect [ID]", "Serve the read-only session viewer", "the session viewer (openseek inspect)")
}

// maxRuns is fleet.MaxRuns, which the headless build does not link (the
// run --help of both builds shows it: TestHeadlessBuild).
const maxRuns = 32

func (c *cli) runBestOf(*cobra.Command, []string, *bestOfFlags, string) error {
	return notInThisBuild("best-of-N (run --runs)")
}

// httpDefaultAddr is httpapi.DefaultAddr, which the headless build does
// not link (the serve --help of both builds shows it: TestHeadlessBuild).
const httpDefaultAddr = "127.0.0.1:7878"

func (c *cli) serveHTTP(*cobra.Command, httpFlags, string, string) error {
	return notInThisBuild("the HTTP server and web app (serve --http)")
}
