// Package skills finds the skills installed for a workspace and offers
// them to the model: a skill is a Markdown file with name/description
// front matter (the SKILL.md format Anthropic and Codex use) whose body is
// instructions for one kind of task.
//
// Where skills come from, in order of precedence:
//
//	<workspace>/.openseek/skills/<name>/SKILL.md or <name>.md   workspace
//	<workspace>/.agents/skills/<name>/SKILL.md                  workspace (compatibility)
//	<workspace>/.claude/skills/<name>/SKILL.md                  workspace (compatibility)
//	<global>/<name>/SKILL.md or <name>.md                       global (~/.openseek/skills or --global-skills-dir)
//
// The compatibility directories hold only the <name>/SKILL.md layout, as
// they do for the agents that define them. The system prompt lists each
// skill as "- name: description" (Section); the skill tool (Tool) returns
// a skill's body and its directory, so the model can read the scripts and
// references the body names by relative path. A file's name may be left
// out of its front matter (the directory or file name is used); its
// description may not.
//
// Key invariants:
//   - Discover returns skills sorted by name, one per name: an earlier
//     directory above shadows a later one, so a workspace skill shadows a
//     global skill of the same name. A bad file is reported with its path
//     and the others still load; a missing directory is not an error.
//   - Only names and descriptions enter the system prompt (Section), in a
//     deterministic order; a body is read from disk only when the model
//     calls the skill tool, so editing a skill's body needs no restart.
package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Sources of a skill.
const (
	Workspace = "workspace"
	Global    = "global"
)

// fileName is the skill file inside a skill directory.
const fileName = "SKILL.md"

// Skill is one installed skill. Path is its Markdown file; the directory
// holding that file is where the skill's relative files live.
type Skill struct {
	Name, Description, Path, Source string
}

// meta is the front matter of a skill file.
type meta struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// root is one directory searched for skills.
type root struct {
	dir    string
	source string
	flat   bool // <name>.md files count as skills besides <name>/SKILL.md
}

// Discover finds the skills of workspace and of globalDir (either may be
// ""). It returns them sorted by name with shadowed ones removed, and an
// error for each file that could not be used, naming the file.
func Discover(workspace, globalDir string) ([]Skill, []error) {
	var roots []root
	if workspace != "" {
		roots = append(roots,
			root{filepath.Join(workspace, ".openseek", "skills"), Workspace, true},
			root{filepath.Join(workspace, ".agents", "skills"), Workspace, false},
			root{filepath.Join(workspace, ".claude", "skills"), Workspace, false},
		)
	}
	if globalDir != "" {
		roots = append(roots, root{globalDir, Global, true})
	}
	var (
		errs   []error
		byName = map[string]Skill{}
		seen   = map[string]bool{} // files already read, for roots that are the same directory
	)
	for _, r := range roots {
		found, rerrs := scan(r, seen)
		errs = append(errs, rerrs...)
		for _, s := range found {
			if _, shadowed := byName[s.Name]; !shadowed {
				byName[s.Name] = s
			}
		}
	}
	out := make([]Skill, 0, len(byName))
	for _, s := range byName {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errs
}

// scan reads the skills directly under one root. Two files of one root
// claiming the same name are an error; the first (in directory order,
// SKILL.md layout before flat) is kept.
func scan(r root, seen map[string]bool) ([]Skill, []error) {
	entries, err := os.ReadDir(r.dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, []error{fmt.Errorf("skills directory %s: %w", r.dir, err)}
	}
	var candidates []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(r.dir, name)
		info, err := os.Stat(p) // follows symlinks: linked skills are common
		if err != nil {
			continue
		}
		switch {
		case info.IsDir():
			f := filepath.Join(p, fileName)
			if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
				candidates = append(candidates, f)
			}
		case r.flat && info.Mode().IsRegular() && strings.HasSuffix(name, ".md"):
			candidates = append(candidates, p)
		}
	}
	// Directory layout first, so <name>/SKILL.md wins over <name>.md.
	slices.SortStableFunc(candidates, func(a, b string) int {
		ad, bd := filepath.Base(a) == fileName, filepath.Base(b) == fileName
		switch {
		case ad && !bd:
			return -1
		case bd && !ad:
			return 1
		}
		return strings.Compare(a, b)
	})
	var (
		out  []Skill
		errs []error
		have = map[string]string{}
	)
	for _, path := range candidates {
		key := path
		if real, err := filepath.EvalSymlinks(path); err == nil {
			key = real
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		s, err := load(path, r.source)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev, dup := have[s.Name]; dup {
			errs = append(errs, fmt.Errorf("skill %s: %s: the name is already used by %s, which is kept", s.Name, path, prev))
			continue
		}
		have[s.Name] = path
		out = append(out, s)
	}
	return out, errs
}

// load reads one skill file's front matter. The name defaults to the
// skill's directory (SKILL.md layout) or file stem (flat layout).
func load(path, source string) (Skill, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Skill{}, fmt.Errorf("skill %s: %w", path, err)
	}
	var m meta
	if _, err := FrontMatter(data, &m); err != nil {
		return Skill{}, fmt.Errorf("skill %s: %w", path, err)
	}
	name := strings.TrimSpace(m.Name)
	if name == "" {
		name = defaultName(path)
	}
	if strings.ContainsAny(name, "\r\n\t") {
		return Skill{}, fmt.Errorf("skill %s: name %q must be one line", path, name)
	}
	desc := oneLine(m.Description)
	if desc == "" {
		return Skill{}, fmt.Errorf("skill %s: front matter has no description (the model needs it to know when to use the skill)", path)
	}
	return Skill{Name: name, Description: desc, Path: path, Source: source}, nil
}

func defaultName(path string) string {
	if filepath.Base(path) == fileName {
		return filepath.Base(filepath.Dir(path))
	}
	return strings.TrimSuffix(filepath.Base(path), ".md")
}

// Dir is the directory holding the skill's file; relative paths in the
// skill's body are relative to it.
func (s Skill) Dir() string { return filepath.Dir(s.Path) }

// Body reads the skill's file again and returns its text without the
// front matter, trimmed of surrounding blank lines.
func (s Skill) Body() (string, error) {
	data, err := os.ReadFile(s.Path)
	if err != nil {
		return "", fmt.Errorf("read skill %s: %w", s.Name, err)
	}
	var m meta
	body, err := FrontMatter(data, &m)
	if err != nil {
		return "", fmt.Errorf("read skill %s: %s: %w", s.Name, s.Path, err)
	}
	return strings.Trim(body, "\r\n"), nil
}
