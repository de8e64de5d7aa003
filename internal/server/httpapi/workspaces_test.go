package httpapi

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
)

// Server.Add serves a second workspace under /w/1: its own API and
// sessions behind the same token, Host and origin checks; a path that
// only starts like the prefix is not its.
func TestAddServesAnotherWorkspace(t *testing.T) {
	other, model := t.TempDir(), llmtest.NewServer(t)
	var second *engine.Host
	f := start(t, model, setup{add: func(s *Server) {
		h, err := engine.NewHost(context.Background(), engine.Options{Dir: other, Home: t.TempDir(), NoSandbox: true, Model: "test-model", APIURL: model.URL(),
			Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		second = h
		s.Add("/w/1", New(h, Options{Token: testToken}))
	}})
	workspace := func(path string) string {
		code, body, _ := f.do("GET", path, "")
		var h struct{ Workspace string }
		if code != 200 || json.Unmarshal([]byte(body), &h) != nil {
			return ""
		}
		return h.Workspace
	}
	if got := workspace("/w/1/v1/health"); got != second.Workspace() {
		t.Errorf("/w/1/v1/health names %q, want %q", got, second.Workspace())
	}
	if got := workspace("/v1/health"); got != f.host.Workspace() {
		t.Errorf("/v1/health names %q", got)
	}
	if got := workspace("/w/10/v1/health"); got != "" {
		t.Errorf("/w/10/ reached a workspace: %q", got)
	}
	if code, body, _ := f.do("POST", "/w/1/v1/sessions", `{"id":"two"}`); code != 201 {
		t.Fatalf("create in the second workspace = %d %s", code, body)
	}
	if _, ok := second.Get("two"); !ok {
		t.Error("the session was not opened in the second workspace")
	}
	if code, _, _ := f.do("GET", "/v1/sessions/two", ""); code != 404 {
		t.Errorf("the first workspace has the second's session: %d", code)
	}
	if code, _, _ := f.do("GET", "/w/1/v1/health", "", "Authorization", ""); code != 401 {
		t.Errorf("no token = %d", code)
	}
	if code, _, _ := f.do("GET", "/w/1/v1/health", "", "Host", "rebound.example:80"); code != 403 {
		t.Errorf("foreign Host = %d", code)
	}
	if code, _, _ := f.do("POST", "/w/1/v1/sessions", `{}`, "Origin", "http://127.0.0.1:1", "Sec-Fetch-Site", "same-site"); code != 403 {
		t.Errorf("cross-origin POST = %d", code)
	}
}
