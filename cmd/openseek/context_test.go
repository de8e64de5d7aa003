package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// TestContextAsOrdinaryUser runs the context tests again as an ordinary
// user, as most people run them.
func TestContextAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestRunShowsContextAndCompaction|TestCompactionKeepsRulesAndGoal|TestReadLedgerAnswersUnchangedRereads)$")
}

// compactionHooks writes a user-level hooks.json under home: PreCompact
// touches pre.mark; PostCompact saves its stdin to post.json and replaces
// the summary with replacement.
func compactionHooks(t *testing.T, home, replacement string) (pre, post string) {
	t.Helper()
	pre, post = filepath.Join(home, "pre.mark"), filepath.Join(home, "post.json")
	preSh, postSh := filepath.Join(home, "pre.sh"), filepath.Join(home, "post.sh")
	os.WriteFile(preSh, []byte("#!/bin/sh\ncat > '"+pre+"'\n"), 0o755)
	os.WriteFile(postSh, []byte("#!/bin/sh\ncat > '"+post+"'\nprintf '%s' '{\"hookSpecificOutput\":{\"summary\":\""+replacement+"\"}}'\n"), 0o755)
	os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
	hooks := fmt.Sprintf(`{"hooks":{"PreCompact":[{"hooks":[{"type":"command","command":%q}]}],"PostCompact":[{"matcher":"auto","hooks":[{"type":"command","command":%q}]}]}}`, preSh, postSh)
	if err := os.WriteFile(filepath.Join(home, ".openseek", "hooks.json"), []byte(hooks), 0o644); err != nil {
		t.Fatal(err)
	}
	return pre, post
}

// A run whose context fills up: every answer is followed by the
// context's health, the compaction says what it summarised (in the event
// stream and the session log), the hooks run around it and the after
// hook's summary is the one kept, and the request after it still carries
// the project's rules. A later run in text mode ends with the context
// line, counting the compaction from the log.
func TestRunShowsContextAndCompaction(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte("RULE-ZEBRA: indent with tabs.\n"), 0o644)
	var big strings.Builder
	for i := range 700 {
		fmt.Fprintf(&big, "line %d of the big file\n", i)
	}
	os.WriteFile(filepath.Join(ws, "big.txt"), []byte(big.String()), 0o644)
	pre, post := compactionHooks(t, home, "HOOK-SUMMARY: big.txt was read; report its length.")

	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "r1", Name: "read", Args: `{"path":"big.txt","max_output_chars":50000}`}),
		llmtest.Reply{Summary: true, Text: "MODEL-SUMMARY: the user asked about big.txt, which was read in full."},
		llmtest.Text("big.txt has 700 lines."),
		llmtest.Text("Still 700 lines."),
	)
	env := []string{"HOME=" + home}
	// The window fits the first request (system prompt and the tools'
	// schemas) under the soft ceiling, and not the file's content too.
	args := append(modelArgs(srv), "--context-window", "9000")
	r := openseek(t, ws, "", env, append(args, "run", "how long is big.txt?")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	health := find[protocol.ContextHealth](r.events)
	if len(health) < 3 {
		t.Fatalf("context_health events %+v, want one per answer and one after the compaction; events %v", health, names(r.events))
	}
	if h := health[0]; h.Window != 9000 || h.UsedTokens <= 0 || h.Compactions != 0 {
		t.Errorf("first context_health %+v", h)
	}
	reps := find[protocol.CompactionReport](r.events)
	if len(reps) != 1 {
		t.Fatalf("compaction reports %+v; events %v", reps, names(r.events))
	}
	rep := reps[0]
	if h := health[len(health)-1]; h.Compactions != 1 || h.UsedTokens >= rep.TokensBefore {
		t.Errorf("last context_health %+v, want 1 compaction and fewer tokens than before it (%d)", h, rep.TokensBefore)
	}
	if rep.Trigger != "auto" || rep.Turns != 1 || len(rep.Files) != 1 || rep.Files[0] != "big.txt" || !rep.HookReplaced || rep.TokensAfter >= rep.TokensBefore {
		t.Errorf("compaction report %+v", rep)
	}

	// The hooks ran: PreCompact with its trigger, PostCompact with the
	// model's summary, whose replacement is what the session keeps.
	if data, err := os.ReadFile(pre); err != nil || !strings.Contains(string(data), `"trigger":"auto"`) {
		t.Errorf("PreCompact hook input %q %v", data, err)
	}
	if data, err := os.ReadFile(post); err != nil || !strings.Contains(string(data), "MODEL-SUMMARY") || !strings.Contains(string(data), `"hook_event_name":"PostCompact"`) {
		t.Errorf("PostCompact hook input %q %v", data, err)
	}
	reqs := srv.Requests()
	after := string(reqs[2].Body)
	if !strings.Contains(after, "HOOK-SUMMARY") || strings.Contains(after, "MODEL-SUMMARY") {
		t.Errorf("the request after the compaction does not carry the hook's summary: %.600s", after)
	}
	if !strings.Contains(string(reqs[2].Messages[0]), "RULE-ZEBRA") {
		t.Errorf("the project's rules are not in the request after the compaction: %.300s", reqs[2].Messages[0])
	}
	if strings.Contains(after, "line 650 of the big file") {
		t.Error("the summarised read is still in the request after the compaction")
	}

	// The session log keeps what the compaction summarised.
	id := find[protocol.SessionStarted](r.events)[0].Session
	raw, err := os.ReadFile(sessionFile(ws, id))
	if err != nil {
		t.Fatal(err)
	}
	s, err := session.Parse(id, raw)
	if err != nil {
		t.Fatal(err)
	}
	var note string
	for _, e := range s.Events {
		if n, ok := e.Item.(*session.Notice); ok && strings.HasPrefix(n.Content, session.CompactionNotePrefix) {
			note = n.Content
		}
	}
	if !strings.Contains(note, "auto: summarised events 1..") || !strings.Contains(note, "files: big.txt") || !strings.Contains(note, "PostCompact") {
		t.Errorf("compaction note in the log: %q", note)
	}

	// Text mode: the closing line carries the context's health; the
	// compaction is counted from the log.
	r = openseek(t, ws, "", env, append(args, "run", "--continue", "--format", "text", "and now?")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "/9k · 1 compaction\n") || !strings.Contains(r.stderr, " · context ") {
		t.Errorf("text mode's closing line lacks the context line:\n%s", r.stderr)
	}
}

