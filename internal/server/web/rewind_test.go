package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
)

// twoWrites is a model whose two turns write f.txt: "one", then "two".
func twoWrites(t *testing.T) *llmtest.Server {
	return llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "r1", Name: "shell", Args: `{"cmd":"printf 'one\\n' > f.txt"}`}),
		llmtest.Text("wrote one"),
		llmtest.Calls(llmtest.Call{ID: "r2", Name: "shell", Args: `{"cmd":"printf 'two\\n' > f.txt"}`}),
		llmtest.Text("wrote two"),
	)
}

// POST /sessions/{id}/rewind closes the open, idle session, restores the
// files as they were before the turn and answers what it did.
func TestRewindOpenSession(t *testing.T) {
	h := newHost(t, twoWrites(t), nil)
	s := turn(t, h, "", "first")
	turn(t, h, s.ID(), "second")
	hd := New(h, Options{})
	sub := s.Subscribe(0)
	defer sub.Close()
	ch := httptest.NewRecorder()
	hd.ServeHTTP(ch, httptest.NewRequest("GET", "/sessions/"+s.ID()+"/changes", nil))
	if ch.Code != 200 || !strings.Contains(ch.Body.String(), "f.txt") {
		t.Fatalf("changes = %d %s", ch.Code, ch.Body)
	}
	rec := httptest.NewRecorder()
	hd.ServeHTTP(rec, httptest.NewRequest("POST", "/sessions/"+s.ID()+"/rewind", strings.NewReader(`{"turn":2}`)))
	if rec.Code != http.StatusOK {
		t.Fatalf("rewind = %d %s", rec.Code, rec.Body)
	}
	if b, err := os.ReadFile(filepath.Join(h.Workspace(), "f.txt")); err != nil || string(b) != "one\n" {
		t.Errorf("f.txt after the rewind: %q %v", b, err)
	}
	if _, open := h.Get(s.ID()); open {
		t.Error("the session is still open")
	}
	if _, err := h.Open(context.Background(), engine.OpenOptions{ID: s.ID()}); err != nil {
		t.Errorf("reopen after the rewind: %v", err)
	}
}
