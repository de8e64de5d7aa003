package netproxy

import "testing"

func TestAllowlistMatch(t *testing.T) {
	a, err := NewAllowlist([]string{"github.com", "*.example.org", "ssh.host.net:22", "10.1.2.3", "[::1]:8080", "Proxy.Test."})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		host      string
		port      int
		ok, exact bool
	}{
		{"github.com", 443, true, true},
		{"GitHub.com.", 22, true, true},
		{"api.github.com", 443, false, false}, // exact names only themselves
		{"a.example.org", 443, true, false},
		{"a.b.example.org", 80, true, false},
		{"example.org", 443, false, false}, // the apex is not a subdomain
		{"badexample.org", 443, false, false},
		{"ssh.host.net", 22, true, true},
		{"ssh.host.net", 443, false, false},
		{"10.1.2.3", 5432, true, true},
		{"10.1.2.4", 5432, false, false},
		{"::1", 8080, true, true},
		{"::1", 8081, false, false},
		{"proxy.test", 1, true, true},
	} {
		ok, exact := a.Allows(tc.host, tc.port)
		if ok != tc.ok || exact != tc.exact {
			t.Errorf("Allows(%s, %d) = %v, %v; want %v, %v", tc.host, tc.port, ok, exact, tc.ok, tc.exact)
		}
	}
	if got := a.List(); len(got) != 6 || got[1] != "*.example.org" || got[2] != "ssh.host.net:22" || got[4] != "[::1]:8080" {
		t.Errorf("List = %q", got)
	}
}

func TestParseRuleRefuses(t *testing.T) {
	for _, s := range []string{"", "host:0", "host:99999", "host:http", "*", "a/b", "user@host", "[:", "*.10.0.0.1", "a..b", ".a"} {
		if _, err := ParseRule(s); err == nil {
			t.Errorf("ParseRule(%q) accepted", s)
		}
	}
}

// FuzzParseRule: whatever a config holds, a rule that parses prints as
// an entry that parses back to itself.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"github.com", "*.example.org:443", "[::1]:8080", "10.0.0.1", "Host.Test.", "a:b:c", "*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			return
		}
		back, err := ParseRule(r.String())
		if err != nil || back != r {
			t.Fatalf("ParseRule(%q) = %+v, printed %q, parsed back %+v, %v", s, r, r.String(), back, err)
		}
	})
}
