package config

import "fmt"

// MaxCost reads [budget] max_cost, the session cost budget in USD (0 when
// unset):
//
//	[budget]
//	max_cost = 2.50   # a turn never sends a request that could pass it
func (c *Config) MaxCost() (float64, error) {
	t, ok := c.Raw["budget"].(map[string]any)
	if !ok {
		if _, set := c.Raw["budget"]; set {
			return 0, fmt.Errorf("config: budget must be a table: [budget] max_cost = 2.50")
		}
		return 0, nil
	}
	var usd float64
	for k, v := range t {
		if k != "max_cost" {
			return 0, fmt.Errorf("config: budget.%s is not a [budget] setting (max_cost)", k)
		}
		switch n := v.(type) {
		case float64:
			usd = n
		case int64:
			usd = float64(n)
		default:
			return 0, fmt.Errorf("config: budget.max_cost must be a number of US dollars, not %v", v)
		}
	}
	if usd < 0 {
		return 0, fmt.Errorf("config: budget.max_cost must not be negative")
	}
	return usd, nil
}
