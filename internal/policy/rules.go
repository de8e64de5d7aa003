package policy

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/BurntSushi/toml"
)

// Rule is one allow / ask / deny rule of a config file:
//
//	[[rules]]
//	pattern = ["git", "push"]
//	decision = "ask"
//
// Pattern matches a command whose argv starts with these exact words (no
// globs); the first word also matches a path ending in it (/usr/bin/git).
type Rule struct {
	Pattern  []string
	Decision Decision
	Source   string // "file:line" of the [[rules]] header
}

// String is the rule as `rules check` prints it: deny ["git" "push"] (file:3).
func (r Rule) String() string {
	return fmt.Sprintf("%s %s (%s)", r.Decision, quoteWords(r.Pattern), r.Source)
}

// ParseRules reads the [[rules]] tables of a TOML config file; every other
// key of the file is left to its own reader. An error reads
// "path:line: reason" and no rule of the file is returned.
func ParseRules(path string, data []byte) ([]Rule, error) {
	var doc struct {
		Rules []map[string]any `toml:"rules"`
	}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s:%d: rules must be an array of tables ([[rules]]): %v", path, keyLine(data, "rules"), err)
	}
	lines := headerLines(data, "rules")
	rules := make([]Rule, 0, len(doc.Rules))
	for i, raw := range doc.Rules {
		line := keyLine(data, "rules")
		if len(lines) == len(doc.Rules) {
			line = lines[i]
		}
		r, err := ruleFrom(raw)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: rule %d: %w", path, line, i+1, err)
		}
		r.Source = fmt.Sprintf("%s:%d", path, line)
		rules = append(rules, r)
	}
	return rules, nil
}

// LoadRules reads the rules of each config file in order (user, then
// project); a file that does not exist has none. Order does not loosen
// anything: the strictest matching rule always wins.
func LoadRules(paths ...string) ([]Rule, error) {
	var all []Rule
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read rules: %w", err)
		}
		rs, err := ParseRules(p, data)
		if err != nil {
			return nil, err
		}
		all = append(all, rs...)
	}
	return all, nil
}

func ruleFrom(raw map[string]any) (Rule, error) {
	var r Rule
	for k := range raw {
		if k != "pattern" && k != "decision" {
			return r, fmt.Errorf("unknown key %q: a rule has pattern and decision", k)
		}
	}
	pat, ok := raw["pattern"]
	if !ok {
		return r, errors.New(`missing pattern: give the command's leading words, e.g. pattern = ["git", "push"]`)
	}
	words, ok := pat.([]any)
	if !ok || len(words) == 0 {
		return r, errors.New(`pattern must be a non-empty array of strings, e.g. ["git", "push"]`)
	}
	for _, w := range words {
		s, ok := w.(string)
		switch {
		case !ok:
			return r, fmt.Errorf("pattern word %v is not a string", w)
		case s == "":
			return r, errors.New("pattern has an empty word")
		case strings.ContainsAny(s, " \t\n"):
			return r, fmt.Errorf("pattern word %q contains a space: write each word separately, e.g. %s", s, quoteWords(strings.Fields(s)))
		}
		r.Pattern = append(r.Pattern, s)
	}
	dec, ok := raw["decision"]
	if !ok {
		return r, errors.New(`missing decision: use "allow", "ask" or "deny"`)
	}
	ds, ok := dec.(string)
	if !ok {
		return r, errors.New(`decision must be a string: "allow", "ask" or "deny"`)
	}
	d, err := ParseDecision(ds)
	if err != nil {
		return r, err
	}
	r.Decision = d
	return r, nil
}

// headerLines finds the 1-based lines of the [[name]] headers in a TOML
// document that the decoder has already accepted; the decoder reports no
// positions for array elements. Multi-line strings are skipped so a
// header-looking line inside one does not count.
func headerLines(data []byte, name string) []int {
	var (
		out   []int
		delim string // closing delimiter of the open multi-line string
	)
	for i, line := range strings.Split(string(data), "\n") {
		if delim != "" {
			if strings.Count(line, delim)%2 == 1 {
				delim = ""
			}
			continue
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[[") {
			if end := strings.Index(t, "]]"); end > 0 && unquoteKey(t[2:end]) == name {
				out = append(out, i+1)
			}
			continue
		}
		for _, d := range []string{`"""`, `'''`} {
			if strings.Count(line, d)%2 == 1 {
				delim = d
				break
			}
		}
	}
	return out
}

// keyLine is the first line where name is assigned or opens a table; 1
// when not found.
func keyLine(data []byte, name string) int {
	for i, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if k, _, ok := strings.Cut(t, "="); ok && unquoteKey(k) == name {
			return i + 1
		}
		if strings.HasPrefix(t, "[") && unquoteKey(strings.Trim(t, "[] \t")) == name {
			return i + 1
		}
	}
	return 1
}

func unquoteKey(k string) string {
	k = strings.TrimSpace(k)
	if len(k) >= 2 && (k[0] == '"' || k[0] == '\'') && k[len(k)-1] == k[0] {
		k = k[1 : len(k)-1]
	}
	return k
}

// quoteWords renders words as a TOML/JSON array: ["git", "push"].
func quoteWords(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = fmt.Sprintf("%q", w)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
