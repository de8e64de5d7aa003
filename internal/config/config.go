package config

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/openseek/openseek/internal/llm"
)

// API kinds: the wire protocol a provider speaks.
const (
	APIOpenAI    = "openai"    // OpenAI-compatible chat completions
	APIAnthropic = "anthropic" // Anthropic Messages
	APIResponses = "responses" // OpenAI Responses
)

// Provider is one model vendor or server.
type Provider struct {
	Name          string
	API           string   // APIOpenAI, APIAnthropic or APIResponses
	BaseURL       string   // e.g. https://api.openai.com/v1 (chat completions live at BaseURL/chat/completions)
	APIKey        string   // a literal key from a config file (api_key)
	APIKeyEnv     []string // variables holding the key, first set wins
	APIKeyCommand string   // run with sh -c; trimmed stdout is the key
	Headers       map[string]string
	ExtraBody     map[string]any // merged into every request body (OpenAI-compatible APIs)
	NoKey         bool           // never send a key (local servers)
	// Thinking maps --thinking to request-body fields; nil = the model
	// catalogue's mapping, else reasoning_effort. Built-in only.
	Thinking func(mode string) map[string]any
}

// Model is one model of one provider, with what OpenSeek needs to know to
// budget its context and cost.
type Model struct {
	Provider, Name string
	Window         int // context window in tokens; 0 = unknown
	MaxOutput      int // largest completion; 0 = unknown
	Price          llm.Price
	Reasoning      bool
}

// Spec is the "provider/model" name of m.
func (m Model) Spec() string { return m.Provider + "/" + m.Name }

// Profile is a named list of candidate models tried in order (failover).
type Profile struct {
	Name       string
	Candidates []string // "provider/model"
}

// Config is the merged configuration: built-in defaults, then the user's
// file, then the workspace's. Build it with Load; it is read-only after.
type Config struct {
	Providers map[string]Provider
	Models    map[string]Model // keyed by "provider/model"
	Profiles  map[string]Profile
	Model     string   // the top-level model key: the default spec, "" = none
	Files     []string // the config files loaded, in load order
	// Raw holds every other top-level key (rules, sandbox, …) for the
	// packages that own them; the workspace file's tables are merged over
	// the user's, key by key.
	Raw map[string]any
	// Held are the workspace file's settings left out, one entry per
	// class: keys that count only once the file is trusted, and keys a
	// repository may never set. Each is a warning the user must see.
	Held []Held
	// HTTPClient is used by the clients Resolve builds (nil =
	// http.DefaultClient).
	HTTPClient *http.Client

	getenv    func(string) string
	catalogue func() *llm.Catalogue // decoded on first use
}

// Paths returns the user and workspace config file paths.
func Paths(home, workspace string) (user, project string) {
	return filepath.Join(home, ".openseek", "config.toml"), filepath.Join(workspace, ".openseek", "config.toml")
}

// Load builds the configuration: built-in providers (with the ecosystem's
// base-URL variables applied), then ~/.openseek/config.toml, then
// <workspace>/.openseek/config.toml. A missing file is skipped; an
// unreadable or malformed one is an error "path:line:col: what is wrong"
// and nothing else is loaded. An empty home or workspace skips that file.
// The workspace's file is not trusted: see LoadTrusting.
func Load(home, workspace string, getenv func(string) string) (*Config, error) {
	return LoadTrusting(home, workspace, getenv, nil)
}

// LoadTrusting is Load with the user's trust decision for the
// workspace's file: its keys of class OnceTrusted count only when trusted
// says so, its UserOnly keys never; what is left out is in Config.Held.
func LoadTrusting(home, workspace string, getenv func(string) string, trusted Trust) (*Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	c := &Config{
		Providers: builtinProviders(getenv),
		Models:    map[string]Model{},
		Profiles:  map[string]Profile{},
		Raw:       map[string]any{},
		getenv:    getenv,
		catalogue: sync.OnceValue(llm.LoadCatalogue),
	}
	user, project := Paths(home, workspace)
	var paths []string
	if home != "" {
		paths = append(paths, user)
	}
	if workspace != "" && (home == "" || filepath.Clean(project) != filepath.Clean(user)) {
		paths = append(paths, project)
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read config: %w", err)
		}
		f, err := parseFile(path, data)
		if err != nil {
			return nil, err
		}
		if path == project {
			c.hold(f, path, trusted != nil && trusted(path, data))
		}
		c.merge(f)
		c.Files = append(c.Files, path)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// merge lays a parsed file over c: a provider's set fields replace the
// existing ones (so a file may change only base_url of a built-in), models
// and profiles replace whole entries, Raw tables merge key by key.
func (c *Config) merge(f *file) {
	if f.model != "" {
		c.Model = f.model
	}
	for name, fp := range f.providers {
		p, ok := c.Providers[name]
		if !ok {
			p = Provider{Name: name, API: APIOpenAI}
		}
		fp.apply(&p)
		c.Providers[name] = p
	}
	for spec, m := range f.models {
		if old, ok := c.Models[spec]; ok {
			m = overlayModel(old, m, f.modelSet[spec])
		}
		c.Models[spec] = m
	}
	maps.Copy(c.Profiles, f.profiles)
	mergeRaw(c.Raw, f.raw)
}

func overlayModel(old, m Model, set map[string]bool) Model {
	if !set["window"] {
		m.Window = old.Window
	}
	if !set["max_output"] {
		m.MaxOutput = old.MaxOutput
	}
	if !set["price"] {
		m.Price = old.Price
	}
	if !set["reasoning"] {
		m.Reasoning = old.Reasoning
	}
	return m
}

func mergeRaw(dst, src map[string]any) {
	for k, v := range src {
		sub, ok := v.(map[string]any)
		old, oldOK := dst[k].(map[string]any)
		if ok && oldOK {
			merged := maps.Clone(old)
			mergeRaw(merged, sub)
			dst[k] = merged
			continue
		}
		dst[k] = v
	}
}

// validate checks what only the merged config can show: models of unknown
// providers and profiles naming unknown providers. (Syntax and key errors
// are reported with their line while parsing.)
func (c *Config) validate() error {
	var errs []error
	for _, spec := range sortedKeys(c.Models) {
		if _, ok := c.Providers[c.Models[spec].Provider]; !ok {
			errs = append(errs, fmt.Errorf("config: model %q names the unknown provider %q; known providers: %s", spec, c.Models[spec].Provider, c.providerList()))
		}
	}
	for _, name := range sortedKeys(c.Profiles) {
		for _, cand := range c.Profiles[name].Candidates {
			prov, _, _ := cutSpec(cand)
			if _, ok := c.Providers[prov]; !ok {
				errs = append(errs, fmt.Errorf("config: profile %q lists %q, whose provider %q is unknown; known providers: %s", name, cand, prov, c.providerList()))
			}
		}
	}
	return errors.Join(errs...)
}

func (c *Config) providerList() string {
	return joinList(sortedKeys(c.Providers))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := slices.Collect(maps.Keys(m))
	sort.Strings(keys)
	return keys
}
