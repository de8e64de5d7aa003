package config

import (
	"net"
	"strings"
)

// builtinProviders are the providers that need no config file. The
// ecosystem's base-URL variables (OPENAI_BASE_URL, ANTHROPIC_BASE_URL,
// OLLAMA_HOST) replace the default base URLs here, so a config file that
// sets base_url still wins over them.
func builtinProviders(getenv func(string) string) map[string]Provider {
	ps := map[string]Provider{
		"deepseek": {API: APIOpenAI, BaseURL: "https://api.deepseek.com",
			APIKeyEnv: []string{"DEEPSEEK", "DEEPSEEK_API_KEY"}},
		"kimi": {API: APIOpenAI, BaseURL: "https://api.moonshot.ai/v1",
			APIKeyEnv: []string{"KIMI", "KIMI_API_KEY", "MOONSHOT_API_KEY"}},
		"glm": {API: APIOpenAI, BaseURL: "https://api.z.ai/api/paas/v4",
			APIKeyEnv: []string{"GLM", "ZAI_API_KEY"}},
		"openai": {API: APIOpenAI, BaseURL: envOr(getenv, "OPENAI_BASE_URL", "https://api.openai.com/v1"),
			APIKeyEnv: []string{"OPENAI_API_KEY"}},
		"anthropic": {API: APIAnthropic, BaseURL: envOr(getenv, "ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
			APIKeyEnv: []string{"ANTHROPIC_API_KEY"}},
		"openrouter": {API: APIOpenAI, BaseURL: "https://openrouter.ai/api/v1",
			APIKeyEnv: []string{"OPENROUTER_API_KEY"}, Thinking: openRouterThinking},
		"ollama": {API: APIOpenAI, BaseURL: ollamaBase(getenv("OLLAMA_HOST")), NoKey: true},
	}
	for name, p := range ps {
		p.Name = name
		ps[name] = p
	}
	return ps
}

// catalogueID maps OpenSeek's provider names to charm.land/catwalk's where
// they differ; any other provider is looked up under its own name.
func catalogueID(provider string) string {
	switch provider {
	case "kimi":
		return "moonshot"
	case "glm":
		return "zai"
	}
	return provider
}

func envOr(getenv func(string) string, name, def string) string {
	if v := strings.TrimSpace(getenv(name)); v != "" {
		return strings.TrimRight(v, "/")
	}
	return def
}

// ollamaBase turns OLLAMA_HOST into the OpenAI-compatible base URL the way
// Ollama's own client reads it: scheme defaults to http, port to 11434
// (80/443 when a scheme is given without one), host to 127.0.0.1.
func ollamaBase(hostEnv string) string {
	s := strings.TrimSpace(hostEnv)
	if s == "" {
		return "http://localhost:11434/v1"
	}
	defPort := "11434"
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
	case scheme == "http":
		defPort = "80"
	case scheme == "https":
		defPort = "443"
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = "127.0.0.1", defPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	}
	base := scheme + "://" + net.JoinHostPort(host, port)
	if path = strings.Trim(path, "/"); path != "" {
		base += "/" + path
	}
	return base + "/v1"
}

// openRouterThinking uses OpenRouter's unified reasoning object, which it
// translates for every upstream vendor.
func openRouterThinking(mode string) map[string]any {
	switch mode {
	case "high", "max":
		return map[string]any{"reasoning": map[string]any{"effort": "high"}}
	case "no":
		return map[string]any{"reasoning": map[string]any{"effort": "low"}}
	}
	return nil
}
