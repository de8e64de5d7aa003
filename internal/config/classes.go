package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/openseek/openseek/internal/llm"
)

// Class says who may set a config key. A repository's
// .openseek/config.toml comes from whoever wrote the repository, so a key
// that sends data somewhere or runs something counts from there only once
// the user trusted that file (openseek trust, or --trust-workspace), and a
// key that only the user may decide (a secret, the sandbox) never does.
type Class int

const (
	// Anywhere: the user's file or a repository's.
	Anywhere Class = iota
	// OnceTrusted: a repository's value counts once its file is trusted.
	OnceTrusted
	// UserOnly: only ~/.openseek/config.toml; a repository's is ignored.
	UserOnly
)

// String is the class as docs/configuration.md's table says it.
func (c Class) String() string {
	switch c {
	case OnceTrusted:
		return "once trusted"
	case UserOnly:
		return "never"
	}
	return "yes"
}

// Key is one row of the key table.
type Key struct {
	Path  string // dotted; * stands for a name ([providers.*], [models.*])
	Class Class
	Why   string // what the key does that earns its class
}

// Keys is every key a config file may hold, with its class: the one table
// the loader checks a file against. A key that is not here is an unknown
// key (an error), so a setting cannot be added without saying who may set
// it. A key covers everything below it (headers, extra_body).
func Keys() []Key {
	return []Key{
		{"model", Anywhere, "the default --model, among the configured ones"},
		{"providers.*.api", Anywhere, "the wire protocol spoken to the provider's own server"},
		{"providers.*.base_url", OnceTrusted, "where your code and key are sent"},
		{"providers.*.api_key", UserOnly, "a secret; a repository's key would send your work to its owner's account"},
		{"providers.*.api_key_command", UserOnly, "runs a program"},
		{"providers.*.api_key_env", OnceTrusted, "sends the named variable, whatever it holds, as the key"},
		{"providers.*.headers", OnceTrusted, "sent with every request"},
		{"providers.*.extra_body", OnceTrusted, "merged into every request"},
		{"providers.*.no_key", Anywhere, "sends no key"},
		{"models.*.window", Anywhere, "context budgeting"},
		{"models.*.max_output", Anywhere, "context budgeting"},
		{"models.*.reasoning", Anywhere, "context budgeting"},
		{"models.*.price", OnceTrusted, "what [budget] max_cost counts; a repository could make every request look free"},
		{"profiles.*.candidates", Anywhere, "names configured models only"},
		{"budget.max_cost", OnceTrusted, "how much a session may spend"},
		{"files.allow_secrets", UserOnly, "lets the model read secret files (.env, keys, credentials); a repository could hand its owner your credentials"},
		{"fleet.nats", OnceTrusted, "where tasks and their prompts are sent"},
		{"rules.pattern", Anywhere, "allow rules count only once trusted (ask and deny always): see [[rules]]"},
		{"rules.decision", Anywhere, "allow rules count only once trusted (ask and deny always): see [[rules]]"},
		{"sandbox.enabled", UserOnly, "turns the sandbox off"},
		{"sandbox.network", OnceTrusted, "lets commands reach the network: every host, or those listed"},
		{"sandbox.writable_roots", UserOnly, "lets commands write outside the workspace"},
		{"sandbox.allow_env", UserOnly, "passes secrets to commands"},
		{"telemetry.otlp_endpoint", OnceTrusted, "where traces and metrics of your sessions are sent"},
		{"telemetry.log_prompts", OnceTrusted, "sends your prompts, answers and tool arguments with them"},
		{"tui.bell", Anywhere, "how the terminal UI behaves"},
		{"tui.inline", Anywhere, "how the terminal UI behaves"},
		{"tools.add", Anywhere, "built-in tools only, each under the rules and the sandbox"},
		{"tools.remove", Anywhere, "fewer tools"},
		{"tools.search_budget", Anywhere, "when MCP tools are found with tool_search instead of sent up front"},
		{"verify.command", OnceTrusted, "runs a program after every turn"},
		{"verify.enabled", Anywhere, "turns the check off or on"},
		{"verify.max_repairs", Anywhere, "how often the model may repair"},
		{"verify.timeout", Anywhere, "how long the check may run"},
	}
}

// keyTable is Keys with each path split, built once per file read.
type keyTable []keyRow

type keyRow struct {
	Key
	segs []string
}

