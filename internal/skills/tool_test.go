package skills

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/tool"
)

func TestTool(t *testing.T) {
	dir := t.TempDir()
	deploy := Skill{Name: "deploy", Description: "Ship it", Path: write(t, dir, "deploy/SKILL.md", skillFile("deploy", "Ship it", "Run ./scripts/ship.sh\n")), Source: Workspace}
	lint := Skill{Name: "lint", Description: "Lint", Path: write(t, dir, "lint.md", skillFile("lint", "Lint", "golangci-lint run")), Source: Global}
	gone := Skill{Name: "gone", Description: "deleted after discovery", Path: filepath.Join(dir, "gone/SKILL.md")}
	tl := Tool([]Skill{deploy, lint, gone})
	if tl.Name != "skill" {
		t.Fatalf("name %q", tl.Name)
	}
	tests := []struct {
		name    string
		args    string
		isError bool
		want    []string
	}{
		{"directory layout", `{"name":"deploy"}`, false, []string{"Run ./scripts/ship.sh", "Skill directory: " + filepath.Join(dir, "deploy")}},
		{"flat layout", `{"name":" lint "}`, false, []string{"golangci-lint run", "Skill directory: " + dir}},
		{"unknown", `{"name":"nope"}`, true, []string{`unknown skill "nope"`, "deploy, lint, gone"}},
		{"file vanished", `{"name":"gone"}`, true, []string{"read skill gone"}},
		{"missing arg", `{}`, true, []string{"error: skill requires arguments.name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := tl.Run(context.Background(), &tool.Env{}, json.RawMessage(tt.args))
			text := res.Content.Text()
			if res.IsError != tt.isError {
				t.Fatalf("IsError = %v: %s", res.IsError, text)
			}
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("result %q lacks %q", text, w)
				}
			}
			if strings.Contains(text, "description: ") {
				t.Errorf("front matter leaked into %q", text)
			}
		})
	}
	res, _ := Tool(nil).Run(context.Background(), &tool.Env{}, json.RawMessage(`{"name":"x"}`))
	if !res.IsError || !strings.Contains(res.Content.Text(), "no skills are installed") {
		t.Fatalf("empty tool: %q", res.Content.Text())
	}
}

func TestSection(t *testing.T) {
	tests := []struct {
		name   string
		skills []Skill
		want   string
	}{
		{"none", nil, ""},
		{"two", []Skill{{Name: "a", Description: "does A"}, {Name: "b", Description: "does\n  B"}},
			"# Skills\nSkills are instructions for particular kinds of task. When a task matches a skill's description, call the skill tool with the skill's name to load its instructions before you start, then follow them. Load a skill only when it applies.\n- a: does A\n- b: does B\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Section(tt.skills); got != tt.want {
				t.Fatalf("Section = %q\nwant %q", got, tt.want)
			}
		})
	}
}