// After a compaction the request still carries the project's rules (the
// system prompt) and the standing goal, which the summary covered: it is
// put back as a reminder right after the summary.
func TestCompactionKeepsRulesAndGoal(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte("RULE-ZEBRA: indent with tabs.\n"), 0o644)
	srv := llmtest.NewServer(t,
		llmtest.Text("Looked around."),
		llmtest.Text("Still working towards it."), // after the goal check
		llmtest.Reply{Summary: true, Text: "MODEL-SUMMARY: the user set a goal and the agent looked around."},
		llmtest.Text("Continuing."),
		llmtest.Text("Continuing still."), // after the goal check
	)
	in := strings.Join([]string{
		`{"command":"goal","action":"set","text":"GOAL-GIRAFFE: make every test pass"}`,
		`{"command":"prompt","content":"look around"}`,
		`{"command":"compact"}`,
		`{"command":"prompt","content":"go on"}`,
	}, "\n") + "\n"
	r := openseek(t, ws, in, nil, append(modelArgs(srv), "--session", "g1", "serve")...)
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	reps := find[protocol.CompactionReport](r.events)
	if len(reps) != 1 || reps[0].Trigger != "manual" || reps[0].Turns != 1 {
		t.Fatalf("compaction reports %+v; events %v", reps, names(r.events))
	}
	if h := find[protocol.ContextHealth](r.events); len(h) == 0 || h[len(h)-1].Compactions != 1 {
		t.Errorf("context_health %+v", h)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	first := reqs[3] // the first request after the compaction
	if !strings.Contains(string(first.Messages[0]), "RULE-ZEBRA") {
		t.Errorf("the project's rules are not in the request after the compaction: %.300s", first.Messages[0])
	}
	var summary, goal bool
	for _, m := range first.Messages[1:] {
		s := string(m)
		summary = summary || strings.Contains(s, "MODEL-SUMMARY")
		goal = goal || strings.Contains(s, "goal reminder") && strings.Contains(s, "GOAL-GIRAFFE") && !strings.Contains(s, "MODEL-SUMMARY")
	}
	if !summary || !goal {
		t.Errorf("the request after the compaction: summary %v, goal put back %v:\n%s", summary, goal, first.Body)
	}
}

// The read ledger: a file read again unchanged, while its first read is
// still in the context, is answered in one line; once the file changed
// it is read in full again. The savings are counted in context_health.
func TestReadLedgerAnswersUnchangedRereads(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	var body strings.Builder
	for i := range 200 {
		fmt.Fprintf(&body, "func f%d() {}\n", i)
	}
	os.WriteFile(filepath.Join(ws, "a.go"), []byte(body.String()), 0o644)
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "r1", Name: "read", Args: `{"path":"a.go"}`}),
		llmtest.Calls(llmtest.Call{ID: "r2", Name: "read", Args: `{"path":"a.go"}`}),
		llmtest.Calls(llmtest.Call{ID: "r3", Name: "read", Args: `{"path":"a.go","start_line":5,"max_lines":3}`}),
		llmtest.Calls(llmtest.Call{ID: "s", Name: "shell", Args: `{"cmd":"echo 'func changed() {}' >> a.go"}`}),
		llmtest.Calls(llmtest.Call{ID: "r4", Name: "read", Args: `{"path":"a.go"}`}),
		llmtest.Text("done"),
	)
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "run", "read a.go twice")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	res := map[string]protocol.ToolResult{}
	for _, e := range find[protocol.ToolResult](r.events) {
		res[e.ToolCallID] = e
	}
	if !strings.Contains(res["r1"].Content, "func f150() {}") {
		t.Errorf("first read: %.200q", res["r1"].Content)
	}
	if c := res["r2"].Content; !strings.HasPrefix(c, "[unchanged] a.go is unchanged since your read at step 1 of this turn") || strings.Contains(c, "func f150") {
		t.Errorf("unchanged re-read: %q", c)
	}
	if c := res["r3"].Content; !strings.Contains(c, "5\tfunc f4() {}") {
		t.Errorf("a read of another range is answered in full: %q", c)
	}
	if res["s"].IsError {
		t.Fatalf("shell: %s", res["s"].Content)
	}
	if c := res["r4"].Content; !strings.Contains(c, "func changed() {}") || !strings.Contains(c, "func f150() {}") {
		t.Errorf("the changed file was not read in full: %.300q", c)
	}
	health := find[protocol.ContextHealth](r.events)
	last := health[len(health)-1]
	if last.RereadsAvoided != 1 || last.RereadBytesSaved < len(res["r1"].Content)-200 {
		t.Errorf("context_health %+v, want 1 re-read avoided saving about %d bytes", last, len(res["r1"].Content))
	}
	t.Logf("ledger: %d re-read avoided, %d bytes saved (first read %d bytes)", last.RereadsAvoided, last.RereadBytesSaved, len(res["r1"].Content))
}
