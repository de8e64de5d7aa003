package config

import (
	"fmt"
	"net/url"
	"strings"
)

// Telemetry is the [telemetry] table: where OpenTelemetry traces and
// metrics go, and whether prompt text goes with them.
//
//	[telemetry]
//	otlp_endpoint = "http://collector:4318"   # OTLP over HTTP; /v1/traces and /v1/metrics are added
//	log_prompts = false                        # prompts, answers and tool arguments stay out (default)
type Telemetry struct {
	Endpoint   string // "" = not set here (OTEL_EXPORTER_OTLP_ENDPOINT may still be)
	LogPrompts bool
}

// Telemetry reads [telemetry]; the workspace's file wins over the user's,
// key by key.
func (c *Config) Telemetry() (Telemetry, error) {
	raw, set := c.Raw["telemetry"]
	if !set {
		return Telemetry{}, nil
	}
	t, ok := raw.(map[string]any)
	if !ok {
		return Telemetry{}, fmt.Errorf(`config: telemetry must be a table: [telemetry] otlp_endpoint = "http://localhost:4318"`)
	}
	var out Telemetry
	for k, v := range t {
		switch k {
		case "otlp_endpoint":
			s, ok := v.(string)
			if !ok {
				return Telemetry{}, fmt.Errorf(`config: telemetry.otlp_endpoint must be a URL such as "http://localhost:4318", not %v`, v)
			}
			s = strings.TrimSpace(s)
			if err := CheckOTLPEndpoint(s); err != nil {
				return Telemetry{}, fmt.Errorf("config: telemetry.otlp_endpoint: %w", err)
			}
			out.Endpoint = s
		case "log_prompts":
			b, ok := v.(bool)
			if !ok {
				return Telemetry{}, fmt.Errorf("config: telemetry.log_prompts must be true or false, not %v", v)
			}
			out.LogPrompts = b
		default:
			return Telemetry{}, fmt.Errorf("config: telemetry.%s is not a [telemetry] setting (otlp_endpoint, log_prompts)", k)
		}
	}
	return out, nil
}

// CheckOTLPEndpoint accepts the base URL of an OTLP/HTTP receiver
// (http or https, with a host).
func CheckOTLPEndpoint(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http:// or https:// URL of an OTLP receiver (such as http://localhost:4318)", s)
	}
	return nil
}
