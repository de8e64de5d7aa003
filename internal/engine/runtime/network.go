package runtime

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/openseek/openseek/internal/netproxy"
	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// networkSetting is [sandbox] network: true or false (all or nothing),
// or a list of hosts commands may reach through the allowlist proxy.
type networkSetting struct {
	all   bool
	hosts []string
}

// UnmarshalTOML reads a boolean or an array of strings.
func (n *networkSetting) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case bool:
		n.all = v
		return nil
	case []any:
		for _, h := range v {
			s, ok := h.(string)
			if !ok {
				return fmt.Errorf("sandbox.network: %v is not a string; want true, false or a list such as [\"github.com\", \"*.example.com\", \"host:22\"]", h)
			}
			n.hosts = append(n.hosts, s)
		}
		return nil
	}
	return fmt.Errorf("sandbox.network: want true, false or a list such as [\"github.com\", \"*.example.com\", \"host:22\"], not %v", v)
}

// newNetProxy is the proxy for the allowlist in hosts (nil when there is
// none: no proxy is made, nothing starts).
func (e *Engine) newNetProxy(hosts []string) (*netproxy.Proxy, error) {
	if len(hosts) == 0 {
		return nil, nil
	}
	allow, err := netproxy.NewAllowlist(hosts)
	if err != nil {
		return nil, fmt.Errorf("[sandbox] network: %w", err)
	}
	return &netproxy.Proxy{Allow: allow, Log: e.logConnection}, nil
}

// logConnection records one proxied connection in the session log (a
// marker the model never sees) and shows it to every face.
func (e *Engine) logConnection(c netproxy.Conn) {
	text := session.NetworkPrefix + c.String()
	if !c.Allowed {
		text += fmt.Sprintf(" — to allow it for this session: /network %s (protocol: network_allow)", net.JoinHostPort(c.Host, strconv.Itoa(c.Port)))
	}
	if e.log != nil {
		if _, err := e.log.Append(&session.Notice{Content: text}); err != nil {
			e.opts.Emit(protocol.SessionError{Error: err.Error()})
		}
	}
	e.opts.Emit(protocol.BackgroundNotice{Content: text})
}

// askNetwork asks the controller about a host:port the allowlist does
// not cover, while a command's connection waits: allowed for the
// session, it joins the allowlist.
func (e *Engine) askNetwork(ctx context.Context, host string, port int) bool {
	hp := net.JoinHostPort(host, strconv.Itoa(port))
	a, err := e.broker.Ask(ctx, policy.Question{
		Tool:     "network",
		Detail:   "a sandboxed command wants to reach " + hp + ", which [sandbox] network does not list",
		Patterns: []string{"network " + hp},
	})
	if err != nil || !a.Allow {
		return false
	}
	if a.Remember {
		_ = e.netProxy.Allow.Add(hp)
	}
	return true
}

// AllowNetwork lets the session's commands reach host (an allowlist
// entry) for the rest of the session; "" only lists. Either way the
// allowlist is shown as a background_notice.
func (e *Engine) AllowNetwork(host string) error {
	if e.netProxy == nil {
		if e.sandboxPolicy != nil && e.sandboxPolicy.Network {
			return fmt.Errorf("the network is open to every host in this session already")
		}
		return fmt.Errorf("this session has no network allowlist: its commands have no network at all; list hosts in [sandbox] network in ~/.openseek/config.toml (or a trusted .openseek/config.toml), e.g. network = [%q], and start a new session", host)
	}
	if host != "" {
		if err := e.netProxy.Allow.Add(host); err != nil {
			return err
		}
	}
	list := e.netProxy.Allow.List()
	e.opts.Emit(protocol.BackgroundNotice{Content: session.NetworkPrefix + "commands may reach: " + strings.Join(list, ", ")})
	return nil
}
