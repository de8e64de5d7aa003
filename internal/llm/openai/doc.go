// Package openai is the llm.Provider for OpenAI-compatible chat-completions
// endpoints: DeepSeek, Kimi (Moonshot), Z.AI GLM, OpenRouter, OpenAI, xAI,
// Groq and local servers (llama.cpp, vLLM, Ollama). It posts the request
// bytes it encodes through llm.API (net/http; the header openai-go's
// client sends, a test holds them equal) and decodes the SSE stream with
// github.com/openai/openai-go/v3's ssestream package; the SDK's client
// package is not linked, which keeps several megabytes of API surface out
// of the binary. The wire structs here add the vendor extensions the
// SDK's types lack.
//
// What a user sees:
//
//   - Text arrives as llm.TextDelta and reasoning as llm.ReasoningDelta,
//     read from delta.reasoning_content (DeepSeek, Kimi, GLM, xAI,
//     llama.cpp) or delta.reasoning (OpenRouter).
//   - OpenRouter's delta.reasoning_details fragments are merged into whole
//     items (one per type and index: text and summary concatenated,
//     signature, format, id and data kept as they arrive) and returned as
//     llm.Response.ReasoningItems, a JSON array with sorted keys (nil when
//     the stream had none). An assistant chat.Message whose ReasoningItems
//     are all such items (type "reasoning.*") sends them back verbatim as
//     reasoning_details, so Claude via OpenRouter keeps its signed thinking
//     across tool calls; items from other providers (the Responses API's
//     "reasoning") are never sent.
//   - Tool calls are assembled by index from fragments or whole arguments;
//     ids are kept verbatim (Kimi's functions.weather:0 included).
//   - Usage includes prompt-cache hits and misses from DeepSeek's
//     prompt_cache_hit/miss_tokens, prompt_tokens_details.cached_tokens or
//     Kimi's top-level cached_tokens (miss = prompt − hit when unstated).
//   - Request.Thinking is mapped to the vendor's fields through the model
//     catalogue (llm.LookupModel), else to reasoning_effort.
//   - Failures are *llm.Error. 401/403 say the API key was refused (the key
//     itself is never printed); 429, 5xx, transport errors, a stream silent
//     for Config.IdleTimeout and a stream cut before [DONE] or a finish
//     reason are Retryable. A non-JSON error page becomes a short readable
//     message with its status. A redirect to another origin is refused,
//     so the key never follows it.
//
// Invariant: the same conversation always encodes to the same request
// bytes, and every assistant message with tool calls carries
// reasoning_content ("" when the model gave none), because DeepSeek rejects
// the request otherwise and because byte-stable prefixes keep the vendors'
// prompt caches warm.
package openai
