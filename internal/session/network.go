package session

import "strings"

// NetworkPrefix starts the runtime notice recording one connection of a
// sandboxed command through the allowlist proxy (host, port, allowed or
// refused, bytes). Like the approval markers it is a record for people
// and viewers, never shown to the model: a connection ends in the middle
// of a tool call, where a message would break the call's pairing.
const NetworkPrefix = "[network] "

// IsNetworkMarker reports whether a notice records a proxied connection.
func IsNetworkMarker(c string) bool { return strings.HasPrefix(c, NetworkPrefix) }
