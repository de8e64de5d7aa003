package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/fleet"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/server/httpapi"
	"github.com/openseek/openseek/protocol"
)

// TestHeadlessBuild builds the binary as the README's headless install
// does and checks what it promises: nothing of the terminal UI, the fleet,
// the HTTP server or ACP is linked; run works end to end, sandbox and
// session included; what is left out fails with the way to get it.
func TestHeadlessBuild(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "openseek")
	build := exec.Command("go", "build", "-tags", "headless", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags headless: %v\n%s", err, out)
	}
	list := exec.Command("go", "list", "-tags", "headless", "-deps", ".")
	deps, err := list.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, left := range []string{
		"github.com/openseek/openseek/internal/tui",
		"github.com/openseek/openseek/internal/fleet",
		"github.com/openseek/openseek/internal/server/httpapi",
		"github.com/openseek/openseek/internal/server/acp",
		"github.com/nats-io/nats-server/v2/server",
		"charm.land/bubbletea/v2",
		"go.opentelemetry.io/otel/sdk/trace",
	} {
		for dep := range strings.Lines(string(deps)) {
			if strings.TrimSpace(dep) == left {
				t.Errorf("the headless build links %s", left)
			}
		}
	}

	ws := t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Reply{Calls: []llmtest.Call{{ID: "c1", Name: "shell", Args: `{"cmd":"echo headless > note.txt"}`}}},
		llmtest.Text("done"),
		llmtest.Text("hello"),
	)
	srv.MultiConversation()
	r := runBinary(t, bin, ws, "", nil, append(modelArgs(srv), "run", "write a note")...)
	if r.code != 0 {
		t.Fatalf("run: exit %d\nstderr: %s", r.code, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "note.txt")); err != nil || string(b) != "headless\n" {
		t.Errorf("the command's file: %q, %v", b, err)
	}
	if len(find[protocol.AgentFinished](r.events)) != 1 {
		t.Errorf("no agent_finished: %v", names(r.events))
	}
	// Telemetry is left out: the standard variable, perhaps set for
	// other programs, turns it off with a warning; the run goes on.
	otel := runBinary(t, bin, ws, "", []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9"}, append(modelArgs(srv), "--format", "text", "run", "--no-session", "hi")...)
	if otel.code != 0 || !strings.Contains(otel.stdout+otel.stderr, "telemetry is not in this openseek, built for headless use") {
		t.Errorf("telemetry in the headless build: exit %d\n%s%s", otel.code, otel.stdout, otel.stderr)
	}
	if h := runBinary(t, bin, ws, "", nil, "serve", "--help"); !strings.Contains(h.stdout, httpapi.DefaultAddr) {
		t.Errorf("serve --help of the headless build does not name %s:\n%s", httpapi.DefaultAddr, h.stdout)
	}
	// The left-out commands' flags are declared once, for both builds:
	// run --help reads as the full build's, and the terminal UI's flags on
	// the bare root are known (not "unknown flag").
	if h := runBinary(t, bin, ws, "", nil, "run", "--help"); !strings.Contains(h.stdout, fmt.Sprintf("run the task N ways at once (1-%d)", fleet.MaxRuns)) || !strings.Contains(h.stdout, "--judge ") {
		t.Errorf("run --help of the headless build has not the full build's best-of-N flags:\n%s", h.stdout)
	}
	if r := runBinary(t, bin, ws, "", nil, "--attach", "http://127.0.0.1:9/", "--continue"); r.code != 1 || strings.Contains(r.stderr, "unknown flag") {
		t.Errorf("openseek --attach URL --continue in the headless build: exit %d, %q", r.code, r.stderr)
	}
	if s := runBinary(t, bin, ws, "", nil, "sessions", "list"); s.code != 0 || !strings.Contains(s.stdout, "cli-") {
		t.Errorf("sessions list: exit %d, %q %q", s.code, s.stdout, s.stderr)
	}

	for _, args := range [][]string{
		{"tui"},
		{"tasks", "list"},
		{"worker", "--name", "w"},
		{"acp"},
		{"inspect"},
		{"serve", "--http"},
		{"run", "--runs", "3", "task"},
		{"run", "--runs", "3", "--judge", "--concurrency", "2", "task"},
	} {
		r := runBinary(t, bin, ws, "", nil, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "built for headless use") || !strings.Contains(r.stderr, "go install ./cmd/openseek") {
			t.Errorf("openseek %s: exit %d, stderr %q; want 1 and how to get it", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}
