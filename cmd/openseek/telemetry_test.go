package main

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/internal/telemetry/otlptest"
)

// telemetryHome writes a user config with a priced model served by srv,
// plus extra (a [telemetry] table or nothing).
func telemetryHome(t *testing.T, srv *llmtest.Server, extra string) string {
	t.Helper()
	home := t.TempDir()
	conf := "model = \"local/m\"\n[providers.local]\nbase_url = \"" + strings.TrimSuffix(srv.URL(), "/chat/completions") + "\"\nno_key = true\n\n" +
		"[models.\"local/m\"]\nwindow = 128000\nprice = { input_hit = 1000, input_miss = 1000, output = 1000 }\n" + extra
	writeTree(t, home, map[string]string{".openseek/config.toml": conf})
	return home
}

// TestRunExportsTelemetry: a `run` (sandbox on) whose model calls the
// shell exports, by the time it exits, a span for the turn, one per model
// request and one for the tool call, with tokens, cost, the tool's name
// and exit status, and the metrics — and the prompt's text only with
// log_prompts = true. The tool's output is never sent.
func TestRunExportsTelemetry(t *testing.T) {
	t.Parallel()
	const (
		prompt = "PROMPT-7731 count the files"
		output = "OUT5PUT-5521" // what the command prints; its text is not in the arguments
		answer = "ANSWER-9917"
	)
	for _, logPrompts := range []bool{false, true} {
		t.Run("log_prompts="+strconv.FormatBool(logPrompts), func(t *testing.T) {
			rcv := otlptest.Start(t)
			srv := llmtest.NewServer(t,
				llmtest.Reply{Calls: []llmtest.Call{{ID: "c1", Name: "shell", Args: `{"cmd":"echo OUT$((2+3))PUT-5521; exit 3"}`}}},
				llmtest.Text(answer))
			var env []string
			extra := ""
			if logPrompts {
				extra = "\n[telemetry]\notlp_endpoint = \"" + rcv.URL + "\"\nlog_prompts = true\n"
			} else {
				env = append(env, "OTEL_EXPORTER_OTLP_ENDPOINT="+rcv.URL) // the standard variable alone
			}
			home := telemetryHome(t, srv, extra)
			r := openseek(t, t.TempDir(), "", append(env, "HOME="+home), "run", "--format", "text", prompt)
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			// No wait: the run flushed its spans before it exited.
			spans := rcv.Spans()
			byName := map[string][]otlptest.Span{}
			for _, s := range spans {
				byName[s.Name] = append(byName[s.Name], s)
			}
			if len(byName["turn"]) != 1 || len(byName["chat m"]) != 2 || len(byName["execute_tool shell"]) != 1 {
				t.Fatalf("want 1 turn, 2 chat m, 1 execute_tool shell span; got %+v", spans)
			}
			turn := byName["turn"][0]
			if turn.Attrs["openseek.turn.outcome"] != "finished" || turn.Attrs["openseek.turn.steps"] != "2" ||
				turn.Attrs["gen_ai.request.model"] != "m" || turn.Attrs["openseek.session.id"] == "" || turn.Attrs["openseek.cost_usd"] == "" {
				t.Errorf("turn span attributes: %v", turn.Attrs)
			}
			hits := 0
			for _, c := range byName["chat m"] {
				if c.Parent != turn.ID {
					t.Errorf("model request %s is not a child of the turn %s", c.Parent, turn.ID)
				}
				if n, _ := strconv.Atoi(c.Attrs["gen_ai.usage.input_tokens"]); n <= 0 || c.Attrs["gen_ai.usage.output_tokens"] == "" {
					t.Errorf("model request without tokens: %v", c.Attrs)
				}
				if c.Attrs["openseek.cost_usd"] == "" || c.Attrs["gen_ai.operation.name"] != "chat" {
					t.Errorf("model request attributes: %v", c.Attrs)
				}
				if n, _ := strconv.Atoi(c.Attrs["openseek.usage.cache_hit_tokens"]); n > 0 {
					hits++
				}
			}
			if hits == 0 {
				t.Errorf("the second request shares the first's prefix, yet no span has cache hits: %+v", byName["chat m"])
			}
			call := byName["execute_tool shell"][0]
			if call.Parent != turn.ID || call.Attrs["gen_ai.tool.name"] != "shell" || call.Attrs["openseek.tool.exit_code"] != "3" ||
				call.Attrs["openseek.tool.status"] != "error" || !call.Error {
				t.Errorf("tool span: %+v (turn %s)", call, turn.ID)
			}
			metrics := rcv.Metrics()
			for _, m := range []string{"openseek.tokens", "openseek.cost", "openseek.tool.calls", "openseek.turn.duration", "openseek.model.request.duration"} {
				if !slices.Contains(metrics, m) {
					t.Errorf("metric %s was not exported: %v", m, metrics)
				}
			}
			if rcv.Contains(output) {
				t.Errorf("the tool's output was exported")
			}
			for _, text := range []string{"PROMPT-7731", answer, "exit 3"} {
				if got := rcv.Contains(text); got != logPrompts {
					t.Errorf("%q exported: %v, want %v (log_prompts = %v)", text, got, logPrompts, logPrompts)
				}
			}
			if logPrompts && (turn.Attrs["openseek.prompt"] != prompt || call.Attrs["openseek.tool.arguments"] == "") {
				t.Errorf("log_prompts: turn %v, tool %v", turn.Attrs, call.Attrs)
			}
		})
	}
}

// TestRunWithUnreachableCollector: a collector that is down costs the run
// nothing but one warning.
func TestRunWithUnreachableCollector(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now: connections are refused
	srv := llmtest.NewServer(t, llmtest.Reply{Calls: []llmtest.Call{{ID: "c1", Name: "shell", Args: `{"cmd":"echo hi"}`}}}, llmtest.Text("done"))
	home := telemetryHome(t, srv, "")
	r := openseek(t, t.TempDir(), "", []string{"HOME=" + home, "OTEL_EXPORTER_OTLP_ENDPOINT=" + down}, "run", "--format", "text", "go")
	if r.code != 0 || !strings.Contains(r.stdout, "done") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stderr, "[telemetry] could not export to "+down); n != 1 {
		t.Errorf("want one telemetry warning, got %d:\n%s", n, r.stderr)
	}
}

// TestTelemetryEndpointErrors: a malformed [telemetry] otlp_endpoint is
// an error naming the key, before anything runs; a malformed standard
// variable (maybe set for another program) turns telemetry off with a
// warning.
func TestTelemetryEndpointErrors(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Text("done"))
	home := telemetryHome(t, srv, "")
	r := openseek(t, t.TempDir(), "", []string{"HOME=" + home, "OTEL_EXPORTER_OTLP_ENDPOINT=collector:4317"}, "run", "--format", "text", "go")
	if r.code != 0 || !strings.Contains(r.stderr, "[telemetry] off: OTEL_EXPORTER_OTLP_ENDPOINT") || !strings.Contains(r.stderr, "not an http:// or https:// URL") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if err := os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("[telemetry]\notlp_endpoint = \"ftp://x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = openseek(t, t.TempDir(), "", []string{"HOME=" + home}, "run", "go")
	if r.code == 0 || !strings.Contains(r.stderr, "telemetry.otlp_endpoint") {
		t.Errorf("exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestTelemetryAsOrdinaryUser runs the telemetry tests again as an
// ordinary user, as most people run it.
func TestTelemetryAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestRunExportsTelemetry|TestRunWithUnreachableCollector)$")
}
