// Package netproxy is the proxy through which sandboxed commands reach
// the hosts of an allowlist ([sandbox] network = ["host", "*.domain",
// "host:port"]). It runs in OpenSeek, outside the sandbox; the sandbox
// hands it a listener that lives in the command's own network namespace
// (127.0.0.1:3128 there), so a command has no route out but this one.
//
// It speaks HTTP CONNECT (https, ssh and any TCP through a tunnel) and
// plain HTTP proxying (absolute-URI requests). Names are resolved here,
// outside, so the sandbox needs no DNS. Invariants: a host:port no entry
// covers is refused (403, with a body naming the host and the config
// key) before any connection is made; an address that is loopback,
// link-local (169.254.169.254, the cloud metadata service, among them),
// unspecified or the IPv6 metadata address is reached only when an
// entry names the host exactly, never through a wildcard; every
// connection, allowed or refused, is reported to Log once it ends, with
// its byte counts.
package netproxy
