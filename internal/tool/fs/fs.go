package fs

import (
	"encoding/json"
	"path/filepath"

	"github.com/openseek/openseek/internal/tool"
)

// Tools returns read, write, edit, multi_edit and remove.
func Tools() []tool.Tool {
	return []tool.Tool{Read(), Write(), Edit(), MultiEdit(), Remove()}
}

// lines is a 1-based inclusive line range in Result.Data.
type lines struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// data is the machine-readable detail of a file tool's result.
type data struct {
	Outcome string   `json:"outcome"`
	Path    string   `json:"path,omitempty"`
	Paths   []string `json:"paths,omitempty"`
	Lines   *lines   `json:"lines,omitempty"`
	Check   *check   `json:"check,omitempty"` // the language servers' view of the change
	// Diff is the unified diff of the change, for clients that show
	// edits (never shown to the model).
	Diff string `json:"diff,omitempty"`
}

// with returns r carrying d as Data and brief as Brief.
func with(r tool.Result, brief string, d data) tool.Result {
	r.Brief = brief
	r.Data, _ = json.Marshal(d) // a struct of strings and ints always marshals
	return r
}

// relPath is the workspace-relative spelling of the resolved path real,
// or the path as the model gave it when it did not resolve.
func relPath(env *tool.Env, real, given string) string {
	if real == "" {
		return filepath.ToSlash(filepath.Clean(given))
	}
	return env.Rel(real)
}
