package agent

import (
	"bytes"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/session"
)

// history is the loop's view of the log as the model sees it, kept up to
// date across steps and turns so that a step of a long session costs what
// is new in it, not the length of the session: the projection grows by
// the events appended since the last step, the provider re-encodes only
// the messages its PrefixCache lacks, and the context meter adds the size
// of the new messages to that of the stable ones. A summary or a rewind
// makes the projection afresh, and the cache and sizes with it.
type history struct {
	proj  session.Projection
	cache *llm.PrefixCache
	tools []llm.ToolSpec // the tools every request carrying cache has

	sized int // leading stable messages whose size is in size
	size  int
}

// view is one step's request history.
type view struct {
	msgs   []chat.Message
	stable int // leading messages that no later step changes
	bytes  int // the size of msgs as the context meter counts it
}

// useTools sets the tools of the coming requests (at the start of a
// turn); other tools than before need a new encoding cache.
func (h *history) useTools(tools []llm.ToolSpec) {
	if h.cache == nil || !sameTools(h.tools, tools) {
		h.cache, h.tools = llm.NewPrefixCache(), tools
	}
}

// view projects s.
func (h *history) view(s *session.Session) view {
	msgs, stable, fresh := h.proj.Messages(s)
	if fresh {
		h.cache = llm.NewPrefixCache()
		h.sized, h.size = 0, 0
	}
	for ; h.sized < stable; h.sized++ {
		h.size += messageBytes(msgs[h.sized])
	}
	n := h.size
	for _, m := range msgs[stable:] {
		n += messageBytes(m)
	}
	return view{msgs: msgs, stable: stable, bytes: n}
}

func sameTools(a, b []llm.ToolSpec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Description != b[i].Description || !bytes.Equal(a[i].Parameters, b[i].Parameters) {
			return false
		}
	}
	return true
}
