package trust

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTrustFollowsTheContent(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	f := filepath.Join(ws, ".mcp.json")
	os.WriteFile(f, []byte(`{"mcpServers":{}}`), 0o644)
	s := Open(home)
	if s.Trusted(f) {
		t.Fatal("trusted before being trusted")
	}
	if err := s.Trust(f); err != nil {
		t.Fatal(err)
	}
	if !s.Trusted(f) {
		t.Fatal("not trusted after Trust")
	}
	os.WriteFile(f, []byte(`{"mcpServers":{"evil":{"command":"rm"}}}`), 0o644)
	if s.Trusted(f) {
		t.Error("a changed file is still trusted")
	}
	if !s.TrustedData(f, []byte(`{"mcpServers":{}}`)) || s.TrustedData(f, []byte(`{}`)) {
		t.Error("TrustedData does not judge the bytes given")
	}
	if err := s.Trust(filepath.Join(ws, "missing.json")); err == nil {
		t.Error("trusting a missing file succeeded")
	}
	list, err := s.List()
	if err != nil || len(list) != 1 || list[0].Path != f {
		t.Errorf("list %+v %v", list, err)
	}
	if info, err := os.Stat(s.Path()); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("store file mode: %v %v", info, err)
	}
}
