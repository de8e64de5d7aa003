package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"

	"github.com/openseek/openseek/internal/config"
)

// endpointCheck sends one GET <base>/models (Anthropic: <base>/v1/models)
// and turns the outcome into advice.
func endpointCheck(ctx context.Context, client *http.Client, p config.Provider, cred config.Credential) Check {
	ch := Check{Name: "endpoint " + p.Name}
	if p.BaseURL == "" {
		ch.Status, ch.Detail = "fail", fmt.Sprintf("no base_url: set one in [providers.%s] of ~/.openseek/config.toml (a workspace's counts once you trust it: openseek trust)", p.Name)
		return ch
	}
	base := strings.TrimRight(p.BaseURL, "/")
	url := base + "/models"
	if p.API == config.APIAnthropic {
		url = base + "/v1/models"
	}
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		ch.Status, ch.Detail = "fail", fmt.Sprintf("base URL %q is not a URL: fix base_url in [providers.%s]", p.BaseURL, p.Name)
		return ch
	}
	for k, v := range p.Headers {
		req.Header.Set(k, v)
	}
	if cred.Key != "" {
		if p.API == config.APIAnthropic {
			req.Header.Set("x-api-key", cred.Key)
			req.Header.Set("anthropic-version", "2023-06-01")
		} else {
			req.Header.Set("Authorization", "Bearer "+cred.Key)
		}
	}
	res, err := client.Do(req)
	if err != nil {
		ch.Status, ch.Detail = "fail", transportAdvice(err, p, base)
		if p.NoKey || cred.Key == "" {
			ch.Status = "warn" // a local server that is not running is normal
		}
		return ch
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	ch.Status, ch.Detail = statusAdvice(res, body, p, cred, base)
	return ch
}

func transportAdvice(err error, p config.Provider, base string) string {
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return fmt.Sprintf("%s did not answer within %s: check your network or proxy, or whether base_url is right", base, ProbeTimeout)
	case errors.As(err, &dns):
		return fmt.Sprintf("cannot find the host of %s (DNS): check the spelling of the base URL or your network", base)
	case errors.Is(err, syscall.ECONNREFUSED):
		if p.Name == "ollama" {
			return fmt.Sprintf("nothing is listening at %s: start Ollama (ollama serve) or set OLLAMA_HOST", base)
		}
		return fmt.Sprintf("nothing is listening at %s: is the server running?", base)
	}
	return fmt.Sprintf("cannot reach %s: %v", base, err)
}

func statusAdvice(res *http.Response, body []byte, p config.Provider, cred config.Credential, base string) (string, string) {
	html := strings.Contains(res.Header.Get("Content-Type"), "text/html") ||
		strings.HasPrefix(strings.TrimSpace(string(body)), "<")
	switch {
	case res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden:
		if cred.Key == "" {
			return "fail", fmt.Sprintf("%s wants an API key (HTTP %d): set one with api_key_env in [providers.%s]", base, res.StatusCode, p.Name)
		}
		return "fail", fmt.Sprintf("the key from %s was refused (HTTP %d): it is wrong, expired or for another provider; replace it", cred.Source, res.StatusCode)
	case html:
		return "fail", fmt.Sprintf("%s answered with a web page (HTTP %d), not the API: the base URL probably points at a website, a login page or a proxy; check base_url", base, res.StatusCode)
	case res.StatusCode == http.StatusNotFound:
		return "warn", fmt.Sprintf("%s/models does not exist (HTTP 404): the base URL may be wrong (it usually ends in /v1), or the server does not list models", base)
	case res.StatusCode == http.StatusTooManyRequests:
		return "warn", "the key works but the provider is rate-limiting you (HTTP 429); wait a little"
	case res.StatusCode >= 500:
		return "warn", fmt.Sprintf("the provider has a problem of its own (HTTP %d); try again later", res.StatusCode)
	case res.StatusCode >= 300:
		return "fail", fmt.Sprintf("unexpected answer HTTP %d from %s/models; check base_url", res.StatusCode, base)
	}
	var list struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return "warn", fmt.Sprintf("%s answered HTTP %d but not with JSON: is this an OpenAI-compatible API?", base, res.StatusCode)
	}
	return "ok", fmt.Sprintf("reachable: %s lists %d models", base, len(list.Data))
}
