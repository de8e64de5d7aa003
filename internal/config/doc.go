// Package config loads OpenSeek's configuration — providers, models and
// failover profiles — and resolves a --model value into a ready client.
//
// Sources, later ones winning: built-in defaults, ~/.openseek/config.toml,
// <workspace>/.openseek/config.toml. The workspace's file comes from
// whoever wrote the repository: every key has a class in one table (Keys)
// — a repository may set it, only once the user trusted the file, or
// never — and the loader leaves out what the file may not set, listing it
// in Config.Held for the caller to show. Built-in providers need no file:
//
//	deepseek    https://api.deepseek.com       DEEPSEEK, DEEPSEEK_API_KEY
//	kimi        https://api.moonshot.ai/v1     KIMI, KIMI_API_KEY, MOONSHOT_API_KEY
//	glm         https://api.z.ai/api/paas/v4   GLM, ZAI_API_KEY
//	openai      https://api.openai.com/v1      OPENAI_API_KEY    (OPENAI_BASE_URL)
//	anthropic   https://api.anthropic.com      ANTHROPIC_API_KEY (ANTHROPIC_BASE_URL)
//	openrouter  https://openrouter.ai/api/v1   OPENROUTER_API_KEY
//	ollama      OLLAMA_HOST or localhost:11434, /v1; no key
//
// The base-URL variables replace the built-in defaults; a config file's
// base_url replaces both. A file looks like this:
//
//	model = "fast"                      # the default --model
//
//	[providers.openrouter]              # override one field of a built-in
//	headers = { "X-Title" = "OpenSeek" }
//
//	[providers.lmstudio]                # a new OpenAI-compatible server
//	base_url = "http://localhost:1234/v1"
//
//	[providers.work]
//	api = "anthropic"                   # openai (default) | anthropic | responses
//	base_url = "https://llm.example.com"
//	api_key_command = "pass show work/llm"   # sh -c, 10 s, trimmed stdout
//	api_key_env = ["WORK_LLM_KEY"]
//	extra_body = { provider = { sort = "throughput" } }
//
//	[models."ollama/qwen3-coder"]
//	window = 262144
//	max_output = 32768
//	price = { input_hit = 0, input_miss = 0, output = 0 }
//	reasoning = false
//
//	[profiles.fast]                     # failover, in order
//	candidates = ["deepseek/deepseek-v4-flash", "kimi/kimi-k2.7-code"]
//
// A provider's keys merge field by field over the built-in or earlier
// definition; a [models] or [profiles] entry replaces the earlier one.
// Other top-level tables (rules, sandbox, …) are kept in Config.Raw for
// the packages that own them, merged table by table, and read through
// Section; their keys are checked against Keys too.
//
// Keys: --api-key, then api_key, then api_key_command, then the first set
// api_key_env variable. A provider with no key setting at all (a local
// server) sends none; no_key = true forces that. Keys never appear in
// errors: a failing api_key_command is reported by its command line.
//
// Errors a user sees: a malformed file, a value of the wrong type, or an
// unknown key inside [providers.*], [models.*] or [profiles.*] is an error
// "path:line:col: what is wrong" (up to ten per file, in file order), and
// Load returns no configuration — a misspelt key is never silently
// ignored. An unknown --model lists the known providers, built-in and
// configured models and profiles. A missing key says which flag or
// variables would provide it.
//
// Model limits and prices come from OpenSeek's own table for DeepSeek,
// Kimi and GLM (llm.Models), else from the public catalogue embedded from
// charm.land/catwalk (llm.Catalogue), with a [models] entry's non-zero
// fields over either.
//
// Invariant: a Config is read-only after Load; Resolve and List never
// change it, and nothing in this package is global.
package config
