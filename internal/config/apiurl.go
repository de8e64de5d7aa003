package config

import (
	"fmt"
	"net/url"
	"strings"
)

// CheckAPIURL validates a --api-url value at start-up: an absolute http
// or https URL with a host.
func CheckAPIURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--api-url %q is not an http(s) URL; give one such as http://localhost:11434/v1 or https://api.example.com/v1/chat/completions", raw)
	}
	return nil
}

// ChatURL turns an OpenAI-compatible --api-url into the chat-completions
// URL: a full URL (ending in /chat/completions) is kept; a base URL, the
// form OPENAI_BASE_URL and most tools use (http://host/v1), gets
// /chat/completions appended, and changed is true so the caller can say
// so once.
func ChatURL(raw string) (chat string, changed bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return raw, false
	}
	if strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/chat/completions") {
		return raw, false
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/chat/completions"
	return u.String(), true
}
