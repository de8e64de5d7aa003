package prompt

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// DefaultMemoryBytes caps the AGENTS.md text when Memory is given no cap.
const DefaultMemoryBytes = 32 << 10

// memoryFile is the project memory file read in each directory.
const memoryFile = "AGENTS.md"

// Memory collects the project memory for the system prompt: the user's
// ~/.openseek/AGENTS.md (home may be "" to skip it), then each AGENTS.md
// from the repository root — the nearest ancestor of cwd holding .git, or
// else workspace — down to cwd, most general first. Each file is wrapped in
// <file path="…"> … </file>; empty and unreadable files are skipped, and a
// file reached twice (through a symlink, or a home inside the repository)
// appears once. The text is at most maxBytes long (DefaultMemoryBytes when
// maxBytes <= 0): past that it is cut at a line break and ends with a note
// naming the files to read for the rest. files lists the files whose text
// is (at least partly) in text. The result depends only on the files'
// contents, so the prompt built from it is stable between sessions.
func Memory(home, workspace, cwd string, maxBytes int) (text string, files []string) {
	if maxBytes <= 0 {
		maxBytes = DefaultMemoryBytes
	}
	var paths []string
	if home != "" {
		paths = append(paths, filepath.Join(home, ".openseek", memoryFile))
	}
	for _, dir := range memoryDirs(workspace, cwd) {
		paths = append(paths, filepath.Join(dir, memoryFile))
	}
	type part struct{ path, text string }
	var parts []part
	seen := map[string]bool{}
	for _, p := range paths {
		key := p
		if real, err := filepath.EvalSymlinks(p); err == nil {
			key = real
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		if s := readCapped(p, maxBytes); s != "" {
			parts = append(parts, part{p, s})
		}
	}
	if len(parts) == 0 {
		return "", nil
	}
	render := func(p part) string {
		return fmt.Sprintf("<file path=%q>\n%s\n</file>\n", p.path, p.text)
	}
	var full strings.Builder
	ends := make([]int, len(parts)) // offset in full where each part ends
	for i, p := range parts {
		full.WriteString(render(p))
		ends[i] = full.Len()
	}
	all := full.String()
	if len(all) <= maxBytes {
		for _, p := range parts {
			files = append(files, p.path)
		}
		return all, files
	}
	note := func(cut []string) string {
		return fmt.Sprintf("\n[AGENTS.md text is %d bytes, over the %d-byte limit, and was cut here; read %s directly for the rest]\n", len(all), maxBytes, strings.Join(cut, ", "))
	}
	// Size the cut for the longest note (every file named), then name only
	// the files actually cut: the note can only get shorter.
	allPaths := make([]string, len(parts))
	for i, p := range parts {
		allPaths[i] = p.path
	}
	budget := maxBytes - len(note(allPaths))
	if budget <= 0 {
		return truncate(note(allPaths), maxBytes), nil
	}
	kept := cutAt(all, budget)
	var cut []string
	for i, p := range parts {
		if ends[i] > len(kept) {
			cut = append(cut, p.path)
		}
		if i == 0 || ends[i-1] < len(kept) {
			files = append(files, p.path)
		}
	}
	return kept + note(cut), files
}

// memoryDirs lists the directories from the repository root down to cwd.
func memoryDirs(workspace, cwd string) []string {
	if cwd == "" {
		cwd = workspace
	}
	if cwd == "" {
		return nil
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return nil
	}
	root := repoRoot(cwd)
	if root == "" && workspace != "" {
		if ws, err := filepath.Abs(workspace); err == nil && within(cwd, ws) {
			root = ws
		}
	}
	if root == "" {
		return []string{cwd}
	}
	dirs := []string{root}
	rel, err := filepath.Rel(root, cwd)
	if err != nil || rel == "." {
		return dirs
	}
	dir := root
	for _, elem := range strings.Split(rel, string(filepath.Separator)) {
		dir = filepath.Join(dir, elem)
		dirs = append(dirs, dir)
	}
	return dirs
}

// repoRoot is the nearest ancestor of dir (dir included) holding .git, a
// directory or (worktrees, submodules) a file; "" when there is none.
func repoRoot(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func within(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// readCapped reads at most max bytes of a regular file, trimmed; "" when
// the file is missing, not regular or unreadable.
func readCapped(path string, max int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return ""
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// cutAt cuts s to at most n bytes: at the last line break when that
// keeps at least half, else (one very long line) at a rune boundary.
func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = truncate(s, n)
	if i := strings.LastIndexByte(s, '\n'); i >= len(s)/2 {
		return s[:i+1]
	}
	return s
}

// truncate cuts s to at most n bytes without splitting a rune.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
