package protocol

import "strconv"

// Events added for the host's clients (web app, TUI, ACP, SSE). They are
// additive: clients that do not know them ignore them, and the reference
// events keep their exact bytes.

// ToolStarted announces a tool call before it runs, so a client can show
// it while it works. Arguments is the raw JSON the model sent. Parent,
// an additive key omitted when empty, is the call that made this one on
// its own (the script tool's calls), for clients that nest them.
type ToolStarted struct {
	ToolCallID, ToolName string
	Arguments            string
	Parent               string `wire:",omitempty"`
}

// StreamReset tells a subscriber that it fell behind the in-memory event
// window (or asked for events this process never had): the events after
// Since up to Resume-1 are not replayed. The client re-reads the session
// (its log, or GET /v1/sessions/{id}) and continues from Resume.
type StreamReset struct {
	Since, Resume int64
	Reason        string
}

// TurnSummary closes a turn for clients that want totals: the session, the
// turn's wall time, model calls, token usage (sub-agents included) and its
// cost in USD (null when the model's price is unknown).
type TurnSummary struct {
	Session    string
	Outcome    string // the terminal kind: finished, aborted, failed, max_steps, context_yield
	DurationMs int64
	Steps      int
	Usage      Usage
	CostUSD    *float64
}

// int64 reads a required non-negative integer up to 2^53-1.
func (f *fields) int64(key string) int64 {
	raw, ok := f.o[key]
	if !ok {
		f.ok = false
		return 0
	}
	n, ok := rawSafeUint(raw)
	f.ok = f.ok && ok
	return n
}

// optFloat is a defaulted number: absent, null or not a number mean none.
func (f *fields) optFloat(key string) *float64 {
	raw, ok := f.o[key]
	if !ok {
		return nil
	}
	v, ok := rawNumber(raw)
	if !ok {
		return nil
	}
	return &v
}

func appendInt64Field(b []byte, key string, v int64) []byte {
	return strconv.AppendInt(appendKey(b, key), v, 10)
}

// appendFloat writes a float in its shortest exact form ('g' style
// without an exponent for ordinary magnitudes, as JavaScript prints it).
func appendFloat(b []byte, v float64) []byte {
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// appendOptFloatField writes the number or null; the key is always present.
func appendOptFloatField(b []byte, key string, v *float64) []byte {
	b = appendKey(b, key)
	if v == nil {
		return append(b, "null"...)
	}
	return appendFloat(b, *v)
}
