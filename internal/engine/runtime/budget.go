package runtime

import (
	"fmt"

	"github.com/openseek/openseek/internal/config"
)

// DefaultBudgetOutput is the output a request is assumed to produce at
// most when the model's limit is unknown.
const DefaultBudgetOutput = 8192

// budget returns the check the turn loop runs before each model request
// under a cost budget (--max-cost): the session's spend so far (its own
// usage plus its sub-agents') and the worst case of the next request (every
// prompt token uncached, the model's full output) must stay within max.
// A model whose price is unknown cannot be held to a budget: that is an
// error at start, never a silent pass.
func (e *Engine) budget(max float64, res *config.Resolved) (func(promptTokens int) error, error) {
	if max <= 0 {
		return nil, nil
	}
	p := res.Price
	if p.InputMiss == 0 && p.Output == 0 {
		return nil, fmt.Errorf("--max-cost needs the model's prices, and those of %s are unknown: set [models.%q] price = { input_miss = …, output = … } in config.toml", res.Spec, res.Spec)
	}
	out := res.MaxOutput
	if out <= 0 {
		out = DefaultBudgetOutput
	}
	return func(promptTokens int) error {
		u := e.log.Session().Usage()
		spent := p.Cost(u.PromptCacheHitTokens, u.PromptCacheMissTokens, u.CompletionTokens) + e.children.spent(p)
		next := p.Cost(0, promptTokens, out)
		if spent+next > max {
			return fmt.Errorf("budget: $%.4f of the $%.4f budget is spent and the next request could cost up to $%.4f, so it was not sent; continue the session with a larger --max-cost", spent, max, next)
		}
		return nil
	}, nil
}
