package policy

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseRules(t *testing.T) {
	const cfg = `model = "deepseek-chat"   # other keys belong to other readers

[[rules]]
pattern = ["git", "push"]
decision = "deny"

[mcp]
servers = 2

[[ rules ]] # spaced header
pattern = ["rm"]
decision = "ask"

[[rules]]
pattern = ['make']
decision = "allow"
`
	got, err := ParseRules("cfg.toml", []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{
		{Pattern: []string{"git", "push"}, Decision: Deny, Source: "cfg.toml:3"},
		{Pattern: []string{"rm"}, Decision: Ask, Source: "cfg.toml:10"},
		{Pattern: []string{"make"}, Decision: Allow, Source: "cfg.toml:14"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseRules =\n%+v\nwant\n%+v", got, want)
	}
	if got, err := ParseRules("empty.toml", nil); err != nil || len(got) != 0 {
		t.Errorf("empty file: %v, %v", got, err)
	}
}

func TestParseRulesErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"syntax", "[[rules]]\npattern = [\"git\"\ndecision = \"deny\"\n", "r.toml:3: "},
		{"unterminated string", "a = 1\n[[rules]]\npattern = [\"git]\n", "r.toml:3: "},
		{"bad decision", "[[rules]]\npattern = [\"a\"]\ndecision = \"allow\"\n\n[[rules]]\npattern = [\"b\"]\ndecision = \"maybe\"\n",
			`r.toml:5: rule 2: unknown decision "maybe": use "allow", "ask" or "deny"`},
		{"missing decision", "x = 1\n\n[[rules]]\npattern = [\"a\"]\n", "r.toml:3: rule 1: missing decision"},
		{"missing pattern", "[[rules]]\ndecision = \"deny\"\n", "r.toml:1: rule 1: missing pattern"},
		{"empty pattern", "[[rules]]\npattern = []\ndecision = \"deny\"\n", "r.toml:1: rule 1: pattern must be a non-empty array of strings"},
		{"string pattern", "[[rules]]\npattern = \"git push\"\ndecision = \"deny\"\n", "r.toml:1: rule 1: pattern must be a non-empty array"},
		{"number word", "[[rules]]\npattern = [\"git\", 1]\ndecision = \"deny\"\n", "r.toml:1: rule 1: pattern word 1 is not a string"},
		{"spaced word", "[[rules]]\npattern = [\"git push\"]\ndecision = \"deny\"\n", `r.toml:1: rule 1: pattern word "git push" contains a space: write each word separately, e.g. ["git", "push"]`},
		{"unknown key", "[[rules]]\npattern = [\"git\"]\ndecison = \"deny\"\n", `r.toml:1: rule 1: unknown key "decison"`},
		{"rules not tables", "rules = 3\n", "r.toml:1: rules must be an array of tables"},
		{"multi-line string before", "doc = \"\"\"\n[[rules]]\n\"\"\"\n[[rules]]\npattern = [\"a\"]\n", "r.toml:4: rule 1: missing decision"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rules, err := ParseRules("r.toml", []byte(tc.data))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error = %v, want prefix %q", err, tc.want)
			}
			if rules != nil {
				t.Errorf("rules returned with an error: %v", rules)
			}
		})
	}
}

func TestLoadRules(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "user.toml")
	project := filepath.Join(dir, "project.toml")
	bad := filepath.Join(dir, "bad.toml")
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(user, "[[rules]]\npattern = [\"git\", \"push\"]\ndecision = \"deny\"\n")
	write(project, "[[rules]]\npattern = [\"git\", \"push\"]\ndecision = \"allow\"\n")
	write(bad, "[[rules]]\npattern = [\"x\"]\ndecision = \"no\"\n")

	rules, err := LoadRules(user, filepath.Join(dir, "missing.toml"), project)
	if err != nil || len(rules) != 2 {
		t.Fatalf("LoadRules = %v, %v", rules, err)
	}
	// The project's allow does not loosen the user's deny.
	v := (&Policy{Mode: ModeAlways, Rules: rules}).CheckCommand("git push")
	if v.Decision != Deny || !strings.Contains(v.Reason, user+":1") {
		t.Errorf("git push: %s (%s), want deny by %s:1", v.Decision, v.Reason, user)
	}
	if _, err := LoadRules(user, bad); err == nil || !strings.HasPrefix(err.Error(), bad+":1: rule 1: unknown decision") {
		t.Errorf("bad file error = %v", err)
	}
}

func FuzzParseRules(f *testing.F) {
	f.Add("[[rules]]\npattern = [\"git\", \"push\"]\ndecision = \"deny\"\n")
	f.Add("rules = [{pattern = [\"a\"], decision = \"ask\"}]")
	f.Add("[[rules]]\npattern = []\n")
	f.Fuzz(func(t *testing.T, data string) {
		rules, err := ParseRules("f.toml", []byte(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.toml:") || rules != nil {
				t.Fatalf("error %q (rules %v)", err, rules)
			}
			return
		}
		for _, r := range rules {
			if len(r.Pattern) == 0 || !strings.HasPrefix(r.Source, "f.toml:") {
				t.Fatalf("bad rule %+v", r)
			}
		}
	})
}
