package netproxy

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Rule is one entry of the allowlist: an exact host (a name or an IP
// literal) or a wildcard "*.domain" (its subdomains, not the domain
// itself), with an optional port (0: any).
type Rule struct {
	Host     string // lower case, without a trailing dot; for a wildcard the domain
	Wildcard bool
	Port     int
}

// String is the rule as written in config ("*.example.com:443").
func (r Rule) String() string {
	h := r.Host
	if r.Wildcard {
		h = "*." + h
	}
	if r.Port == 0 {
		return h
	}
	return net.JoinHostPort(h, strconv.Itoa(r.Port))
}

// ParseRule reads "host", "*.domain", "host:port", "[v6]:port" or a bare
// IPv6 literal.
func ParseRule(s string) (Rule, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return Rule{}, errors.New("empty network rule")
	}
	host, port := in, 0
	if h, p, err := net.SplitHostPort(in); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return Rule{}, fmt.Errorf("network rule %q: port %q is not a number from 1 to 65535", s, p)
		}
		host, port = h, n
	} else if _, err := netip.ParseAddr(strings.Trim(in, "[]")); err == nil {
		host = strings.Trim(in, "[]")
	}
	host = normHost(host)
	r := Rule{Host: host, Port: port}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		r.Host, r.Wildcard = rest, true
	}
	if !validHost(r.Host) || (r.Wildcard && isIP(r.Host)) {
		return Rule{}, fmt.Errorf("network rule %q: want host, *.domain or host:port", s)
	}
	return r, nil
}

// validHost reports whether h is an IP address or a name of letters,
// digits, '-', '_' and inner dots.
func validHost(h string) bool {
	if isIP(h) {
		return true
	}
	if h == "" || strings.HasPrefix(h, ".") || strings.HasSuffix(h, ".") || strings.Contains(h, "..") {
		return false
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func isIP(h string) bool {
	_, err := netip.ParseAddr(h)
	return err == nil
}

// normHost is host in lower case without a trailing dot or brackets.
func normHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
}

// match reports whether r covers host:port; exact is true when r names
// host itself (not by a wildcard).
func (r Rule) match(host string, port int) (ok, exact bool) {
	if r.Port != 0 && r.Port != port {
		return false, false
	}
	if r.Wildcard {
		return strings.HasSuffix(host, "."+r.Host), false
	}
	if a, err := netip.ParseAddr(host); err == nil {
		b, err := netip.ParseAddr(r.Host)
		return err == nil && a.Unmap() == b.Unmap(), true
	}
	return host == r.Host, true
}

// Allowlist is the hosts commands may reach, from config and those added
// for the session; safe for concurrent use.
type Allowlist struct {
	mu    sync.Mutex
	rules []Rule
}

// NewAllowlist parses the config's entries.
func NewAllowlist(entries []string) (*Allowlist, error) {
	a := &Allowlist{}
	for _, e := range entries {
		if err := a.Add(e); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Add allows one more entry; one already listed is not added twice.
func (a *Allowlist) Add(entry string) error {
	r, err := ParseRule(entry)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !slices.Contains(a.rules, r) {
		a.rules = append(a.rules, r)
	}
	return nil
}

// List is the entries, in the order they were added.
func (a *Allowlist) List() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]string, len(a.rules))
	for i, r := range a.rules {
		out[i] = r.String()
	}
	return out
}

// Allows reports whether host:port is listed; exact is true when an
// entry names the host itself (needed to reach a loopback, link-local
// or metadata address).
func (a *Allowlist) Allows(host string, port int) (ok, exact bool) {
	host = normHost(host)
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range a.rules {
		if m, e := r.match(host, port); m {
			ok = true
			exact = exact || e
		}
	}
	return ok, exact
}

// Names reports whether an entry names host exactly, on any port.
func (a *Allowlist) Names(host string) bool {
	host = normHost(host)
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range a.rules {
		if ok, _ := (Rule{Host: r.Host}).match(host, 0); ok && !r.Wildcard {
			return true
		}
	}
	return false
}
