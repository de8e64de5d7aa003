package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// Two agent calls in one message run as sub-agents with their own
// sessions <parent>-sr-N; their reports come back as the tool results.
func TestSubagentsRunInTheirOwnSessions(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(
			llmtest.Call{ID: "a1", Name: "agent", Args: `{"description":"count files","prompt":"Report: FILES-OK"}`},
			llmtest.Call{ID: "a2", Name: "agent", Args: `{"description":"count lines","prompt":"Report: LINES-OK"}`},
		),
		llmtest.Text("child report"),
		llmtest.Text("child report"),
		llmtest.Text("both children reported"),
	)
	srv.MultiConversation()
	e, rec, ws := newEngine(t, srv, func(o *testOptions) { o.SessionID = "p" })
	out, err := e.Prompt(context.Background(), protocol.Text("delegate"), nil)
	if err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	var started, finished int
	for _, ev := range rec.evs {
		switch v := ev.(type) {
		case protocol.SubrunStarted:
			started++
			if !strings.HasPrefix(v.ID, "p-sr-") || v.Kind != "general" {
				t.Errorf("subrun_started %+v", v)
			}
		case protocol.SubrunFinished:
			finished++
			if v.Status != "captured" || v.Steps != 1 || v.PromptTokens == 0 {
				t.Errorf("subrun_finished %+v", v)
			}
		}
	}
	if started != 2 || finished != 2 {
		t.Errorf("%d started, %d finished", started, finished)
	}
	// The children's sessions exist, are linked to the parent and hold
	// their own prompt.
	store := session.NewStore(filepath.Join(ws, ".openseek"))
	for _, id := range []string{"p-sr-1", "p-sr-2"} {
		s, err := store.Load(id)
		if err != nil {
			t.Fatalf("child session %s: %v", id, err)
		}
		first := s.Events[0].Item.(*session.Notice).Content
		if !strings.Contains(first, "of session p") {
			t.Errorf("child %s not linked to its parent: %q", id, first)
		}
	}
	// Results are recorded in call order with the children's reports.
	var results []string
	for _, ev := range e.Session().Events {
		if r, ok := ev.Item.(*session.ToolResult); ok {
			results = append(results, r.ToolCallID+"="+r.Content.Text())
		}
	}
	if strings.Join(results, ",") != "a1=child report,a2=child report" {
		t.Errorf("results %v", results)
	}
}

func TestCustomAgentWithUnknownToolIsReported(t *testing.T) {
	srv := llmtest.NewServer(t)
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".openseek", "agents"), 0o755)
	os.WriteFile(filepath.Join(ws, ".openseek", "agents", "rev.md"), []byte("---\nname: rev\ndescription: reviews\ntools: read, teleport\n---\nReview the code.\n"), 0o644)
	rec := &recorder{}
	e, err := openRuntime(t, testOptions{Dir: ws, Model: "m", APIURL: srv.URL(), Home: t.TempDir(), Getenv: func(string) string { return "" }, Emit: rec.emit})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var notice string
	for _, ev := range rec.evs {
		if n, ok := ev.(protocol.BackgroundNotice); ok {
			notice = n.Content
		}
	}
	if !strings.Contains(notice, `unknown tool "teleport"`) {
		t.Errorf("no clear error for the unknown tool: %q", notice)
	}
}

func TestCancelReachesSubagents(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "agent", Args: `{"description":"hang","prompt":"wait"}`}),
		llmtest.Stall{After: 1},
	)
	srv.MultiConversation()
	e, rec, _ := newEngine(t, srv, nil)
	go func() {
		for !rec.has("subrun_started") {
			runtimeGosched()
		}
		e.Cancel()
	}()
	out, err := e.Prompt(context.Background(), protocol.Text("go"), nil)
	if err != nil || out.Kind != session.Interrupted {
		t.Fatalf("%+v %v", out, err)
	}
	for _, ev := range rec.evs {
		if f, ok := ev.(protocol.SubrunFinished); ok && f.Status != "cancelled" {
			t.Errorf("child status %q, want cancelled", f.Status)
		}
	}
}
