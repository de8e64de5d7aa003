package session

import "strings"

// NetworkPrefix starts the runtime notice recording one connection of a
// sandboxed command through the allowlist proxy (host, port, allowed or
// refused, bytes). It is a notice every view of the session shows, but
// the projection leaves it out: the model reads the command's output,
// and a connection ends in the middle of a tool call, where a message
// would break the call's pairing.
const NetworkPrefix = "[network] "

// IsNetworkMarker reports whether a notice records a proxied connection.
func IsNetworkMarker(c string) bool { return strings.HasPrefix(c, NetworkPrefix) }
