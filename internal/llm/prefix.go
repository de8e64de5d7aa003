package llm

import "sync"

// PrefixCache keeps, between the requests of one conversation, the wire
// encoding an adapter made of the conversation's leading messages, so
// that each request encodes only what is new. A long session then costs
// the same per step at step 1,000 as at step 10, and the bytes sent are
// exactly those a full encoding would give (the stable prefix that the
// vendors' prompt caches key on).
//
// The contract, kept by whoever sets Request.Cache: every request that
// carries one cache has the same Tools, and its Messages[:Stable] are a
// prefix of one fixed sequence of messages. A conversation whose history
// changes (a summary, a rewind) starts a new cache. Each adapter keeps
// its own state in the cache under a key of its own, so one cache serves
// the providers of a failover chain side by side.
type PrefixCache struct {
	mu     sync.Mutex
	states map[any]any
}

// NewPrefixCache returns an empty cache.
func NewPrefixCache() *PrefixCache { return &PrefixCache{} }

// Update calls f with the state stored under key (nil the first time)
// and stores what f returns. Calls are serialised, so f may extend the
// state in place.
func (c *PrefixCache) Update(key any, f func(state any) any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.states == nil {
		c.states = map[any]any{}
	}
	c.states[key] = f(c.states[key])
}
