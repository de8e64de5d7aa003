package tui

import (
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/engine"
)

func setupPress(m *setupModel, keys ...string) { pressOn(m, keys...) }

// The setup: typing filters the catalogue, Enter picks, the key is
// masked; Tab asks for a command instead, shown as typed; a model other
// than the one that lacked a key becomes the default.
func TestSetupChoices(t *testing.T) {
	models := []engine.ModelInfo{{Model: config.Model{Provider: "deepseek", Name: "deepseek-v4-flash"}},
		{Model: config.Model{Provider: "kimi", Name: "kimi-k2.7-code"}}}
	req := SetupRequest{Missing: &config.MissingKeyError{Model: "deepseek-v4-flash", Provider: "deepseek", Hint: "DEEPSEEK"},
		Models: models, Where: "/h/.openseek/config.toml", NoColor: true}

	m := newSetup(req)
	setupPress(m, "enter", "sk-secret")
	if v := m.View().Content; strings.Contains(v, "sk-secret") || !strings.Contains(v, "•••") {
		t.Errorf("the key is not masked:\n%s", v)
	}
	setupPress(m, "enter")
	if got := m.result(); !m.done || got != (config.Setup{Provider: "deepseek", Key: "sk-secret"}) {
		t.Errorf("result = %+v (done %v)", got, m.done)
	}
	if v := m.View().Content; strings.Contains(v, "sk-secret") {
		t.Errorf("the last frame shows the key:\n%s", v)
	}

	m = newSetup(req)
	setupPress(m, "kimi")
	if v := m.View().Content; strings.Contains(v, "deepseek/") || !strings.Contains(v, "› kimi/kimi-k2.7-code") {
		t.Errorf("the filter does not narrow the list:\n%s", v)
	}
	setupPress(m, "enter", "tab", "pass show kimi")
	if v := m.View().Content; !strings.Contains(v, "pass show kimi") {
		t.Errorf("the command is not shown as typed:\n%s", v)
	}
	setupPress(m, "enter")
	if got := m.result(); got != (config.Setup{Provider: "kimi", Model: "kimi/kimi-k2.7-code", KeyCommand: "pass show kimi"}) {
		t.Errorf("result = %+v", got)
	}
}
