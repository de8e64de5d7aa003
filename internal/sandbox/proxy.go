package sandbox

import "net"

// NetworkProxy is what reaches the network for commands of a policy
// with an allowlist ([Policy.Proxy]): it runs in this program, outside
// the sandbox, and serves listeners the sandbox makes in each command's
// network namespace at [ProxyAddr].
type NetworkProxy interface {
	// Serve answers the commands' proxy requests on l until l is closed.
	Serve(l net.Listener) error
	// NoProxy is the command's NO_PROXY: the names that stay inside the
	// sandbox (its own loopback) rather than going to the proxy.
	NoProxy() string
}

// ProxyAddr is where a command of a policy with a proxy finds it: in the
// command's own network namespace, whose only interface is loopback, so
// the port is free whatever the host runs.
const ProxyAddr = "127.0.0.1:3128"
