// Package cassette is test support for the model adapters: it loads the
// go-vcr cassettes recorded by charmbracelet/fantasy (kept in this
// package's testdata/cassettes with their licence and notice, see the
// README there) and replays their responses, in order, from an httptest server
// that records what the client sent.
//
// It imports package testing and is meant only for _test.go files.
// Failures (a missing or unreadable cassette, a request beyond the
// recording) fail the calling test.
package cassette

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/goccy/go-yaml"
)

// Cassette is the part of a go-vcr recording the replays use.
type Cassette struct {
	Interactions []Interaction `yaml:"interactions"`
}

// Interaction is one recorded request and its response.
type Interaction struct {
	Request struct {
		Body string `yaml:"body"`
		URL  string `yaml:"url"`
	} `yaml:"request"`
	Response struct {
		Body    string              `yaml:"body"`
		Headers map[string][]string `yaml:"headers"`
		Code    int                 `yaml:"code"`
	} `yaml:"response"`
}

// Dir finds internal/llm/cassette/testdata/cassettes below the module
// root (the first directory above the working directory with a go.mod).
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
	c := filepath.Join(dir, "internal", "llm", "cassette", "testdata", "cassettes")
	if _, err := os.Stat(c); err != nil {
		t.Fatalf("cassettes not found: %v", err)
	}
	return c
}

// Load reads and parses one cassette file.
func Load(t testing.TB, file string) *Cassette {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var c Cassette
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("parse %s: %v", file, err)
	}
	return &c
}

// Suite runs replay as a subtest, named provider/cassette, for every
// cassette of the recorded suite (Dir/suite/*/*.yaml); a suite without
// cassettes fails the test.
func Suite(t *testing.T, suite string, replay func(t *testing.T, file string)) {
	files, err := filepath.Glob(filepath.Join(Dir(t), suite, "*", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no cassettes for %s (%v)", suite, err)
	}
	for _, f := range files {
		name := filepath.Base(filepath.Dir(f)) + "/" + strings.TrimSuffix(filepath.Base(f), ".yaml")
		t.Run(name, func(t *testing.T) { replay(t, f) })
	}
}

// Server answers the n-th request with the n-th recorded response (its
// status, Content-Type and body) and keeps every request body. A request
// beyond the recording fails the test and gets HTTP 500.
type Server struct {
	URL string // the server's base URL, no trailing slash

	srv  *httptest.Server
	mu   sync.Mutex
	sent [][]byte
}

// Serve starts a Server for c, closed when the test ends. check, when not
// nil, is called with each request and its index (from 0) to assert on
// its path and headers.
func Serve(t testing.TB, c *Cassette, check func(n int, r *http.Request)) *Server {
	s := &Server{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		n := len(s.sent)
		s.sent = append(s.sent, body)
		s.mu.Unlock()
		if check != nil {
			check(n, r)
		}
		if n >= len(c.Interactions) {
			t.Errorf("request %d beyond the %d recorded interactions", n+1, len(c.Interactions))
			http.Error(w, "no more interactions", http.StatusInternalServerError)
			return
		}
		rec := c.Interactions[n].Response
		for _, ct := range rec.Headers["Content-Type"] {
			w.Header().Add("Content-Type", ct)
		}
		w.WriteHeader(rec.Code)
		_, _ = io.WriteString(w, rec.Body)
	}))
	t.Cleanup(s.srv.Close)
	s.URL = s.srv.URL
	return s
}

// Sent returns the bodies of the requests received so far, in order.
func (s *Server) Sent() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.sent...)
}
