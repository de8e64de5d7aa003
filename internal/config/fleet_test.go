package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFleetNATS(t *testing.T) {
	tests := []struct {
		name, user, project string
		want, err           string
	}{
		{name: "none"},
		{name: "user file", user: "[fleet]\nnats = \"nats://q.internal:4222\"\n", want: "nats://q.internal:4222"},
		{name: "project over user", user: "[fleet]\nnats = \"nats://a:4222\"\n", project: "[fleet]\nnats = \" nats://b:4222,nats://c:4222 \"\n", want: "nats://b:4222,nats://c:4222"},
		{name: "not a string", user: "[fleet]\nnats = 4222\n", err: "fleet.nats must be a NATS URL"},
		{name: "empty", user: "[fleet]\nnats = \"\"\n", err: "fleet.nats must be a NATS URL"},
		{name: "not a table", user: "fleet = \"nats://a\"\n", err: "fleet must be a table"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			user, project := Paths(home, ws)
			for path, body := range map[string]string{user: tc.user, project: tc.project} {
				if body == "" {
					continue
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfg, err := LoadTrusting(home, ws, func(string) string { return "" }, TrustAll)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cfg.FleetNATS()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("FleetNATS() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
