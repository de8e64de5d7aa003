package tool

import "context"

// Caller makes tool calls on behalf of a running tool (the script tool):
// each call takes the same path as a call the model made itself — hooks,
// the permission guard and approval, the sandbox, redaction — and is
// recorded in the session as a child of the calling tool's call. The turn
// loop hands one to every tool it runs, through the context.
type Caller interface {
	// Tools names the tools a call may name, sorted.
	Tools() []string
	// Call runs the named tool with args (a JSON object). A tool that
	// does not exist, arguments that do not decode and refusals are error
	// results, like the model would get.
	Call(ctx context.Context, name string, args string) Result
}

type callerKey struct{}

// WithCaller is ctx carrying c for the tool run under it.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom is the Caller ctx carries; false when the tool runs where no
// further calls may be made (inside another tool's call).
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok && c != nil
}
