package config

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/openseek/openseek/internal/llm"
)

// DefaultSpec is the model used when neither --model nor the config's
// model key names one.
const DefaultSpec = "deepseek-v4-flash"

// Resolved is a model ready to call.
type Resolved struct {
	Spec      string // "provider/model", or the profile's name
	Provider  string // the (first) provider
	Model     string // the (first) model's name on the wire
	Window    int    // context window; for a profile the smallest known; 0 = unknown
	MaxOutput int    // 0 = unknown
	Price     llm.Price
	// Client streams from the model with retries; for a profile, with
	// failover across its candidates. It always sends its own model name,
	// whatever Request.Model says.
	Client llm.Provider
	// Skipped lists a profile's candidates left out, with why (no key).
	Skipped []string
	// Keys are the credentials the client sends, wherever they came
	// from (flag, variable, config file, api_key_command): secrets that
	// commands must not see and output must not show.
	Keys []string
}

// Resolve turns a --model value into a client. spec is "provider/model", a
// bare model name (OpenSeek's catalogue: deepseek-v4-flash, …; a model
// declared once in [models]; an OpenAI or Anthropic model of the public
// catalogue), or a profile name; "" means the config's model key, else
// DefaultSpec. apiURLFlag, a full chat-completions URL, replaces the
// endpoint and lets any model name through (OpenAI-compatible, no key
// required). An unknown name is an error listing what is known; a missing
// key is "an API key is required for <model>: pass --api-key or set
// <VARS>". A zero retry policy means llm.DefaultRetry.
func (c *Config) Resolve(spec, apiKeyFlag, apiURLFlag string, retry llm.RetryPolicy) (*Resolved, error) {
	return c.ResolveContext(context.Background(), spec, apiKeyFlag, apiURLFlag, retry)
}

// ResolveContext is Resolve with a context that bounds the key commands
// it may run (cancelling it ends them).
func (c *Config) ResolveContext(ctx context.Context, spec, apiKeyFlag, apiURLFlag string, retry llm.RetryPolicy) (*Resolved, error) {
	if spec == "" {
		spec = cmp.Or(c.Model, DefaultSpec)
	}
	if retry.Attempts == 0 {
		retry = llm.DefaultRetry()
	}
	if prof, ok := c.Profiles[spec]; ok {
		if apiKeyFlag != "" || apiURLFlag != "" {
			return nil, fmt.Errorf("profile %s lists several models, so --api-key and --api-url cannot apply to it; set the keys in the providers' config instead", spec)
		}
		return c.resolveProfile(ctx, prof, retry)
	}
	prov, name, ok := c.lookup(spec)
	if !ok {
		if apiURLFlag != "" {
			return c.single(ctx, spec, Provider{API: APIOpenAI}, spec, apiKeyFlag, apiURLFlag, retry)
		}
		return nil, c.unknown(spec)
	}
	return c.single(ctx, spec, c.Providers[prov], name, apiKeyFlag, apiURLFlag, retry)
}

// lookup finds the provider and wire name of a non-profile spec.
func (c *Config) lookup(spec string) (provider, name string, ok bool) {
	if p, n, isSpec := cutSpec(spec); isSpec {
		_, known := c.Providers[p]
		return p, n, known
	}
	if m, ok := llm.LookupModel(spec); ok {
		return vendorProvider(m.Provider), m.Name, true
	}
	var found []Model
	for _, key := range sortedKeys(c.Models) {
		if c.Models[key].Name == spec {
			found = append(found, c.Models[key])
		}
	}
	if len(found) == 1 {
		return found[0].Provider, spec, true
	}
	for _, p := range []string{"openai", "anthropic"} {
		if _, ok := c.Providers[p]; !ok {
			continue
		}
		if _, ok := c.catalogue().Lookup(catalogueID(p), spec); ok {
			return p, spec, true
		}
	}
	return "", "", false
}

// vendorProvider maps the built-in catalogue's vendor labels to provider
// names.
func vendorProvider(vendor string) string {
	switch vendor {
	case "DeepSeek":
		return "deepseek"
	case "Kimi":
		return "kimi"
	case "Z.AI":
		return "glm"
	}
	return strings.ToLower(vendor)
}

