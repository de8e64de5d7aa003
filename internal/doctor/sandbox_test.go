package doctor_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/doctor"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
)

func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}

// TestSandbox checks that the doctor builds a sandbox and runs a command
// in it: ok for a real workspace, fail with the sandbox's reason for one
// it cannot enter.
func TestSandbox(t *testing.T) {
	tests := []struct {
		name, dir, status, detail string
	}{
		{"workspace", t.TempDir(), "ok", "a command ran in the sandbox"},
		{"missing workspace", "/nonexistent-openseek-workspace", "fail", "--no-sandbox"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := doctor.Sandbox(context.Background(), tt.dir)
			if c.Name != "sandbox" || c.Status != tt.status || !strings.Contains(c.Detail, tt.detail) {
				t.Fatalf("got %+v, want status %s with %q", c, tt.status, tt.detail)
			}
		})
	}
}

// TestSandboxAsOrdinaryUser runs TestSandbox as an ordinary user, for
// whom the doctor once said ok while every command failed.
func TestSandboxAsOrdinaryUser(t *testing.T) {
	sandboxtest.AsOrdinaryUser(t, "^TestSandbox$")
}
