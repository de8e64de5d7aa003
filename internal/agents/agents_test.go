package agents

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var known = []string{"edit", "grep", "read", "shell", "write"}

func TestLoad(t *testing.T) {
	ws, global := t.TempDir(), t.TempDir()
	reviewer := write(t, ws, ".openseek/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews diffs\ntools: read, grep, read\nmodel: kimi-k2\n---\nYou review code.\n")
	tester := write(t, ws, ".openseek/agents/tester.md", "---\ndescription: >\n  Runs the\n  tests\ntools: [shell, read]\nmodel: inherit\n---\n\nRun go test.\n")
	write(t, ws, ".openseek/agents/notes.txt", "ignored")
	badTool := write(t, ws, ".openseek/agents/fixer.md", "---\nname: fixer\ndescription: Fixes\ntools: Read, edit\n---\nFix it.\n")
	badYAML := write(t, ws, ".openseek/agents/broken.md", "---\nname: [x\n---\nbody\n")
	noDesc := write(t, ws, ".openseek/agents/nodesc.md", "---\nname: nodesc\n---\nbody\n")
	noBody := write(t, ws, ".openseek/agents/nobody.md", "---\nname: nobody\ndescription: d\n---\n\n")
	badTools := write(t, ws, ".openseek/agents/numbers.md", "---\nname: numbers\ndescription: d\ntools: [1, 2]\n---\nx\n")
	write(t, global, "reviewer.md", "---\nname: reviewer\ndescription: global reviewer\n---\nglobal\n")
	planner := write(t, global, "planner.md", "---\nname: planner\ndescription: Plans work\n---\nPlan.\n")

	got, errs := Load(ws, global, known)
	want := []Agent{
		{Name: "planner", Description: "Plans work", Prompt: "Plan.", Path: planner},
		{Name: "reviewer", Description: "Reviews diffs", Model: "kimi-k2", Prompt: "You review code.", Path: reviewer, Tools: []string{"read", "grep"}},
		{Name: "tester", Description: "Runs the tests", Prompt: "Run go test.", Path: tester, Tools: []string{"shell", "read"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	wantErrs := map[string]string{
		badTool:  `agent fixer (` + badTool + `): unknown tool "Read"; known tools: edit, grep, read, shell, write`,
		badYAML:  "front matter:",
		noDesc:   "no description",
		noBody:   "no instructions",
		badTools: "tools: want tool names",
	}
	if len(errs) != len(wantErrs) {
		t.Fatalf("errors %v, want %d", errs, len(wantErrs))
	}
	for path, sub := range wantErrs {
		found := false
		for _, e := range errs {
			if strings.Contains(e.Error(), path) && strings.Contains(e.Error(), sub) {
				found = true
			}
		}
		if !found {
			t.Errorf("no error naming %s with %q in %v", path, sub, errs)
		}
	}
}

func TestLoadEdges(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		global  bool
		want    []string // agent names
		errWant string
	}{
		{"no directories", nil, false, nil, ""},
		{"name defaults to file stem", map[string]string{".openseek/agents/docs.md": "---\ndescription: d\n---\nx"}, false, []string{"docs"}, ""},
		{"duplicate name in one dir", map[string]string{
			".openseek/agents/a.md": "---\nname: same\ndescription: d\n---\nx",
			".openseek/agents/b.md": "---\nname: same\ndescription: d\n---\ny",
		}, false, []string{"same"}, "already used by"},
		{"name with space", map[string]string{".openseek/agents/a.md": "---\nname: two words\ndescription: d\n---\nx"}, false, nil, "must be one word"},
		{"tools as mapping", map[string]string{".openseek/agents/a.md": "---\ndescription: d\ntools: {a: 1}\n---\nx"}, false, nil, "tools: want a list"},
		{"empty tools means all", map[string]string{".openseek/agents/a.md": "---\ndescription: d\ntools: \"\"\n---\nx"}, false, []string{"a"}, ""},
		{"no front matter", map[string]string{".openseek/agents/a.md": "just text"}, false, nil, "no front matter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			for name, text := range tt.files {
				write(t, ws, name, text)
			}
			got, errs := Load(ws, filepath.Join(ws, "absent"), known)
			var names []string
			for _, a := range got {
				names = append(names, a.Name)
				if a.Tools != nil && len(a.Tools) == 0 {
					t.Errorf("agent %s: empty non-nil Tools", a.Name)
				}
			}
			if !reflect.DeepEqual(names, tt.want) {
				t.Fatalf("agents %v, want %v", names, tt.want)
			}
			switch {
			case tt.errWant == "" && len(errs) != 0:
				t.Fatalf("errors %v", errs)
			case tt.errWant != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tt.errWant)):
				t.Fatalf("errors %v, want one with %q", errs, tt.errWant)
			}
		})
	}
}

func TestUnknownToolListIsCapped(t *testing.T) {
	ws := t.TempDir()
	write(t, ws, ".openseek/agents/a.md", "---\ndescription: d\ntools: nope\n---\nx")
	var many []string
	for i := range 50 {
		many = append(many, "mcp__s__t"+string(rune('A'+i)))
	}
	_, errs := Load(ws, "", many)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `unknown tool "nope"`) || !strings.Contains(errs[0].Error(), "(10 more)") {
		t.Fatalf("errors %v", errs)
	}
}

func TestRunMode(t *testing.T) {
	for _, tc := range []struct {
		run     string
		process bool
		err     string
	}{
		{"", false, ""},
		{"run: in-process\n", false, ""},
		{"run: process\n", true, ""},
		{"run: thread\n", false, `run must be in-process or process, not "thread"`},
	} {
		dir := t.TempDir()
		write(t, dir, "a.md", "---\ndescription: d\n"+tc.run+"---\nDo it.\n")
		got, errs := Load("", dir, nil)
		switch {
		case tc.err != "":
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.err) || len(got) != 0 {
				t.Errorf("%q: %v %v", tc.run, got, errs)
			}
		case len(errs) != 0 || len(got) != 1 || got[0].Process != tc.process:
			t.Errorf("%q: %+v %v", tc.run, got, errs)
		}
	}
}
