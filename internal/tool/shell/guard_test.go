package shell

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/protocol"
)

// The shell tool asks env.Guard before running: a refused command never
// runs and its result says why.
func TestShellObeysGuard(t *testing.T) {
	rules := []policy.Rule{{Pattern: []string{"git", "push"}, Decision: policy.Deny, Source: "config.toml:2"}}
	tests := []struct {
		name, cmd string
		mode      policy.Mode
		want      string // substring of the refusal; "" runs
	}{
		{"deny rule", "touch ran; git push origin main", policy.ModeAlways, `is denied by the rule ["git", "push"] (config.toml:2)`},
		{"deny inside bash -c", "bash -c 'touch ran && git push'", policy.ModeFullAccess, "is denied by the rule"},
		{"plan mode", "touch ran", policy.ModePlan, "plan mode is read-only"},
		{"never refuses sudo", "sudo touch ran", policy.ModeNever, "--approval never"},
		{"allowed", "touch ran", policy.ModeNever, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _ := newEnv(t, false)
			env.Guard = &policy.Guard{Policy: &policy.Policy{Mode: tc.mode, Rules: rules, Workspace: env.Workspace}}
			res := call(t, Shell(), env, `{"cmd":`+quote(tc.cmd)+`}`)
			_, statErr := os.Stat(filepath.Join(env.Workspace, "ran"))
			text := res.Content.Text()
			if tc.want == "" {
				if res.IsError || statErr != nil {
					t.Fatalf("allowed command: %q, ran: %v", text, statErr)
				}
				return
			}
			if !res.IsError || !strings.Contains(text, "refused") || !strings.Contains(text, tc.want) {
				t.Errorf("result %q (error=%v), want a refusal with %q", text, res.IsError, tc.want)
			}
			if statErr == nil {
				t.Error("the refused command ran")
			}
		})
	}
}

func TestShellApproval(t *testing.T) {
	for _, allow := range []bool{true, false} {
		env, _ := newEnv(t, false)
		requested := make(chan string, 1)
		b := policy.NewBroker(func(e protocol.Event) {
			if r, ok := e.(protocol.ApprovalRequested); ok {
				requested <- r.ID
			}
		})
		env.Guard = &policy.Guard{Policy: &policy.Policy{Mode: policy.ModeAsk}, Broker: b}
		go func() { b.Resolve(<-requested, policy.Answer{Allow: allow}) }()
		res := call(t, Shell(), env, `{"cmd":"touch ran"}`)
		_, statErr := os.Stat(filepath.Join(env.Workspace, "ran"))
		if allow && (res.IsError || statErr != nil) {
			t.Errorf("approved: %q, ran: %v", res.Content.Text(), statErr)
		}
		if !allow && (!res.IsError || statErr == nil || !strings.Contains(res.Content.Text(), "the user did not approve")) {
			t.Errorf("rejected: %q, ran: %v", res.Content.Text(), statErr == nil)
		}
	}
	// A cancelled turn while waiting ends the call without running it.
	env, _ := newEnv(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	b := policy.NewBroker(func(e protocol.Event) {
		if _, ok := e.(protocol.ApprovalRequested); ok {
			cancel()
		}
	})
	env.Guard = &policy.Guard{Policy: &policy.Policy{Mode: policy.ModeAsk}, Broker: b}
	res := callCtx(t, ctx, Shell(), env, `{"cmd":"touch ran"}`)
	if !res.IsError || !strings.Contains(res.Content.Text(), "waiting for approval") {
		t.Errorf("cancelled: %q", res.Content.Text())
	}
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
