package config_test

import (
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/config"
)

func TestTelemetry(t *testing.T) {
	tests := []struct {
		name, user, project string
		want                config.Telemetry
		err                 string
	}{
		{name: "none"},
		{name: "user file", user: "[telemetry]\notlp_endpoint = \"http://collector:4318\"\n", want: config.Telemetry{Endpoint: "http://collector:4318"}},
		{name: "project over user, key by key", user: "[telemetry]\notlp_endpoint = \"http://a:4318\"\nlog_prompts = true\n",
			project: "[telemetry]\notlp_endpoint = \" https://b:4318 \"\n", want: config.Telemetry{Endpoint: "https://b:4318", LogPrompts: true}},
		{name: "not a URL", user: "[telemetry]\notlp_endpoint = \"collector:4318\"\n", err: "not an http:// or https:// URL"},
		{name: "not a string", user: "[telemetry]\notlp_endpoint = 4318\n", err: "telemetry.otlp_endpoint must be a URL"},
		{name: "log_prompts not a bool", user: "[telemetry]\nlog_prompts = \"yes\"\n", err: "telemetry.log_prompts must be true or false"},
		{name: "not a table", user: "telemetry = \"http://a\"\n", err: "telemetry must be a table"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home, ws := dirs(t, tc.user, tc.project)
			cfg, err := config.LoadTrusting(home, ws, env{}.get, config.TrustAll)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cfg.Telemetry()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Telemetry() = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
