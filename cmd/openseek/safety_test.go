package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/protocol"
)

// TestAgentStaysInTheSandbox drives `openseek run` with a model that tries
// to leave the workspace through the shell: plant a git hook, rewrite the
// project's config, write outside the workspace, reach the agent's own
// command line. Every attempt fails and the workspace write succeeds —
// the sandbox a user gets by default, end to end.
func TestAgentStaysInTheSandbox(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{
		".git/config":           "[core]\n",
		".git/hooks/README":     "hooks\n",
		".openseek/config.toml": "",
	})
	outside := filepath.Join(t.TempDir(), "planted")
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".cache"), 0o755); err != nil {
		t.Fatal(err)
	}
	sockDir := t.TempDir()
	os.Chmod(sockDir, 0o755)
	sock := filepath.Join(sockDir, "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sock, 0o777)
	var reached atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			reached.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	mark := fmt.Sprintf("openseek-leftover-%d", os.Getpid())
	attempts := []struct{ id, cmd string }{
		{"hook", "printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit"},
		{"config", "echo 'model = \"evil\"' > .openseek/config.toml"},
		{"outside", "echo x > " + outside},
		{"home", "echo x > " + filepath.Join(home, "planted")},
		{"parent", "cat /proc/$PPID/cmdline /proc/1/environ 2>&1 | grep -c sk-secret-key || true"},
		{"cache", "echo x > " + filepath.Join(home, ".cache", "planted")},
		// Past the read-only bind with the mount family or a new user
		// namespace (root inside the sandbox once could).
		{"remount", "mount -o remount,bind,rw .git && echo x > .git/hooks/post-checkout"},
		{"bindover", "mkdir -p /tmp/h && mount --bind /tmp/h .git/hooks && echo x > .git/hooks/post-merge"},
		{"userns", "unshare -Urm sh -c 'mount -o remount,bind,rw .git && echo x > .git/hooks/pre-push'"},
		{"socket", "nc -U -w 1 " + sock + " </dev/null"},
		{"leftover", "(exec -a " + mark + " sleep 300) & setsid bash -c 'exec -a " + mark + " sleep 300' & nohup bash -c 'exec -a " + mark + " sleep 300' >/dev/null 2>&1 & echo left"},
		{"inside", "echo ok > inside.txt && cat inside.txt"},
	}
	var calls []llmtest.Call
	for _, a := range attempts {
		calls = append(calls, llmtest.Call{ID: a.id, Name: "shell", Args: `{"cmd":` + quoteJSON(a.cmd) + `}`})
	}
	srv := llmtest.NewServer(t, llmtest.Reply{Calls: calls}, llmtest.Text("tried"))
	r := openseek(t, ws, "", []string{"HOME=" + home, "DEEPSEEK_API_KEY=sk-secret-key"}, append(modelArgs(srv), "run", "escape")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	results := map[string]protocol.ToolResult{}
	for _, tr := range find[protocol.ToolResult](r.events) {
		results[tr.ToolCallID] = tr
	}
	// (A write under $HOME, itself in /tmp here, lands in the command's
	// private /tmp: it may succeed; the host's file is checked below.)
	for _, id := range []string{"hook", "config", "outside", "cache", "socket", "remount", "bindover", "userns"} {
		if tr := results[id]; !strings.Contains(tr.Content, "<system>exit=") || strings.Contains(tr.Content, "<system>exit=0<") {
			t.Errorf("%s: the command seems to have succeeded: %q", id, tr.Content)
		}
	}
	for _, hook := range []string{"pre-commit", "post-checkout", "post-merge", "pre-push"} {
		if _, err := os.Stat(filepath.Join(ws, ".git/hooks", hook)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a git hook (%s) was planted: %v", hook, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".openseek/config.toml")); len(b) != 0 {
		t.Errorf("the project config was rewritten: %q", b)
	}
	if reached.Load() != 0 {
		t.Errorf("a command reached a UNIX socket of the host")
	}
	if left := leftovers(t, mark); len(left) > 0 {
		t.Errorf("processes outlived the run: %v", left)
	}
	for _, p := range []string{outside, filepath.Join(home, "planted"), filepath.Join(home, ".cache", "planted")} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was written: %v", p, err)
		}
	}
	if c := results["parent"].Content; strings.Contains(c, "sk-secret-key") || !strings.Contains(c, "0") {
		t.Errorf("the key reached the command's view of the agent: %q", c)
	}
	if c := results["inside"].Content; !strings.Contains(c, "ok") {
		t.Errorf("the workspace write failed: %q", c)
	}
}

// TestPlanModeRunsNoWrites: in plan mode the workspace is read-only to
// commands whatever their options or environment — the bypasses that
// once ran code from "read-only" commands write nothing.
func TestPlanModeRunsNoWrites(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	os.WriteFile(filepath.Join(ws, "f"), []byte("text\n"), 0o644)
	attempts := []string{
		"git ls-remote --upload-pack='touch pwned1' . ",
		"LESSOPEN='|touch pwned2 %s' less f",
		"git -c core.fsmonitor='touch pwned3' status",
		"touch pwned4",
		"echo x > f",
	}
	var calls []llmtest.Call
	for i, c := range attempts {
		calls = append(calls, llmtest.Call{ID: fmt.Sprintf("p%d", i), Name: "shell", Args: `{"cmd":` + quoteJSON(c) + `}`})
	}
	srv := llmtest.NewServer(t, llmtest.Reply{Calls: calls}, llmtest.Text("planned"))
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "--approval", "plan", "run", "look around")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	for i := 1; i <= 4; i++ {
		if _, err := os.Stat(filepath.Join(ws, fmt.Sprintf("pwned%d", i))); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("plan mode let a command write pwned%d", i)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "f")); string(b) != "text\n" {
		t.Errorf("plan mode let a command change f: %q", b)
	}
}

// leftovers are the command lines of processes named mark.
func leftovers(t *testing.T, mark string) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var out []string
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err == nil && strings.HasPrefix(string(b), mark+"\x00") {
				out = append(out, e.Name())
			}
		}
		if len(out) == 0 || time.Now().After(deadline) {
			for _, pid := range out {
				if n, err := strconv.Atoi(pid); err == nil {
					syscall.Kill(n, syscall.SIGKILL)
				}
			}
			return out
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAgentAsOrdinaryUser runs the end-to-end sandbox tests of the CLI
// again as an ordinary user, as most people run it.
func TestAgentAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestAgentStaysInTheSandbox|TestPlanModeRunsNoWrites|TestRunEditsFilesAndRecordsTheSession|TestKilledRunResumes|TestNetworkAllowlistEndToEnd|TestNetworkAllowlistFromRepositoryOnceTrusted|TestNetworkAllowCommand|TestNetworkAskedInAutoMode|TestSSHThroughProxyConnect)$")
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
