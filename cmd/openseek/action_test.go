package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/openseek/openseek/internal/ghaction"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
)

// fakeGitHub is the REST API's comment endpoint: it records the comments
// posted on pull request 7 of acme/app with the right token.
type fakeGitHub struct {
	*httptest.Server
	mu       sync.Mutex
	comments []string
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	g := &fakeGitHub{}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/repos/acme/app/issues/7/comments" || r.Header.Get("Authorization") != "Bearer gh-token" {
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
			return
		}
		var c struct{ Body string }
		data, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(data, &c); err != nil || c.Body == "" {
			http.Error(w, `{"message":"Validation Failed"}`, http.StatusUnprocessableEntity)
			return
		}
		g.mu.Lock()
		g.comments = append(g.comments, c.Body)
		g.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"id":1}`))
	}))
	t.Cleanup(g.Close)
	return g
}

func (g *fakeGitHub) posted() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.comments...)
}

// runAction runs the action's program as the runner would, in dir, with
// the test binary as openseek (default flags: the sandbox on).
func runAction(t *testing.T, dir string, gh *fakeGitHub, srv *llmtest.Server, inputs map[string]string) (code int, stderr string) {
	t.Helper()
	event := filepath.Join(t.TempDir(), "event.json")
	os.WriteFile(event, []byte(`{"action":"opened","number":7,"pull_request":{"number":7,"base":{"ref":"main"}}}`), 0o644)
	output := filepath.Join(t.TempDir(), "output")
	vars := map[string]string{
		"GITHUB_TOKEN": "gh-token", "GITHUB_API_URL": gh.URL, "GITHUB_REPOSITORY": "acme/app",
		"GITHUB_EVENT_PATH": event, "GITHUB_OUTPUT": output, "OPENSEEK_BIN": os.Args[0],
		"INPUT_ARGS": "--api-url " + srv.URL() + " --model test-model", "GITHUB_WORKSPACE": dir,
	}
	for k, v := range inputs {
		vars[k] = v
	}
	env := append([]string{"OPENSEEK_TEST_MAIN=1", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "OPENSEEK_RETRY_BACKOFF_MS=1"}, startPathEnv()...)
	var errb strings.Builder
	code = ghaction.Main(context.Background(), func(k string) string { return vars[k] }, env, &errb)
	if out, _ := os.ReadFile(output); !strings.Contains(string(out), "exit-code=") && code != 1 {
		t.Errorf("no exit-code output: %q", out)
	}
	return code, errb.String()
}

// TestGitHubAction runs the action's program against a fake GitHub API
// and the scripted model: a task's answer (with its unbacked claim), a
// failed run and a review are each posted as a comment on the pull
// request, and the step's exit status is openseek's.
func TestGitHubAction(t *testing.T) {
	t.Parallel()
	gh := newFakeGitHub(t)

	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "w1", Name: "write", Args: `{"path":"CHANGELOG.md","content":"- fix\n"}`}),
		llmtest.Text("I added the changelog entry. All tests pass."),
	)
	code, stderr := runAction(t, t.TempDir(), gh, srv, map[string]string{"INPUT_TASK": "add a changelog entry"})
	if code != 0 {
		t.Fatalf("task: exit %d\n%s", code, stderr)
	}
	c := gh.posted()
	if len(c) != 1 {
		t.Fatalf("%d comments posted", len(c))
	}
	for _, want := range []string{ghaction.Marker, "### OpenSeek: finished", "> add a changelog entry", "I added the changelog entry. All tests pass.",
		"- ⚠️ The answer says the tests pass, but no test ran in this session.", "2 steps", "cost unknown"} {
		if !strings.Contains(c[0], want) {
			t.Errorf("the task's comment lacks %q:\n%s", want, c[0])
		}
	}

	srv = llmtest.NewServer(t, llmtest.Fail{Status: 401, Body: `{"error":{"message":"Authentication Fails"}}`})
	code, _ = runAction(t, t.TempDir(), gh, srv, map[string]string{"INPUT_TASK": "anything"})
	if code != exitModel {
		t.Errorf("failed run: exit %d, want %d", code, exitModel)
	}
	if c = gh.posted(); len(c) != 2 || !strings.Contains(c[1], "### OpenSeek: failed (exit 3: the model or provider failed)") || !strings.Contains(c[1], "Authentication Fails") {
		t.Errorf("the failed run's comment:\n%s", c[len(c)-1])
	}

	srv = llmtest.NewServer(t, llmtest.Text(cliReport))
	code, stderr = runAction(t, gitRepo(t), gh, srv, map[string]string{"INPUT_MODE": "review", "INPUT_BASE": "main"})
	if code != 0 {
		t.Fatalf("review: exit %d\n%s", code, stderr)
	}
	if c = gh.posted(); len(c) != 3 || !strings.Contains(c[2], "### OpenSeek review: request changes") || !strings.Contains(c[2], "- **high** `app.py:2` eval of input") {
		t.Errorf("the review's comment:\n%s", c[len(c)-1])
	}

	// A token the API refuses fails the step and says why.
	srv = llmtest.NewServer(t, llmtest.Text("ok"))
	if code, stderr = runAction(t, t.TempDir(), gh, srv, map[string]string{"INPUT_TASK": "x", "GITHUB_TOKEN": "wrong"}); code != 1 || !strings.Contains(stderr, "post the comment: 404 Not Found") {
		t.Errorf("refused token: exit %d %s", code, stderr)
	}
}

func TestGitHubActionAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^TestGitHubAction$")
}

// action.yml builds the program this test runs and hands every input to
// it under the name it reads.
func TestActionYAML(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]any `yaml:"inputs"`
		Runs   struct {
			Using string `yaml:"using"`
			Steps []struct {
				Run string            `yaml:"run"`
				Env map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using %q", a.Runs.Using)
	}
	env := map[string]string{}
	var builds bool
	for _, s := range a.Runs.Steps {
		for k, v := range s.Env {
			env[k] = v
		}
		builds = builds || strings.Contains(s.Run, "./.github/action") && strings.Contains(s.Run, "./cmd/openseek")
	}
	if !builds {
		t.Error("no step builds openseek and the action's program")
	}
	for name := range a.Inputs {
		key := "INPUT_" + strings.ToUpper(name)
		if name == "github-token" {
			key = "GITHUB_TOKEN"
		}
		if env[key] != "${{ inputs."+name+" }}" {
			t.Errorf("input %s is not passed as %s (got %q)", name, key, env[key])
		}
	}
	if out, err := goBuild("-o", os.DevNull, "../../.github/action").CombinedOutput(); err != nil {
		t.Errorf("the action's program does not build: %v\n%s", err, out)
	}
}
