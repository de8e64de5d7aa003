// Package llmtest is a scripted model server for tests: a real HTTP server
// (httptest) that answers OpenAI chat-completions requests with real SSE in
// the vendors' chunk shape, one scripted Turn per request, in order.
//
// Every request is checked against the rules a real provider enforces, so a
// client that would be rejected in production is rejected here too:
//
//   - every assistant tool call is answered by a tool message before the
//     next non-tool message (and no tool message answers an unknown call);
//   - every assistant message with tool calls carries reasoning_content
//     (DeepSeek's rule; turn off with RequireReasoning(false));
//   - each request's messages begin, byte for byte, with the previous
//     request's messages, so the prompt cache stays warm. Call
//     ExpectPrefixBreak before a request that legitimately rewrites history
//     (compaction).
//
// A violation is answered with HTTP 400 and an OpenAI-style error body and
// fails the test through t.Errorf. A request beyond the end of the script is
// answered with HTTP 500 and fails the test.
//
// Unless a Reply sets Usage, usage is estimated: prompt tokens are the
// request's prompt bytes (tools, then messages)/4 and cache hits the bytes it shares (as a common prefix)
// with the previous request /4, so cache-hit ratios computed from it mean
// something.
//
// AnthropicServer plays the same Turns in Anthropic's Messages format
// under Anthropic's rules (see its doc). Both servers share one script
// (turns, recorded requests, prefix-break state, running out) and one
// player (chunking, pacing, stalls, cuts, failures); each adds only its
// wire format and its vendor's checks.
package llmtest
