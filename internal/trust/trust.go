// Package trust remembers which repository-defined files the user has
// trusted. A repository's .mcp.json starts programs, its
// .openseek/hooks.json runs commands and its .openseek/config.toml may
// let commands run unasked (allow rules), run programs (verify.command)
// or send data elsewhere (model base URLs, the fleet's NATS): they come
// from whoever wrote the repository, so they take effect only once the
// user trusted them (the config's keys are classed in package config).
// Trust is recorded per absolute path together with the SHA-256 of the content
// trusted: a file that changes must be trusted again.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/openseek/openseek/internal/beneath"
)

// Store is the trust record of one user, kept in ~/.openseek/trusted.json.
type Store struct {
	path string
}

// Entry is one trusted file.
type Entry struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Open returns the store under home (nothing is read until asked).
func Open(home string) *Store {
	return &Store{path: filepath.Join(home, ".openseek", "trusted.json")}
}

// Path is where the store lives.
func (s *Store) Path() string { return s.path }

func (s *Store) load() (map[string]string, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	var entries []Entry
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	m := make(map[string]string, len(entries))
	for _, e := range entries {
		m[e.Path] = e.SHA256
	}
	return m, nil
}

func digest(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// Trusted reports whether path, with its current content, was trusted.
func (s *Store) Trusted(path string) bool {
	data, err := os.ReadFile(path)
	return err == nil && s.TrustedData(path, data)
}

// TrustedData reports whether path was trusted with exactly this content:
// a reader that already holds the file's bytes asks about those, not about
// whatever the file holds a moment later.
func (s *Store) TrustedData(path string, data []byte) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	m, err := s.load()
	if err != nil {
		return false
	}
	sum := sha256.Sum256(data)
	want, ok := m[abs]
	return ok && want == hex.EncodeToString(sum[:])
}

// Trust records paths (with their current content) as trusted.
func (s *Store) Trust(paths ...string) error {
	m, err := s.load()
	if err != nil {
		return err
	}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		d, err := digest(abs)
		if err != nil {
			return fmt.Errorf("trust %s: %w", p, err)
		}
		m[abs] = d
	}
	return s.save(m)
}

// List returns the trusted entries sorted by path.
func (s *Store) List() ([]Entry, error) {
	m, err := s.load()
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(m))
	for p, d := range m {
		out = append(out, Entry{Path: p, SHA256: d})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func (s *Store) save(m map[string]string) error {
	entries := make([]Entry, 0, len(m))
	for p, d := range m {
		entries = append(entries, Entry{Path: p, SHA256: d})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Path < entries[j].Path })
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	return beneath.WriteFile(s.path, append(data, '\n'), 0o600)
}

// WorkspaceFiles are the repository-defined files that need trust: MCP
// servers and hooks start programs; the config's allow rules let commands
// run unasked.
func WorkspaceFiles(workspace string) []string {
	return []string{
		filepath.Join(workspace, ".mcp.json"),
		filepath.Join(workspace, ".openseek", "hooks.json"),
		filepath.Join(workspace, ".openseek", "config.toml"),
	}
}
