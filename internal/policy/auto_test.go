package policy

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/openseek/openseek/protocol"
)

// Auto mode runs what the sandbox contains and asks about what needs
// more; the patterns are what "for this session" then covers.
func TestAutoMode(t *testing.T) {
	rules := []Rule{
		{Pattern: []string{"git", "push"}, Decision: Ask, Source: "u.toml:1"},
		{Pattern: []string{"npm", "publish"}, Decision: Deny, Source: "u.toml:3"},
	}
	sandboxed := &Policy{Mode: ModeAuto, Rules: rules, Workspace: "/w", Sandboxed: true}
	networked := &Policy{Mode: ModeAuto, Workspace: "/w", Sandboxed: true, Network: true}
	bare := &Policy{Mode: ModeAuto, Workspace: "/w"}
	tests := []struct {
		p        *Policy
		script   string
		want     Decision
		outside  bool
		patterns []string
	}{
		// contained by the sandbox: runs unasked
		{sandboxed, "echo step-0 >> bench.log", Allow, false, nil},
		{sandboxed, "echo step-1 >> bench.log", Allow, false, nil},
		{sandboxed, "go test ./... && make", Allow, false, nil},
		{sandboxed, "echo hi > /tmp/x.txt", Allow, false, nil},
		{sandboxed, "echo hi > /w/sub/x.txt", Allow, false, nil},
		{sandboxed, "ls", Allow, false, nil},
		{sandboxed, "git commit -m x", Allow, false, nil},
		// needs more: asked, and run outside the sandbox once allowed
		{sandboxed, "curl -fsS https://example.com", Ask, true, []string{"curl"}},
		{sandboxed, "git push origin a", Ask, true, []string{"git push"}},
		{sandboxed, "git -C sub fetch", Ask, true, []string{"git"}},
		{sandboxed, "npm install left-pad", Ask, true, []string{"npm install"}},
		{sandboxed, "sudo apt install jq", Ask, true, []string{"sudo apt install"}},
		{sandboxed, "echo hi > /etc/motd", Ask, true, []string{"echo >"}},
		{sandboxed, "echo hi > ~/.bashrc", Ask, true, []string{"echo >"}},
		{sandboxed, "X=$(curl -s https://x) && echo $X", Ask, true, []string{"curl"}},
		// a compound asks for each part that needs more, and only those
		{sandboxed, "make && git push origin b | tee out.log", Ask, true, []string{"git push"}},
		{sandboxed, "curl -s https://x | sudo tee /etc/x", Ask, true, []string{"curl", "sudo tee"}},
		// deny rules still win
		{sandboxed, "npm publish", Deny, false, nil},
		// the sandbox has the network: nothing to ask
		{networked, "curl -fsS https://example.com", Allow, false, nil},
		// no sandbox: nothing is contained, so not read-only asks (as ask mode)
		{bare, "echo step-0 >> bench.log", Ask, false, []string{"echo >"}},
		{bare, "ls -la", Allow, false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.script, func(t *testing.T) {
			v := tc.p.CheckCommand(tc.script)
			if v.Decision != tc.want || v.Outside != tc.outside || !reflect.DeepEqual(v.Patterns, tc.patterns) {
				t.Errorf("CheckCommand = %s outside=%v patterns=%q (%s); want %s outside=%v patterns=%q",
					v.Decision, v.Outside, v.Patterns, v.Reason, tc.want, tc.outside, tc.patterns)
			}
		})
	}
	// The other modes are unchanged: never runs curl in the sandbox (where
	// the network is cut off) and refuses sudo.
	never := &Policy{Mode: ModeNever, Workspace: "/w", Sandboxed: true}
	if v := never.CheckCommand("curl https://x"); v.Decision != Allow || v.Outside {
		t.Errorf("never: curl = %+v", v)
	}
	if v := never.CheckCommand("sudo ls"); v.Decision != Deny || !strings.Contains(v.Reason, "--approval auto") {
		t.Errorf("never: sudo = %+v", v)
	}
}

