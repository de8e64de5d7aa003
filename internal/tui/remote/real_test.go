package remote

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/server/httpapi"
	"github.com/openseek/openseek/internal/tui"
	"github.com/openseek/openseek/protocol"
)

// Against the real HTTP server, attached with the URL it prints (token in
// the fragment): a session on disk that is not open is resumed by the
// client's POST (the server's GETs change nothing), prompted, and its
// turn streams back.
func TestAttachToTheRealServer(t *testing.T) {
	model := llmtest.NewServer(t, llmtest.Text("first answer"), llmtest.Text("second answer"))
	// The turns run no command: what is tested is the HTTP client and the
	// server's resume, so the sandbox would only add its build time (the
	// faces suite drives `tui --attach`'s server with the sandbox on).
	h, err := engine.NewHost(context.Background(), engine.Options{
		Dir: t.TempDir(), Home: t.TempDir(), Model: "test-model", APIURL: model.URL(), NoSandbox: true,
		Retry:  llm.RetryPolicy{Attempts: 2, Base: time.Millisecond, Max: time.Millisecond},
		Getenv: func(string) string { return "" },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s, err := h.Open(context.Background(), engine.OpenOptions{ID: "ondisk"})
	if err != nil {
		t.Fatal(err)
	}
	sub := s.Subscribe(0)
	if err := s.Apply(protocol.PromptCmd{Content: protocol.Text("one")}); err != nil {
		t.Fatal(err)
	}
	for done := false; !done; {
		entries, err := sub.Next(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			done = done || e.Event.EventName() == "turn_summary"
		}
	}
	sub.Close()
	s.Close()

	b := attachTo(t, h)
	c, err := b.Open(context.Background(), tui.OpenRequest{ID: "ondisk"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.History() == nil || len(c.History().Events) == 0 {
		t.Fatalf("no history: %+v", c.History())
	}
	if _, open := h.Get("ondisk"); !open {
		t.Fatal("attaching did not resume the session")
	}
	if err := c.Apply(context.Background(), protocol.PromptCmd{Content: protocol.Text("two")}); err != nil {
		t.Fatal(err)
	}
	rctx, rcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer rcancel()
	var answer string
	for answer == "" {
		evs, err := c.Next(rctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if m, ok := e.(protocol.AssistantMessage); ok {
				answer = m.Content
			}
		}
	}
	if answer != "second answer" {
		t.Errorf("answer %q", answer)
	}
}

// Attached to a session the server runs on another model than its
// default, the client shows that model and its context window (the
// status line's model and context %), not the catalogue's default.
func TestAttachShowsTheServedModel(t *testing.T) {
	llmSrv := llmtest.NewServer(t)
	home := t.TempDir()
	conf := "[providers.local]\nbase_url = \"" + strings.TrimSuffix(llmSrv.URL(), "/chat/completions") + "\"\nno_key = true\n\n" +
		"[models.\"local/a\"]\nwindow = 64000\n\n[models.\"local/b\"]\nwindow = 200000\n"
	if err := os.MkdirAll(filepath.Join(home, ".openseek"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := engine.NewHost(context.Background(), engine.Options{
		// No command runs: the test reads which model the server names, so
		// the sandbox would only add its build time.
		Dir: t.TempDir(), Home: home, Model: "local/a", NoSandbox: true, Getenv: func(string) string { return "" },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	s, err := h.Open(context.Background(), engine.OpenOptions{ID: "on-b", Model: "local/b"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	b := attachTo(t, h)
	for _, c := range []struct {
		id, model string
		window    int
	}{{"on-b", "local/b", 200000}, {"", "local/a", 64000}} {
		conn, err := b.Open(context.Background(), tui.OpenRequest{ID: c.id})
		if err != nil {
			t.Fatal(err)
		}
		if conn.Model() != c.model || conn.Window() != c.window {
			t.Errorf("session %q: model %q window %d, want %s %d", c.id, conn.Model(), conn.Window(), c.model, c.window)
		}
		conn.Close()
	}
}

// attachTo serves h over the real HTTP server (stopped at the test's end)
// and returns a client attached with the URL it prints.
func attachTo(t *testing.T, h *engine.Host) *Backend {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httpapi.New(h, httpapi.Options{Token: "real-token"})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-served })
	b, err := New(httpapi.URL(ln, "/", "real-token"), "")
	if err != nil {
		t.Fatal(err)
	}
	return b
}
