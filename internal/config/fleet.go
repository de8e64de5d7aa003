package config

import (
	"fmt"
	"strings"
)

// FleetNATS reads [fleet] nats, the NATS server or cluster the fleet
// commands (tasks, worker, serve --http's /v1/tasks) join when no --nats
// is given ("" = the machine's embedded server):
//
//	[fleet]
//	nats = "nats://queue.internal:4222"   # comma-separated for a cluster
//
// The workspace's file wins over the user's.
func (c *Config) FleetNATS() (string, error) {
	raw, set := c.Raw["fleet"]
	if !set {
		return "", nil
	}
	t, ok := raw.(map[string]any)
	if !ok {
		return "", fmt.Errorf(`config: fleet must be a table: [fleet] nats = "nats://host:4222"`)
	}
	for k, v := range t {
		if k != "nats" {
			return "", fmt.Errorf("config: fleet.%s is not a [fleet] setting (nats)", k)
		}
		s, ok := v.(string)
		if !ok || strings.TrimSpace(s) == "" {
			return "", fmt.Errorf(`config: fleet.nats must be a NATS URL such as "nats://host:4222", not %v`, v)
		}
		return strings.TrimSpace(s), nil
	}
	return "", nil
}