func newKeyTable() keyTable {
	keys := Keys()
	t := make(keyTable, len(keys))
	for i, k := range keys {
		t[i] = keyRow{k, strings.Split(k.Path, ".")}
	}
	return t
}

// classOf finds the row covering a key path; containers of rows
// ("providers", "providers.x") are known without a class. depth is the
// length of the row's path.
func (t keyTable) classOf(path []string) (row Key, depth int, container, ok bool) {
	for _, r := range t {
		n := min(len(r.segs), len(path))
		if !segmentsMatch(r.segs[:n], path[:n]) {
			continue
		}
		if len(path) >= len(r.segs) {
			return r.Key, len(r.segs), false, true
		}
		container = true
	}
	return Key{}, 0, container, container
}

func segmentsMatch(pat, path []string) bool {
	for i := range pat {
		if pat[i] != "*" && pat[i] != path[i] {
			return false
		}
	}
	return true
}

// knownBelow lists the keys that may follow prefix, for an unknown-key
// error.
func (t keyTable) knownBelow(prefix []string) []string {
	var out []string
	for _, r := range t {
		if len(r.segs) > len(prefix) && segmentsMatch(r.segs[:len(prefix)], prefix) {
			out = append(out, r.segs[len(prefix)])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Trust says whether the workspace's config file, with exactly this
// content, was trusted by the user (the trust store, or
// --trust-workspace). nil trusts nothing.
type Trust func(path string, data []byte) bool

// TrustAll trusts every file (--trust-workspace).
func TrustAll(string, []byte) bool { return true }

// Held is a repository's setting the loader left out.
type Held struct {
	File  string // the workspace's config file
	Class Class  // OnceTrusted or UserOnly
	Keys  []string
}

// String is the warning a user reads: which keys, why, and what to do.
func (h Held) String() string {
	keys := strings.Join(h.Keys, ", ")
	if h.Class == UserOnly {
		return fmt.Sprintf("[config] ignored: %s in %s; a repository may never set these keys, only ~/.openseek/config.toml may", keys, h.File)
	}
	return fmt.Sprintf("[config] ignored until you trust this workspace: %s in %s (these keys send data elsewhere or run programs); run `openseek trust` in the workspace, or pass --trust-workspace", keys, h.File)
}

// hold leaves out of a workspace's parsed file the keys its trust does
// not allow, recording them in c.Held.
func (c *Config) hold(f *file, path string, trusted bool) {
	held := map[Class][]string{}
	seen := map[string]bool{}
	for _, k := range f.keys {
		row, depth, container, ok := f.table.classOf(k)
		if !ok || container || row.Class == Anywhere || (row.Class == OnceTrusted && trusted) {
			continue
		}
		at := k[:depth] // the row's key, not a header below it
		name := dotted(at)
		if seen[name] {
			continue
		}
		seen[name] = true
		held[row.Class] = append(held[row.Class], name)
		f.drop(at)
	}
	for _, class := range []Class{OnceTrusted, UserOnly} {
		if len(held[class]) > 0 {
			c.Held = append(c.Held, Held{File: path, Class: class, Keys: held[class]})
		}
	}
}

// drop removes the value at a key path from a parsed file.
func (f *file) drop(path []string) {
	switch {
	case len(path) == 1 && path[0] == "model":
		f.model = ""
	case len(path) == 3 && path[0] == "providers":
		delete(f.providers[path[1]].set, path[2])
	case len(path) == 3 && path[0] == "models":
		delete(f.modelSet[path[1]], path[2])
		m := f.models[path[1]]
		switch path[2] {
		case "window":
			m.Window = 0
		case "max_output":
			m.MaxOutput = 0
		case "price":
			m.Price = llm.Price{}
		case "reasoning":
			m.Reasoning = false
		}
		f.models[path[1]] = m
	case len(path) >= 2 && path[0] == "profiles":
		delete(f.profiles, path[1])
	default:
		prune(f.raw, path)
	}
}

// prune deletes the value at path from a decoded table (from every table
// of an array of tables on the way).
func prune(tree map[string]any, path []string) {
	if len(path) == 1 {
		delete(tree, path[0])
		return
	}
	switch v := tree[path[0]].(type) {
	case map[string]any:
		prune(v, path[1:])
	case []map[string]any:
		for _, t := range v {
			prune(t, path[1:])
		}
	}
}
