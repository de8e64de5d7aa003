//go:build !headless

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/fleet"
)

// TestRepositoryNATSNeedsTrust: a repository's [fleet] nats cannot make
// `tasks add` send the task's prompt to its server until the user trusts
// the repository's config: the server (a real NATS server on loopback)
// gets no connection at all, the task goes to the machine's own queue and
// a warning names the key and how to trust it; once trusted, the task goes
// there.
func TestRepositoryNATSNeedsTrust(t *testing.T) {
	t.Parallel()
	theirs, err := fleet.StartEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(theirs.Close)
	home := t.TempDir()
	repo := fleetRepo(t, nil)
	cfg := filepath.Join(repo, ".openseek", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[fleet]\nnats = \""+theirs.URL+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home}

	r := openseek(t, repo, "", env, "tasks", "add", "the secret plan")
	if r.code != 0 {
		t.Fatalf("tasks add: exit %d\n%s", r.code, r.stderr)
	}
	varz, err := theirs.Server.Varz(nil)
	if err != nil {
		t.Fatal(err)
	}
	if varz.TotalConnections != 0 || varz.InMsgs != 0 {
		t.Errorf("the repository's NATS server got %d connections and %d messages before it was trusted", varz.TotalConnections, varz.InMsgs)
	}
	for _, want := range []string{"ignored until you trust this workspace: fleet.nats in " + cfg, "`openseek trust`"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("tasks add: no warning %q in stderr %q", want, r.stderr)
		}
	}
	mine := openseek(t, repo, "", env, "tasks", "list", "--format", "json")
	if mine.code != 0 || !strings.Contains(mine.stdout, "the secret plan") {
		t.Errorf("the task is not on the machine's own queue: %d %q %q", mine.code, mine.stdout, mine.stderr)
	}

	if tr := openseek(t, repo, "", env, "trust"); tr.code != 0 {
		t.Fatalf("trust: %d %q", tr.code, tr.stderr)
	}
	r = openseek(t, repo, "", env, "tasks", "add", "the trusted plan")
	if r.code != 0 || strings.Contains(r.stderr, "fleet.nats") {
		t.Fatalf("trusted tasks add: exit %d\n%s", r.code, r.stderr)
	}
	fc, err := fleet.Connect(context.Background(), fleet.Config{URL: theirs.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	if task, err := fc.Get(context.Background(), strings.TrimSpace(r.stdout)); err != nil || task.Prompt != "the trusted plan" {
		t.Errorf("once trusted, the task is not on the repository's server: %v %+v", err, task)
	}
}
