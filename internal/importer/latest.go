package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// Latest is the newest transcript of source (by modification time) under
// the user's home: $CODEX_HOME/sessions (default ~/.codex/sessions) for
// Codex, $CLAUDE_CONFIG_DIR/projects (default ~/.claude/projects) for
// Claude Code. getenv reads the environment.
func Latest(source string, getenv func(string) string) (string, error) {
	home := getenv("HOME")
	var dir, pattern string
	switch source {
	case Codex:
		dir = getenv("CODEX_HOME")
		if dir == "" {
			dir = filepath.Join(home, ".codex")
		}
		dir, pattern = filepath.Join(dir, "sessions"), "*/*/*/rollout-*.jsonl"
	case Claude:
		dir = getenv("CLAUDE_CONFIG_DIR")
		if dir == "" {
			dir = filepath.Join(home, ".claude")
		}
		dir, pattern = filepath.Join(dir, "projects"), "*/*.jsonl"
	default:
		return "", fmt.Errorf("unknown transcript source %q: want %s or %s", source, Codex, Claude)
	}
	matches, err := doublestar.Glob(os.DirFS(dir), pattern, doublestar.WithFilesOnly(), doublestar.WithFailOnIOErrors())
	if err != nil && !isNotExist(err) {
		return "", fmt.Errorf("look for %s transcripts in %s: %w", sourceName(source), dir, err)
	}
	var newest string
	var at time.Time
	for _, m := range matches {
		p := filepath.Join(dir, filepath.FromSlash(m))
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		// Ties go to the later name: Codex names sort by start time.
		if newest == "" || st.ModTime().After(at) || (st.ModTime().Equal(at) && p > newest) {
			newest, at = p, st.ModTime()
		}
	}
	if newest == "" {
		return "", fmt.Errorf("no %s transcript found under %s", sourceName(source), filepath.Join(dir, pattern))
	}
	return newest, nil
}

func isNotExist(err error) bool { return err != nil && errors.Is(err, fs.ErrNotExist) }
