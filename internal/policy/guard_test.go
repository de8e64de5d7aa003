package policy

import (
	"context"
	"strings"
	"testing"

	"github.com/openseek/openseek/protocol"
)

func TestCheckWrite(t *testing.T) {
	const ws = "/home/u/proj"
	tests := []struct {
		mode Mode
		path string
		want Decision
		why  string
	}{
		{ModeNever, ws + "/main.go", Allow, ""},
		{ModeFullAccess, ws + "/.git/config", Deny, "inside .git"},
		{ModeAlways, ws + "/.git/hooks/pre-commit", Deny, "inside .git"},
		{ModeAsk, ws + "/sub/.git/HEAD", Deny, "inside .git"},
		{ModeNever, ws + "/.openseek/config.toml", Deny, "inside .openseek"},
		{ModeNever, ws + "/.OpenSeek/x", Deny, "inside .OpenSeek"},
		{ModeNever, ws + "/.gitignore", Allow, ""},
		{ModeNever, ws + "/.github/workflows/ci.yml", Allow, ""},
		{ModeNever, "/etc/openseek.toml", Deny, "a config file"},
		{ModePlan, ws + "/main.go", Deny, "plan mode is read-only"},
	}
	for _, tc := range tests {
		p := &Policy{Mode: tc.mode, Workspace: ws, Protected: []string{"/etc/openseek.toml"}}
		v := p.CheckWrite(tc.path)
		if v.Decision != tc.want || !strings.Contains(v.Reason, tc.why) {
			t.Errorf("%s %s: %s (%s), want %s (%s)", tc.mode, tc.path, v.Decision, v.Reason, tc.want, tc.why)
		}
	}
}

func TestGuardRefusals(t *testing.T) {
	rules := []Rule{{Pattern: []string{"git", "push"}, Decision: Deny, Source: "c.toml:2"}, {Pattern: []string{"rm"}, Decision: Ask, Source: "c.toml:6"}}
	tests := []struct {
		name   string
		guard  *Guard
		script string
		want   []string // substrings of the refusal; nil: allowed
	}{
		{"nil guard", nil, "git push", nil},
		{"allowed", &Guard{Policy: &Policy{Rules: rules}}, "ls", nil},
		{"deny rule", &Guard{Policy: &Policy{Mode: ModeAlways, Rules: rules}}, "git push origin",
			[]string{"refused:", `"git push origin" is denied by the rule ["git", "push"] (c.toml:2)`, "Do not retry"}},
		{"never refuses escalation", &Guard{Policy: &Policy{Rules: rules}}, "rm -rf build",
			[]string{"refused:", "needs approval by the rule", "--approval auto"}},
		{"ask without controller", &Guard{Policy: &Policy{Mode: ModeAsk, Rules: rules}}, "rm x",
			[]string{"refused:", "no controller can be asked"}},
		{"plan", &Guard{Policy: &Policy{Mode: ModePlan}}, "go build ./...",
			[]string{"refused:", "plan mode is read-only"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.guard.Command(context.Background(), "shell", tc.script)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !IsRefusal(err) {
				t.Fatalf("error = %v, want a refusal", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refusal %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestGuardAsks(t *testing.T) {
	ev := newEvents()
	g := &Guard{Policy: &Policy{Mode: ModeAsk}, Broker: NewBroker(ev.emit)}
	run := func(script string) chan error {
		out := make(chan error, 1)
		go func() { out <- g.Command(context.Background(), "shell", script) }()
		return out
	}
	// Denied by the user: the error tells the model.
	out := run("go test ./...")
	id := <-ev.requested
	req := ev.list()[0].(protocol.ApprovalRequested)
	if req.ToolName != "shell" || req.Body == nil || *req.Body != "go test ./..." || !strings.Contains(req.Detail, "go test") {
		t.Errorf("approval_requested = %+v", req)
	}
	g.Broker.Resolve(id, Answer{Allow: false, Remember: false})
	if err := <-out; err == nil || !strings.Contains(err.Error(), "the user did not approve") {
		t.Errorf("rejected: %v", err)
	}
	// Allowed for the session: later go test commands run unasked.
	out = run("go test ./pkg")
	g.Broker.Resolve(<-ev.requested, Answer{Allow: true, Remember: true})
	if err := <-out; err != nil {
		t.Fatalf("approved: %v", err)
	}
	n := len(ev.list())
	if err := g.Command(context.Background(), "shell", "go test -run X ./other"); err != nil {
		t.Errorf("remembered pattern refused: %v", err)
	}
	if len(ev.list()) != n {
		t.Error("a remembered pattern asked again")
	}
	// Known-safe commands are never asked about.
	if err := g.Command(context.Background(), "shell", "git status"); err != nil || len(ev.list()) != n {
		t.Errorf("git status: %v, asked=%v", err, len(ev.list()) != n)
	}
}

func TestGuardWrite(t *testing.T) {
	g := &Guard{Policy: &Policy{Workspace: "/w"}}
	if err := g.Write(context.Background(), "write", "/w/a.go"); err != nil {
		t.Errorf("plain write refused: %v", err)
	}
	err := g.Write(context.Background(), "edit", "/w/.git/config")
	if err == nil || !IsRefusal(err) || !strings.Contains(err.Error(), "refused (edit): /w/.git/config is protected (inside .git)") {
		t.Errorf("write into .git: %v", err)
	}
	var nilGuard *Guard
	if err := nilGuard.Write(context.Background(), "write", "/w/.git/config"); err != nil {
		t.Errorf("nil guard: %v", err)
	}
}
