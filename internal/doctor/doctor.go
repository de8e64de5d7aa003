// Package doctor checks that OpenSeek can run here and says in plain
// words what is wrong: config files, API keys, and whether each provider
// with a key answers (one cheap GET <base>/models each, 5 s timeout, all
// providers in parallel).
//
// Invariant: a key is never printed; a check names the variable or
// command it came from and at most its last four characters.
package doctor

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openseek/openseek/internal/config"
)

// Check is one finding.
type Check struct {
	Name   string // "config", "key openai", "endpoint openai", …
	Status string // ok, warn or fail
	Detail string // plain words: what was found and what to do
}

// ProbeTimeout bounds each endpoint request.
const ProbeTimeout = 5 * time.Second

// Diagnose loads the configuration and runs the checks; a malformed config
// file is reported as one failed check with its file and line, and
// nothing else is checked.
func Diagnose(ctx context.Context, home, workspace string, getenv func(string) string, client *http.Client) []Check {
	c, err := config.Load(home, workspace, getenv)
	if err != nil {
		return []Check{{Name: "config", Status: "fail", Detail: err.Error() + "\nfix the file above; OpenSeek will not start until it parses"}}
	}
	return Run(ctx, c, getenv, client)
}

// Run checks a loaded configuration: the files read, each provider's key
// and, for every provider that has a key or needs none, its endpoint.
func Run(ctx context.Context, c *config.Config, getenv func(string) string, client *http.Client) []Check {
	if client == nil {
		client = http.DefaultClient
	}
	checks := []Check{configCheck(c)}
	names := make([]string, 0, len(c.Providers))
	for name := range c.Providers {
		names = append(names, name)
	}
	slices.Sort(names)

	type result struct {
		key, endpoint *Check
		hasKey        bool
	}
	results := make([]result, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			key, cred, probe := keyCheck(ctx, c, name)
			results[i].key = &key
			results[i].hasKey = cred.Key != ""
			if probe {
				ep := endpointCheck(ctx, client, c.Providers[name], cred)
				results[i].endpoint = &ep
			}
		})
	}
	wg.Wait()
	usable, keyed := 0, 0
	for _, r := range results {
		checks = append(checks, *r.key)
		if r.hasKey {
			keyed++
		}
		if r.endpoint != nil {
			checks = append(checks, *r.endpoint)
			if r.endpoint.Status == "ok" {
				usable++
			}
		}
	}
	switch {
	case usable > 0:
	case keyed > 0:
		checks = append(checks, Check{Name: "summary", Status: "fail",
			Detail: "no provider could be reached: the keys are set, so see the endpoint lines above for what failed (network, DNS, base URL)"})
	default:
		checks = append(checks, Check{Name: "summary", Status: "fail",
			Detail: "no provider is ready: set an API key (for example DEEPSEEK_API_KEY for deepseek-v4-flash) or start a local server such as Ollama"})
	}
	return checks
}

// RunURL checks what `run --api-url URL` would use instead of the
// configured providers: the URL's form and one request to its models
// list, with the key given (if any).
func RunURL(ctx context.Context, c *config.Config, apiURL, apiKey string, client *http.Client) []Check {
	if client == nil {
		client = http.DefaultClient
	}
	checks := []Check{configCheck(c)}
	if err := config.CheckAPIURL(apiURL); err != nil {
		return append(checks, Check{Name: "api-url", Status: "fail", Detail: err.Error()})
	}
	chat, _ := config.ChatURL(apiURL)
	base := strings.TrimSuffix(strings.TrimRight(chat, "/"), "/chat/completions")
	cred := config.Credential{Key: apiKey}
	if apiKey != "" {
		cred.Source = "--api-key"
	}
	ep := endpointCheck(ctx, client, config.Provider{Name: "--api-url", API: config.APIOpenAI, BaseURL: base}, cred)
	switch {
	case ep.Status == "warn" && strings.Contains(ep.Detail, "/models does not exist"):
		// Many local servers do not list models; the chat URL may still work.
		ep.Detail += "; requests go to " + chat
	case ep.Status == "warn":
		// This endpoint is the one every request goes to, whether
		// --api-url or OPENSEEK_API_URL named it: down is a failure.
		ep.Status = "fail"
	}
	return append(checks, Check{Name: "api-url", Status: "ok", Detail: "requests go to " + chat}, ep)
}

func configCheck(c *config.Config) Check {
	if len(c.Files) == 0 {
		return Check{Name: "config", Status: "ok", Detail: "no config file; using the built-in providers (~/.openseek/config.toml and .openseek/config.toml are optional)"}
	}
	ch := Check{Name: "config", Status: "ok", Detail: "read " + strings.Join(c.Files, ", ")}
	for _, h := range c.Held {
		ch.Status, ch.Detail = "warn", ch.Detail+"\n"+h.String()
	}
	return ch
}

// keyCheck reports a provider's key and whether its endpoint should be
// probed (it has a key, or needs none).
func keyCheck(ctx context.Context, c *config.Config, name string) (Check, config.Credential, bool) {
	p := c.Providers[name]
	ch := Check{Name: "key " + name}
	cred, err := c.Key(ctx, name, "")
	switch {
	case err != nil:
		ch.Status, ch.Detail = "fail", err.Error()+"; fix the command or set the key another way"
		return ch, cred, false
	case cred.Key != "":
		ch.Status, ch.Detail = "ok", fmt.Sprintf("from %s (%s)", cred.Source, mask(cred.Key))
		return ch, cred, true
	case !c.Ready(name):
		ch.Status = "warn"
		ch.Detail = fmt.Sprintf("no API key: set %s to use %s models", strings.Join(p.APIKeyEnv, " or "), name)
		return ch, cred, false
	}
	ch.Status, ch.Detail = "ok", "no key needed"
	return ch, cred, true
}

// mask shows only the tail of a key, and nothing of a short one.
func mask(key string) string {
	if len(key) < 12 {
		return fmt.Sprintf("%d characters", len(key))
	}
	return "…" + key[len(key)-4:]
}
