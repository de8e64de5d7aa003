package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"charm.land/catwalk/pkg/catwalk"
	"charm.land/catwalk/pkg/embedded"

	"github.com/openseek/openseek/internal/llm"
)

// TestTableIsCurrent: the committed table is what the catwalk version in
// go.mod generates.
func TestTableIsCurrent(t *testing.T) {
	want, err := generate(embedded.GetAll(), catwalkVersion())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "catalogue_data.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("internal/llm/catalogue_data.go is out of date with charm.land/catwalk in go.mod: run go generate ./internal/llm")
	}
}

func TestGenerate(t *testing.T) {
	src, err := generate([]catwalk.Provider{
		{ID: "b", DefaultLargeModelID: "big", DefaultSmallModelID: "big", Models: []catwalk.Model{
			{ID: "big", ContextWindow: 200000, DefaultMaxTokens: 8000, CostPer1MIn: 3, CostPer1MOut: 15, CostPer1MInCached: 3.75, CostPer1MOutCached: 0.3, CanReason: true},
		}},
		{ID: "", Models: []catwalk.Model{{ID: "lost"}}},
		{ID: "a", Models: []catwalk.Model{{ID: "old"}}},
		{ID: "a", DefaultSmallModelID: "new", Models: []catwalk.Model{{ID: "new", CostPer1MIn: 0.1, CostPer1MOut: 0.2}}},
	}, "v0.0.0")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	for _, want := range []string{
		"from charm.land/catwalk v0.0.0; DO NOT EDIT.",
		// sorted by id; the last "a" wins
		`{id: "a", defaults: []string{"new"}, models: []CatalogueModel{`,
		`{Provider: "a", Name: "new", Window: 0, MaxOutput: 0, Price: Price{InputHit: 0.1, InputMiss: 0.1, Output: 0.2}, Reasoning: false},`,
		// the cheaper cached column is the hit price; defaults once each
		`{id: "b", defaults: []string{"big"}, models: []CatalogueModel{`,
		`{Provider: "b", Name: "big", Window: 200000, MaxOutput: 8000, Price: Price{InputHit: 0.3, InputMiss: 3, Output: 15}, Reasoning: true},`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("generated source lacks %s\n%s", want, s)
		}
	}
	if strings.Contains(s, "old") || strings.Contains(s, "lost") || strings.Index(s, `id: "a"`) > strings.Index(s, `id: "b"`) {
		t.Errorf("wrong providers or order:\n%s", s)
	}
}

// TestTableMatchesCatwalk: every provider's models and suggestions, as
// llm.Catalogue gives them, are catwalk's, field by field.
func TestTableMatchesCatwalk(t *testing.T) {
	c := llm.LoadCatalogue()
	last := map[string]catwalk.Provider{}
	for _, p := range embedded.GetAll() {
		last[string(p.ID)] = p
	}
	for id, p := range last {
		if id == "" {
			continue
		}
		got := c.Models(id)
		if len(got) != len(p.Models) {
			t.Errorf("%s: %d models, catwalk has %d", id, len(got), len(p.Models))
			continue
		}
		for i, m := range p.Models {
			pr := price(m)
			want := llm.CatalogueModel{Provider: id, Name: m.ID, Window: int(m.ContextWindow), MaxOutput: int(m.DefaultMaxTokens),
				Price: llm.Price{InputHit: pr[0], InputMiss: pr[1], Output: pr[2]}, Reasoning: m.CanReason}
			if got[i] != want {
				t.Errorf("%s model %d: %+v, want %+v", id, i, got[i], want)
			}
		}
		for _, d := range []string{p.DefaultLargeModelID, p.DefaultSmallModelID} {
			if d != "" && !slices.Contains(c.Defaults(id), d) {
				t.Errorf("%s: suggested %q missing from %v", id, d, c.Defaults(id))
			}
		}
	}
}
