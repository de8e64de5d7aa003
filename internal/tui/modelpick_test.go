package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm"
)

// catalogued is the scripted backend with a model catalogue.
type catalogued struct{ *scripted }

func (catalogued) Models() []engine.ModelInfo {
	return []engine.ModelInfo{
		{Model: config.Model{Provider: "test", Name: "model", Window: 100000}, Ready: true},
		{Model: config.Model{Provider: "deepseek", Name: "deepseek-chat", Window: 128000, Price: llm.Price{InputHit: 0.07, InputMiss: 0.27, Output: 1.1}}, Ready: true},
		{Model: config.Model{Provider: "openai", Name: "gpt-5", Window: 400000}, Ready: false},
	}
}

// /model lists the catalogue (window, price, ready or not, the one in
// use marked); picking a ready model reopens the session on it, a model
// without a key is refused with what to do.
func TestModelPicker(t *testing.T) {
	s := newScripted()
	m := newModel(t, s)
	m.backend = catalogued{s}
	press(m, "/model", "enter")
	golden.RequireEqual(t, screen(m))

	press(m, "down", "down", "enter")
	if sc := screen(m); !strings.Contains(sc, "openai/gpt-5 has no key") {
		t.Errorf("a model without a key was not refused:\n%s", sc)
	}
	press(m, "/model", "enter", "down")
	_, cmd := m.Update(keyMsg("enter"))
	if cmd == nil {
		t.Fatal("picking a ready model opened nothing")
	}
	m.Update(cmd())
	if got := s.opens[len(s.opens)-1]; got.ID != "s1" || got.Model != "deepseek/deepseek-chat" {
		t.Errorf("reopened with %+v, want session s1 on deepseek/deepseek-chat", got)
	}
	if sc := screen(m); !strings.Contains(sc, "model deepseek/deepseek-chat from the next turn") {
		t.Errorf("the switch is not said:\n%s", sc)
	}
}
