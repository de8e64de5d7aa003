// Package anthropic is the llm.Provider for the Anthropic Messages API
// (Claude). It posts the request bytes it encodes
// through llm.API (net/http; the header anthropic-sdk-go's client sends, anthropic-version
// included; a test holds them equal) and decodes the SSE stream with
// github.com/anthropics/anthropic-sdk-go/v2's ssestream package; the SDK's
// client package is not linked. The wire structs here keep the request
// bytes under this package's control.
//
// What a user sees:
//
//   - Text arrives as llm.TextDelta and thinking as llm.ReasoningDelta. The
//     thinking block's signature is returned in
//     llm.Response.ReasoningSignature and must come back in
//     chat.Message.ReasoningSignature: an assistant message is sent with a
//     thinking block only when it has both, since the API rejects unsigned
//     thinking. With thinking on, the API also rejects continuing a
//     tool-use turn that lacks its signed thinking; such a request is sent
//     with thinking disabled for that step instead of failing.
//   - Tool calls are assembled from input_json_delta fragments; a call
//     without fragments gets the input of its content_block_start ("{}").
//   - The system prompt is the top-level system field; tool results are
//     user tool_result blocks, consecutive ones merged into one user
//     message (any same-role neighbours are merged: roles alternate).
//   - Prompt caching: ephemeral cache_control breakpoints sit on the last
//     tool, the last system block and the last block of the last two user
//     messages (4, the API's maximum), so tools, system and every earlier
//     turn are read from the cache on the next request.
//   - Usage: prompt = input + cache_creation + cache_read tokens; cache
//     hits are cache_read, misses the rest; completion = output tokens.
//   - Request.Thinking: "no" disables thinking, "high" and "max" enable it
//     with budget_tokens 8k and 32k (Config.ThinkingBudget overrides). A
//     budget that does not fit below max_tokens (default 32000) is cut to
//     leave 4096 tokens for the answer, so "max" thinks 27904 tokens
//     unless MaxTokens is raised; "" sends nothing (the API's default:
//     off).
//   - Failures are *llm.Error. 401/403 say the API key was refused (the key
//     itself is never printed); 429, 5xx, 529 overloaded (also as an error
//     event mid-stream), transport errors, a stream silent for
//     Config.IdleTimeout and a stream cut before the message finished are
//     Retryable, with Retry-After honoured. A non-JSON error page becomes a
//     short readable message with its status. A redirect to another origin
//     is refused, so the key never follows it.
//
// Invariant: the same conversation always encodes to the same request
// bytes, and a conversation that grows by appending messages re-encodes
// its earlier messages identically apart from the moving cache_control
// markers, which the prompt cache ignores.
package anthropic
