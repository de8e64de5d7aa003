package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
)

// plantedKey is a token-shaped secret a command prints: a shared
// transcript must not show it.
const plantedKey = "sk-live0123456789abcdefghijKLMN"

// recordedSession records session s1 in a new workspace against the
// scripted model, with the default flags (sandbox on): the model writes a
// file and runs shell commands, one of which prints plantedKey. It
// returns the workspace and the environment (the home holding the
// snapshots) later commands must share.
func recordedSession(t *testing.T) (ws string, env []string) {
	t.Helper()
	ws = t.TempDir()
	env = []string{"HOME=" + t.TempDir()}
	os.WriteFile(filepath.Join(ws, "data.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	srv := llmtest.NewServer(t,
		llmtest.Reply{Reasoning: "write, then look", Calls: []llmtest.Call{
			{ID: "w1", Name: "write", Args: `{"path":"notes/out.txt","content":"hello from the model\nsecond line\n"}`},
			{ID: "s1", Name: "shell", Args: `{"cmd":"cat data.txt notes/out.txt && echo replay-marker-$((6*7)) && echo token ` + plantedKey + `"}`},
		}},
		llmtest.Calls(llmtest.Call{ID: "s2", Name: "shell", Args: `{"cmd":"ls notes && wc -l < data.txt"}`}),
		llmtest.Text("Done: I wrote **notes/out.txt**."),
	)
	r := openseek(t, ws, "", env, append(modelArgs(srv), "--session", "s1", "run", "write the notes & check them")...)
	if r.code != 0 {
		t.Fatalf("record: exit %d\n%s", r.code, r.stderr)
	}
	return ws, env
}

func sessionFile(ws, id string) string {
	return filepath.Join(ws, ".openseek", "sessions", id, "openseek_session-"+id+".jsonl")
}

func TestExportFormats(t *testing.T) {
	t.Parallel()
	ws, env := recordedSession(t)
	raw, err := os.ReadFile(sessionFile(ws, "s1"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(plantedKey)) {
		t.Fatalf("the recorded log does not hold the planted key: the test records nothing to redact\n%s", raw)
	}
	redacted := bytes.ReplaceAll(raw, []byte(plantedKey), []byte("[redacted secret]"))

	t.Run("jsonl", func(t *testing.T) {
		r := openseek(t, ws, "", env, "export", "s1", "--format", "jsonl", "--no-redact")
		if r.code != 0 || r.stdout != string(raw) {
			t.Fatalf("--no-redact jsonl is not the log byte for byte: exit %d\n%s", r.code, r.stderr)
		}
		r = openseek(t, ws, "", env, "export", "s1", "--format", "jsonl")
		if r.code != 0 || r.stdout != string(redacted) {
			t.Fatalf("jsonl is not the log with the key redacted: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("md", func(t *testing.T) {
		r := openseek(t, ws, "", env, "export", "s1")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		md := r.stdout
		for _, want := range []string{
			"# OpenSeek session s1",
			"## Turn 1",
			"> write the notes & check them",
			"**Tool call** `write`",
			"- `path`: `notes/out.txt`",
			"hello from the model\n  second line", // a multi-line argument in its own block
			"**Tool call** `shell`",
			"- `cmd`: `cat data.txt notes/out.txt && echo replay-marker-$((6*7))", // no \u0026
			"Result of `shell`:",
			"replay-marker-42",
			"token [redacted secret]",
			"Done: I wrote **notes/out.txt**.",
			"_Turn ended: finished._",
			"## Totals",
			"cost ",
		} {
			if !strings.Contains(md, want) {
				t.Errorf("the Markdown lacks %q", want)
			}
		}
		if strings.Contains(md, plantedKey) || strings.Contains(md, `\u0026`) {
			t.Errorf("the Markdown shows the key or JSON escapes")
		}
		if t.Failed() || os.Getenv("SHOW") != "" {
			t.Log(md)
		}
		r = openseek(t, ws, "", env, "export", "s1", "--format", "md", "--no-redact")
		if !strings.Contains(r.stdout, "token "+plantedKey) {
			t.Errorf("--no-redact does not show the key:\n%s", r.stdout)
		}
	})

	t.Run("html", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "s1.html")
		r := openseek(t, ws, "", env, "export", "s1", "--format", "html", "-o", out)
		if r.code != 0 || r.stdout != "" {
			t.Fatalf("exit %d, stdout %q: %s", r.code, r.stdout, r.stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		page := string(data)
		for _, want := range []string{"<style>", "<script>", "write the notes &amp; check them", "I wrote <strong>notes/out.txt</strong>", "replay-marker-42", "[redacted secret]", "Content-Security-Policy"} {
			if !strings.Contains(page, want) {
				t.Errorf("the page lacks %q", want)
			}
		}
		if strings.Contains(page, plantedKey) {
			t.Error("the page shows the key")
		}
		// Nothing is fetched: no URL of another site, no linked file.
		if m := regexp.MustCompile(`(?i)https?://|//[a-z0-9.-]+\.[a-z]{2,}/|\bsrc=|<link\b|@import|url\(`).FindString(page); m != "" {
			t.Errorf("the page refers to something outside itself: %q", m)
		}
	})

	t.Run("errors", func(t *testing.T) {
		if r := openseek(t, ws, "", env, "export", "nosuch"); r.code != 1 || !strings.Contains(r.stderr, "session nosuch does not exist") {
			t.Errorf("unknown id: exit %d: %s", r.code, r.stderr)
		}
		if r := openseek(t, ws, "", env, "export", "s1", "--format", "pdf"); r.code != 1 || !strings.Contains(r.stderr, "--format must be md, html or jsonl") {
			t.Errorf("bad format: exit %d: %s", r.code, r.stderr)
		}
	})
}

func TestExportAndReplayAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestExportFormats|TestReplay)$")
}