// describe is what is known of a model: OpenSeek's own catalogue for its
// providers' models, else the public catalogue, with a [models] entry's
// non-zero fields over either.
func (c *Config) describe(provider, name string) Model {
	m := Model{Provider: provider, Name: name}
	if own, ok := llm.LookupModel(name); ok && vendorProvider(own.Provider) == provider {
		m.Window, m.MaxOutput, m.Price, m.Reasoning = own.Window, own.MaxOutput, own.Price, own.Thinking != nil
	} else if cm, ok := c.catalogue().Lookup(catalogueID(provider), name); ok {
		m.Window, m.MaxOutput, m.Price, m.Reasoning = cm.Window, cm.MaxOutput, cm.Price, cm.Reasoning
	}
	if cfg, ok := c.Models[provider+"/"+name]; ok {
		m.Window = cmp.Or(cfg.Window, m.Window)
		m.MaxOutput = cmp.Or(cfg.MaxOutput, m.MaxOutput)
		if cfg.Price != (llm.Price{}) {
			m.Price = cfg.Price
		}
		m.Reasoning = m.Reasoning || cfg.Reasoning
	}
	return m
}

// single builds the client of one model.
func (c *Config) single(ctx context.Context, label string, p Provider, name, apiKeyFlag, apiURLFlag string, retry llm.RetryPolicy) (*Resolved, error) {
	client, key, err := c.client(ctx, label, p, name, apiKeyFlag, apiURLFlag)
	if err != nil {
		return nil, err
	}
	m := c.describe(p.Name, name)
	if cfg, ok := c.Models[p.Name+"/"+name]; apiURLFlag != "" && (!ok || cfg.Price == (llm.Price{})) {
		// Another endpoint than the provider's: its prices are unknown
		// unless the user gave the model's price in a config file.
		m.Price = llm.Price{}
	}
	spec := p.Name + "/" + name
	if p.Name == "" { // an ad-hoc --api-url endpoint
		spec = name
	}
	return &Resolved{Spec: spec, Provider: p.Name, Model: name, Window: m.Window, MaxOutput: m.MaxOutput,
		Price: m.Price, Client: llm.WithRetry(client, retry), Keys: nonEmpty(key)}, nil
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// client builds the bare client of one model, bound to its name, and
// returns the key it sends.
func (c *Config) client(ctx context.Context, label string, p Provider, name, apiKeyFlag, apiURLFlag string) (llm.Provider, string, error) {
	if p.BaseURL == "" && apiURLFlag == "" {
		return nil, "", fmt.Errorf("provider %s has no base_url: set one in [providers.%s] of ~/.openseek/config.toml (a workspace's counts once you trust it: openseek trust)", p.Name, p.Name)
	}
	ctx, cancel := context.WithTimeout(ctx, KeyCommandTimeout)
	defer cancel()
	var cred Credential
	if p.Name == "" {
		cred = Credential{Key: apiKeyFlag}
	} else {
		var err error
		if cred, err = c.Key(ctx, p.Name, apiKeyFlag); err != nil {
			return nil, "", err
		}
	}
	if cred.Key == "" && p.needsKey() && apiURLFlag == "" {
		return nil, "", &MissingKeyError{Model: label, Provider: p.Name, Hint: keyHint(p)}
	}
	if apiURLFlag != "" && (p.API == APIOpenAI || p.API == "") {
		apiURLFlag, _ = ChatURL(apiURLFlag)
	}
	e := endpoint{API: p.API, BaseURL: p.BaseURL, Key: cred.Key, Headers: p.Headers,
		ExtraBody: p.ExtraBody, Thinking: p.Thinking, HTTPClient: c.HTTPClient}
	if apiURLFlag != "" {
		if p.API == APIOpenAI {
			e.ChatURL = apiURLFlag
		} else {
			e.BaseURL = apiURLFlag
		}
	}
	client, err := newClient(e)
	if err != nil {
		return nil, "", fmt.Errorf("provider %s: %w", p.Name, err)
	}
	return llm.BindModel(client, name), cred.Key, nil
}

// MissingKeyError is Resolve's error for a model whose provider needs a
// key that no source gave (the terminal UI offers its first-run setup).
type MissingKeyError struct {
	Model, Provider string
	Hint            string // where a key may come from: the variables
}

func (e *MissingKeyError) Error() string {
	return fmt.Sprintf("an API key is required for %s: pass --api-key or set %s", e.Model, e.Hint)
}

func keyHint(p Provider) string {
	vars := p.APIKeyEnv
	switch len(vars) {
	case 0:
		return fmt.Sprintf("api_key_env or api_key_command in [providers.%s]", p.Name)
	case 1:
		return vars[0]
	}
	return vars[0] + " (or " + strings.Join(vars[1:], ", ") + ")"
}

// resolveProfile builds a failover client over a profile's candidates,
// leaving out those without a key (they are listed in Skipped); it fails
// only when none is usable.
func (c *Config) resolveProfile(ctx context.Context, prof Profile, retry llm.RetryPolicy) (*Resolved, error) {
	r := &Resolved{Spec: prof.Name}
	var cands []llm.Candidate
	var errs []error
	for _, spec := range prof.Candidates {
		prov, name, ok := c.lookup(spec)
		if !ok {
			return nil, fmt.Errorf("profile %s: %w", prof.Name, c.unknown(spec))
		}
		p := c.Providers[prov]
		client, key, err := c.client(ctx, spec, p, name, "", "")
		if err != nil {
			errs = append(errs, err)
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: %v", spec, err))
			continue
		}
		m := c.describe(prov, name)
		if len(cands) == 0 {
			r.Provider, r.Model, r.Price = prov, name, m.Price
			r.Window, r.MaxOutput = m.Window, m.MaxOutput
		}
		r.Window = minKnown(r.Window, m.Window)
		r.MaxOutput = minKnown(r.MaxOutput, m.MaxOutput)
		cands = append(cands, llm.Candidate{Name: prov + "/" + name, Provider: client})
		r.Keys = append(r.Keys, nonEmpty(key)...)
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("profile %s has no usable model: %w", prof.Name, errors.Join(errs...))
	}
	r.Client = llm.Failover(cands, llm.FailoverOptions{Retry: retry})
	return r, nil
}

// minKnown is the smaller of two limits, where 0 means unknown.
func minKnown(a, b int) int {
	switch {
	case a == 0:
		return b
	case b == 0:
		return a
	}
	return min(a, b)
}

// unknown is the error for a name that is no model, provider or profile.
func (c *Config) unknown(spec string) error {
	var b strings.Builder
	if prov, _, ok := cutSpec(spec); ok {
		fmt.Fprintf(&b, "unknown provider %q in %q; known providers: %s", prov, spec, c.providerList())
	} else {
		fmt.Fprintf(&b, "unknown model %q; known providers: %s", spec, c.providerList())
	}
	var builtin []string
	for _, m := range llm.Models() {
		builtin = append(builtin, m.Name)
	}
	fmt.Fprintf(&b, "; built-in models: %s", joinList(builtin))
	if len(c.Models) > 0 {
		fmt.Fprintf(&b, "; configured models: %s", joinList(sortedKeys(c.Models)))
	}
	if len(c.Profiles) > 0 {
		fmt.Fprintf(&b, "; profiles: %s", joinList(sortedKeys(c.Profiles)))
	}
	b.WriteString(" (name any model as provider/model, e.g. openai/gpt-5 or ollama/qwen3-coder, or pass --api-url to use any model of an OpenAI-compatible server)")
	return errors.New(b.String())
}

// List returns the models worth showing in `openseek models`: OpenSeek's
// own catalogue, every [models] entry, every profile candidate, and the
// public catalogue's suggested models of the other built-in providers,
// each once, grouped by provider in name order. It does not check keys or
// reachability (see Ready).
func (c *Config) List() []Model {
	seen := map[string]bool{}
	var out []Model
	add := func(provider, name string) {
		spec := provider + "/" + name
		if seen[spec] {
			return
		}
		seen[spec] = true
		out = append(out, c.describe(provider, name))
	}
	own := map[string]bool{}
	for _, m := range llm.Models() {
		own[vendorProvider(m.Provider)] = true
		add(vendorProvider(m.Provider), m.Name)
	}
	for _, spec := range sortedKeys(c.Models) {
		add(c.Models[spec].Provider, c.Models[spec].Name)
	}
	for _, name := range sortedKeys(c.Profiles) {
		for _, spec := range c.Profiles[name].Candidates {
			if p, n, ok := cutSpec(spec); ok {
				add(p, n)
			}
		}
	}
	for _, prov := range sortedKeys(c.Providers) {
		if own[prov] {
			continue
		}
		for _, name := range c.catalogue().Defaults(catalogueID(prov)) {
			add(prov, name)
		}
	}
	slices.SortStableFunc(out, func(a, b Model) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Name, b.Name))
	})
	return out
}