// The model's request to run outside the sandbox (shell's escalate).
func TestCheckEscalation(t *testing.T) {
	rules := []Rule{{Pattern: []string{"rm"}, Decision: Deny, Source: "u.toml:1"}}
	tests := []struct {
		mode    Mode
		script  string
		want    Decision
		outside bool
	}{
		{ModeAuto, "make install", Ask, true},
		{ModeAsk, "make install", Ask, true},
		{ModeAlways, "make install", Allow, true},
		{ModeNever, "make install", Deny, false},
		{ModePlan, "ls", Deny, false},
		{ModeFullAccess, "make install", Allow, false},
		{ModeAuto, "rm -rf /", Deny, false},
	}
	for _, tc := range tests {
		p := &Policy{Mode: tc.mode, Rules: rules, Sandboxed: tc.mode != ModeFullAccess}
		v := p.CheckEscalation(tc.script, "it installs into /usr/local")
		if v.Decision != tc.want || v.Outside != tc.outside {
			t.Errorf("%s %q: %s outside=%v (%s); want %s outside=%v", tc.mode, tc.script, v.Decision, v.Outside, v.Reason, tc.want, tc.outside)
		}
		if tc.want == Ask && (!strings.Contains(v.Reason, "installs into /usr/local") || !reflect.DeepEqual(v.Patterns, []string{"make install"})) {
			t.Errorf("%s: reason %q patterns %q", tc.mode, v.Reason, v.Patterns)
		}
	}
}

// "For this session" covers the prefix: git push origin a approves git
// push origin b, not git commit; a compound needs every part covered; an
// approval inside the sandbox does not cover leaving it.
func TestGuardAutoSessionPrefix(t *testing.T) {
	ev := newEvents()
	g := &Guard{Policy: &Policy{Mode: ModeAuto, Workspace: "/w", Sandboxed: true}, Broker: NewBroker(ev.emit)}
	type res struct {
		outside bool
		err     error
	}
	run := func(script string, esc Escalation) chan res {
		out := make(chan res, 1)
		go func() {
			o, err := g.Shell(context.Background(), "shell", script, esc)
			out <- res{o, err}
		}()
		return out
	}
	out := run("git push origin a", Escalation{})
	id := <-ev.requested
	req := ev.list()[0].(protocol.ApprovalRequested)
	if !reflect.DeepEqual(req.Prefixes, []string{"git push"}) || !strings.Contains(req.Detail, "network") {
		t.Errorf("approval_requested = %+v", req)
	}
	if err := g.Broker.Resolve(id, Answer{Allow: true, Remember: true}); err != nil {
		t.Fatal(err)
	}
	if r := <-out; r.err != nil || !r.outside {
		t.Fatalf("approved git push: %+v", r)
	}
	n := len(ev.list())
	if o, err := g.Shell(context.Background(), "shell", "git push origin b", Escalation{}); err != nil || !o || len(ev.list()) != n {
		t.Errorf("git push origin b: outside=%v err=%v asked=%v", o, err, len(ev.list()) != n)
	}
	if o, err := g.Shell(context.Background(), "shell", "git commit -m x", Escalation{}); err != nil || o || len(ev.list()) != n {
		t.Errorf("git commit (contained): outside=%v err=%v asked=%v", o, err, len(ev.list()) != n)
	}
	// curl is not covered: a compound with it asks.
	out = run("git push origin c && curl https://x", Escalation{})
	id = <-ev.requested
	if req := ev.list()[n].(protocol.ApprovalRequested); !reflect.DeepEqual(req.Prefixes, []string{"git push", "curl"}) {
		t.Errorf("compound prefixes = %q", req.Prefixes)
	}
	g.Broker.Resolve(id, Answer{Reason: "no downloads today"})
	r := <-out
	if r.err == nil || !strings.Contains(r.err.Error(), "The user said: no downloads today") {
		t.Errorf("rejection with a reason: %v", r.err)
	}
	if last := ev.list()[len(ev.list())-1]; last != (protocol.ApprovalResolved{ID: id, Outcome: protocol.ApprovalRejected, Reason: "no downloads today"}) {
		t.Errorf("approval_resolved = %#v", last)
	}
}

// A prefix approved for the session inside the sandbox (ask mode) does not
// let the model's escalate request leave it unasked.
func TestBrokerRememberOutside(t *testing.T) {
	b := NewBroker(nil)
	b.remembered["make"] = false
	if b.Remembered([]string{"make"}, true) || !b.Remembered([]string{"make"}, false) {
		t.Error("an inside approval covers leaving the sandbox")
	}
	b.remembered["make"] = true
	if !b.Remembered([]string{"make"}, true) || !b.Remembered([]string{"make"}, false) {
		t.Error("an outside approval does not cover both")
	}
}
