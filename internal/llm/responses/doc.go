// Package responses is the llm.Provider for the OpenAI Responses API
// (POST {BaseURL}/responses), which serves OpenAI's reasoning models better
// than chat completions: their reasoning survives across tool calls. It
// encodes requests with its own small wire types (request.go), posts them
// through llm.API (net/http; the header openai-go's client sends, a test
// holds them equal) and decodes the event stream with openai-go's light
// ssestream package into its own event types (event.go).
//
// Only those shapes are linked, not openai-go's responses, param and
// shared packages: they cost every start of the binary about 0.8 ms and
// 75 KB of package initialisation and the binary about 7 MB, for the few
// request fields and events used here. Tests keep the SDK as the oracle:
// the request bytes equal what its ResponseNewParams marshalled to, and
// every recorded event, and events with members of unexpected JSON types,
// decode to what its event union gave (a mistyped member is read loosely
// or ignored, never a failure; an event that is not a JSON object is a
// malformed event).
//
// What a user sees:
//
//   - Text arrives as llm.TextDelta (response.output_text.delta, and a
//     refusal's text) and the reasoning summary as llm.ReasoningDelta
//     (response.reasoning_summary_text.delta; raw reasoning_text deltas
//     too, for servers that send them). Summary parts are separated by a
//     blank line.
//   - Function calls keep their call_id and have their arguments assembled
//     from response.function_call_arguments.delta (the .done event and the
//     finished item, when present, are authoritative).
//   - Usage reports input_tokens_details.cached_tokens as prompt-cache
//     hits and the rest of input_tokens as misses.
//   - Request.Thinking "no", "high", "max" become reasoning.effort
//     minimal, medium, high with summary "auto"; "" leaves the model's
//     default and asks for no summary.
//   - Failures are *llm.Error, mapped as in package openai: 401/403 say
//     the key was refused (never printing it); 429 (with Retry-After),
//     5xx, transport errors, a stream silent for Config.IdleTimeout and a
//     stream cut before response.completed are Retryable; an HTML error
//     page becomes a short message with its status; an error event or
//     response.failed mid-stream is retryable only for server errors and
//     rate limits. A redirect to another origin is refused.
//
// Conversation mapping: leading system messages become instructions (a
// later system message stays in place as a developer message); user text
// and images become input_text/input_image; an assistant message becomes
// its reasoning items, then an assistant output message, then one
// function_call item per tool call; a tool message becomes
// function_call_output with the same call_id.
//
// Invariant: requests are stateless (store: false) and always ask for
// reasoning.encrypted_content, so the reasoning items of every response
// (llm.Response.ReasoningItems, a JSON array) can be replayed verbatim on
// the next request through chat.Message.ReasoningItems; and the same
// conversation always encodes to the same request bytes, which keeps
// OpenAI's prompt cache warm.
package responses
