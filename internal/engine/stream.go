package engine

import "github.com/openseek/openseek/internal/engine/hub"

// The session's event stream is package hub's; these names let the
// frontends keep reading it through the host's package.
type (
	Hub          = hub.Hub
	Entry        = hub.Entry
	Subscription = hub.Subscription
	Follower     = hub.Follower
	Lag          = hub.Lag
)
