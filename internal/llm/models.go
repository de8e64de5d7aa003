package llm

import (
	"fmt"
	"slices"

	"github.com/openseek/openseek/protocol"
)

// Model is one entry of the built-in model catalogue.
type Model struct {
	Name      string   // what --model accepts and what is sent as "model"
	Provider  string   // the vendor, for messages ("DeepSeek", "Kimi", "Z.AI")
	URL       string   // official chat-completions endpoint
	KeyEnv    []string // environment variables holding the API key, in order
	Window    int      // context window in tokens
	MaxOutput int      // largest completion the vendor allows
	Price     Price
	// Thinking maps a --thinking mode ("no", "high", "max") to the
	// vendor's request-body fields; "" and unknown modes map to nil.
	Thinking func(mode string) map[string]any
}

// Price is what a model costs, in USD per million tokens.
type Price struct{ InputHit, InputMiss, Output float64 }

// Key returns the first non-empty API key among m.KeyEnv and the variable
// it came from; both are "" when none is set.
func (m Model) Key(getenv func(string) string) (string, string) {
	for _, name := range m.KeyEnv {
		if v := getenv(name); v != "" {
			return v, name
		}
	}
	return "", ""
}

// Cost is the price in USD of hit and miss prompt tokens and output tokens.
func (p Price) Cost(hit, miss, output int) float64 {
	return (float64(hit)*p.InputHit + float64(miss)*p.InputMiss + float64(output)*p.Output) / 1e6
}

// Of is the one rule every face prices usage by: the cost in USD of u at
// p, and false when p is unknown (the zero Price: a model outside the
// catalogue, or another endpoint than the provider's with no price in a
// config file). A response's cost is decided once, when it arrives, and
// recorded with it in the session log; everything that shows a cost
// later reads that record (session.Session.Cost) instead of pricing
// again with whatever model is selected then.
func (p Price) Of(u protocol.Usage) (usd float64, known bool) {
	if p == (Price{}) {
		return 0, false
	}
	return p.Cost(u.PromptCacheHitTokens, u.PromptCacheMissTokens, u.CompletionTokens), true
}

// String is the price as every list shows it: USD per million cached
// input, input and output tokens ("$0.07/$0.27/$1.10"), or "-" when it is
// unknown (the zero Price).
func (p Price) String() string {
	if p == (Price{}) {
		return "-"
	}
	return fmt.Sprintf("$%.2f/$%.2f/$%.2f", p.InputHit, p.InputMiss, p.Output)
}

const (
	deepseekURL = "https://api.deepseek.com/chat/completions"
	kimiURL     = "https://api.moonshot.ai/v1/chat/completions"
	glmURL      = "https://api.z.ai/api/paas/v4/chat/completions"
)

// Models returns the built-in catalogue in --help order. The slice is new
// on every call, so callers may modify it.
func Models() []Model {
	deepseek := func(name string, price Price) Model {
		return Model{Name: name, Provider: "DeepSeek", URL: deepseekURL,
			KeyEnv: []string{"DEEPSEEK", "DEEPSEEK_API_KEY"},
			Window: 128_000, MaxOutput: 64_000, Price: price, Thinking: deepseekThinking}
	}
	kimi := func(name string, price Price) Model {
		return Model{Name: name, Provider: "Kimi", URL: kimiURL,
			KeyEnv: []string{"KIMI", "KIMI_API_KEY", "MOONSHOT_API_KEY"},
			Window: 256_000, MaxOutput: 32_000, Price: price, Thinking: kimiThinking}
	}
	glm := func(name string, price Price) Model {
		return Model{Name: name, Provider: "Z.AI", URL: glmURL,
			KeyEnv: []string{"GLM", "ZAI_API_KEY"},
			Window: 200_000, MaxOutput: 128_000, Price: price, Thinking: glmThinking}
	}
	return []Model{
		deepseek("deepseek-v4-flash", Price{InputHit: 0.028, InputMiss: 0.28, Output: 0.42}),
		deepseek("deepseek-v4-pro", Price{InputHit: 0.145, InputMiss: 1.74, Output: 3.48}),
		kimi("kimi-k2.7-code", Price{InputHit: 0.15, InputMiss: 0.60, Output: 2.50}),
		kimi("kimi-k2.7-code-highspeed", Price{InputHit: 0.15, InputMiss: 1.15, Output: 8.00}),
		glm("glm-5.3", Price{InputHit: 0.20, InputMiss: 1.00, Output: 3.20}),
		glm("glm-5.3-flash", Price{InputHit: 0.01, InputMiss: 0.06, Output: 0.40}),
	}
}

// LookupModel finds a catalogue model by its exact name.
func LookupModel(name string) (Model, bool) {
	ms := Models()
	i := slices.IndexFunc(ms, func(m Model) bool { return m.Name == name })
	if i < 0 {
		return Model{}, false
	}
	return ms[i], true
}

func thinkingType(on bool) map[string]any {
	if on {
		return map[string]any{"type": "enabled"}
	}
	return map[string]any{"type": "disabled"}
}

// deepseekThinking: thinking is a switch, reasoning_effort its depth
// (DeepSeek accepts low/high/max).
func deepseekThinking(mode string) map[string]any {
	switch mode {
	case "no":
		return map[string]any{"thinking": thinkingType(false)}
	case "high", "max":
		return map[string]any{"thinking": thinkingType(true), "reasoning_effort": mode}
	}
	return nil
}

// kimiThinking: Kimi has a switch and no depth control.
func kimiThinking(mode string) map[string]any {
	switch mode {
	case "no":
		return map[string]any{"thinking": thinkingType(false)}
	case "high", "max":
		return map[string]any{"thinking": thinkingType(true)}
	}
	return nil
}

// glmThinking: the coding models keep thinking on; "no" asks for the least
// effort instead (the CLI reference: "GLM maps no to low effort").
func glmThinking(mode string) map[string]any {
	switch mode {
	case "no":
		return map[string]any{"thinking": thinkingType(true), "reasoning_effort": "low"}
	case "high", "max":
		return map[string]any{"thinking": thinkingType(true), "reasoning_effort": "high"}
	}
	return nil
}

// GenericThinking is the mapping for models outside the catalogue:
// OpenAI's reasoning_effort for "high" and "max", nothing for "no" (many
// servers reject unknown effort values, and sending none keeps their
// default).
func GenericThinking(mode string) map[string]any {
	switch mode {
	case "high", "max":
		return map[string]any{"reasoning_effort": "high"}
	}
	return nil
}
