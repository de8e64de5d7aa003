//go:build !headless

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sse "github.com/tmaxmax/go-sse"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/internal/server/httpapi"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// remoteRepo makes ws a repository with one commit and branches a and b,
// whose origin is a bare repository outside it (outside the sandbox's
// reach); it returns the bare repository.
func remoteRepo(t *testing.T, ws string) string {
	t.Helper()
	bare := t.TempDir()
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(bare, "init", "-q", "--bare")
	git(ws, "init", "-q")
	os.WriteFile(filepath.Join(ws, "README"), []byte("hi\n"), 0o644)
	git(ws, "add", "README")
	git(ws, "commit", "-qm", "first")
	git(ws, "branch", "a")
	git(ws, "branch", "b")
	git(ws, "remote", "add", "origin", bare)
	return bare
}

// The terminal UI's default (auto), with the sandbox on: writes the
// sandbox contains run unasked (echo step-0 and step-1 >> bench.log);
// git push asks, names the prefix "for this session" covers, and once
// allowed for the session covers git push origin b but not git commit
// (an ask rule), whose denial's reason reaches the model; curl asks.
// Every question and answer is in the session log.
func TestTUIAutoApprovals(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	bare := remoteRepo(t, ws)
	os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("[[rules]]\npattern = [\"git\", \"commit\"]\ndecision = \"ask\"\n"), 0o644)
	shell := func(id, cmd string) llmtest.Reply {
		return llmtest.Calls(llmtest.Call{ID: id, Name: "shell", Args: `{"cmd":` + quoteJSON(cmd) + `}`})
	}
	srv := llmtest.NewServer(t,
		shell("s0", "echo step-0 >> bench.log"),
		shell("s1", "echo step-1 >> bench.log"),
		shell("p1", "git push origin a"),
		shell("p2", "git push origin b"),
		shell("c1", "git commit --allow-empty -m wip"),
		shell("n1", "curl -s http://127.0.0.1:9/ || echo unreachable"),
		llmtest.Text("all done"),
	)
	p := startTmux(t, ws, []string{"HOME=" + home}, append(modelArgs(srv), "--session", "auto1", "tui")...)
	p.waitFor("/help for commands")
	p.typeText("bench and push")
	p.keys("Enter")
	s := p.waitFor("`git push` in this session")
	for _, want := range []string{"git push origin a", "git push uses the network", "[a] don't ask again for `git push` in this session"} {
		if !strings.Contains(s, want) {
			t.Errorf("the git push dialog lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "echo step") && strings.Contains(s, "wants to run:\n\"echo") {
		t.Errorf("echo was asked about:\n%s", s)
	}
	p.keys("a")
	// git push origin b runs unasked; git commit (an ask rule) asks.
	s = p.waitFor("`git commit` in this session")
	if !strings.Contains(s, "git commit --allow-empty -m wip") {
		t.Errorf("the git commit dialog:\n%s", s)
	}
	p.keys("n")
	p.waitFor("Reason for denying")
	p.typeText("commit after the review")
	p.keys("Enter")
	p.waitFor("`curl` in this session")
	p.keys("y")
	p.waitFor("— finished")

	if b, err := os.ReadFile(filepath.Join(ws, "bench.log")); string(b) != "step-0\nstep-1\n" {
		t.Errorf("bench.log = %q, %v", b, err)
	}
	for _, br := range []string{"a", "b"} {
		if err := exec.Command("git", "-C", bare, "rev-parse", "--verify", "refs/heads/"+br).Run(); err != nil {
			t.Errorf("git push origin %s did not reach the remote outside the sandbox: %v", br, err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 7 {
		t.Fatalf("%d model requests, want 7", len(reqs))
	}
	if last := string(reqs[5].Messages[len(reqs[5].Messages)-1]); !strings.Contains(last, "The user said: commit after the review") {
		t.Errorf("the denial's reason is not in the tool result: %s", last)
	}
	sess, err := session.NewStore(filepath.Join(ws, ".openseek")).Load("auto1")
	if err != nil {
		t.Fatal(err)
	}
	var asked, answers []string
	for _, e := range sess.Events {
		n, ok := e.Item.(*session.Notice)
		if !ok {
			continue
		}
		switch ev, _ := session.ParseApproval(n.Content); ev := ev.(type) {
		case protocol.ApprovalRequested:
			asked = append(asked, *ev.Body)
		case protocol.ApprovalResolved:
			answers = append(answers, ev.Outcome+":"+ev.Reason)
		}
	}
	if got := strings.Join(asked, " | "); got != "git push origin a | git commit --allow-empty -m wip | curl -s http://127.0.0.1:9/ || echo unreachable" {
		t.Errorf("recorded questions: %s", got)
	}
	if got := strings.Join(answers, " | "); got != "allowed_for_session: | rejected:commit after the review | allowed_once:" {
		t.Errorf("recorded answers: %s", got)
	}
	r := openseek(t, ws, "", []string{"HOME=" + home}, "sessions", "show", "auto1", "--format", "text")
	for _, want := range []string{"approval ap-1 asked: shell wants to run git push origin a", "approval ap-1: allowed for session", "approval ap-2: rejected — commit after the review"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, r.stdout)
		}
	}
}

// serveAndPrompt starts serve --http with its defaults, opens session
// "web", follows its stream and sends prompt.
func serveAndPrompt(t *testing.T, ws, home string, srv *llmtest.Server, prompt string) (*httpServer, func() (sse.Event, error, bool)) {
	t.Helper()
	s := startHTTP(t, ws, home, append(modelArgs(srv), "serve", "--http", "127.0.0.1:0")...)
	if code, body, _ := s.do(t, "POST", "/v1/sessions", `{"id":"web"}`, nil); code != 201 {
		t.Fatalf("POST /v1/sessions = %d %s", code, body)
	}
	stream := s.events(t, "web", "")
	readUntil(t, stream, "session_started")
	cmd, _ := json.Marshal(map[string]string{"command": "prompt", "content": prompt})
	if code, body, _ := s.do(t, "POST", "/v1/sessions/web/commands", string(cmd), nil); code != 202 {
		t.Fatalf("prompt = %d %s", code, body)
	}
	return s, stream
}

// serve --http asks through the web app by default (auto), with the
// sandbox on: the question reaches the stream, a client that opens the
// session while it waits gets it too (first, without an id), a denial's
// reason reaches the model, and the session page shows the question and
// its answer from the log.
func TestServeHTTPAutoApprovals(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "s0", Name: "shell", Args: `{"cmd":"echo step-0 >> bench.log"}`}),
		llmtest.Calls(llmtest.Call{ID: "n1", Name: "shell", Args: `{"cmd":"sudo apt-get install -y jq"}`}),
		llmtest.Text("fine, no jq"),
	)
	s, first := serveAndPrompt(t, ws, home, srv, "install jq")
	got := readUntil(t, first, "approval_requested")
	ask := got[len(got)-1]
	var req struct {
		ID, Body string
		Prefixes []string
	}
	json.Unmarshal([]byte(ask.Data), &req)
	if req.Body != "sudo apt-get install -y jq" || strings.Join(req.Prefixes, ",") != "sudo apt-get install" {
		t.Errorf("approval_requested %s", ask.Data)
	}
	for _, e := range got {
		if e.Type == "approval_requested" && strings.Contains(e.Data, "echo step-0") {
			t.Errorf("the contained write was asked about: %s", e.Data)
		}
	}
	// A client that comes now, from the newest event, sees the question.
	_, _, h := s.do(t, "GET", "/v1/sessions/web", "", nil)
	late := s.events(t, "web", h.Get(httpapi.LastEventHeader))
	if again := readUntil(t, late, "approval_requested"); len(again) != 1 || again[0].Data != ask.Data || again[0].LastEventID != "" {
		t.Errorf("the late client got %+v, want the question first without an id of its own", again)
	}
	if code, body, _ := s.do(t, "POST", "/v1/sessions/web/commands", `{"command":"approval","id":"`+req.ID+`","allow":false,"reason":"jq is vendored in tools/"}`, nil); code != 202 {
		t.Fatalf("approval = %d %s", code, body)
	}
	readUntil(t, late, "turn_summary")
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(string(reqs[2].Messages[len(reqs[2].Messages)-1]), "The user said: jq is vendored in tools/") {
		t.Errorf("the reason did not reach the model (%d requests)", len(reqs))
	}
	if len(reqs) == 3 && strings.Contains(string(reqs[2].Body), session.ApprovalPrefix) {
		t.Error("the approval records in the log reached the model")
	}
	if b, err := os.ReadFile(filepath.Join(ws, "bench.log")); string(b) != "step-0\n" {
		t.Errorf("bench.log = %q, %v", b, err)
	}
	code, page, _ := s.do(t, "GET", "/sessions/web", "", nil)
	if code != 200 || !strings.Contains(page, `class="card approval record resolved"`) || !strings.Contains(page, "jq is vendored in tools/") ||
		!strings.Contains(page, "sudo apt-get install -y jq") {
		t.Errorf("the session page does not show the recorded approval (%d)", code)
	}
}

// The auto approval tests again as an ordinary user, as most people run
// them.
func TestAutoApprovalsAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestTUIAutoApprovals|TestServeHTTPAutoApprovals|TestTUIAttachSeesWaitingApproval)$")
}

// A terminal UI attached to serve --http while an approval waits shows it
// and answers it.
func TestTUIAttachSeesWaitingApproval(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "n1", Name: "shell", Args: `{"cmd":"curl -s http://127.0.0.1:9/ || touch curled.txt"}`}),
		llmtest.Text("checked"),
	)
	s, stream := serveAndPrompt(t, ws, home, srv, "is the port open?")
	readUntil(t, stream, "approval_requested")
	p := startTmux(t, ws, []string{"HOME=" + home}, "--session", "web", "tui", "--attach", s.url.String())
	p.waitFor("`curl` in this session")
	p.keys("y")
	readUntil(t, stream, "turn_summary")
	if _, err := os.Stat(filepath.Join(ws, "curled.txt")); err != nil {
		t.Errorf("the command allowed from the attached UI did not run: %v", err)
	}
}
