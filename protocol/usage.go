package protocol

// Usage is the token accounting of one model response (or a sum of them).
// Field order is the wire order.
type Usage struct {
	PromptTokens          int `json:"prompt_tokens"`
	CompletionTokens      int `json:"completion_tokens"`
	TotalTokens           int `json:"total_tokens"`
	PromptCacheHitTokens  int `json:"prompt_cache_hit_tokens"`
	PromptCacheMissTokens int `json:"prompt_cache_miss_tokens"`
}

// Add returns the element-wise sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens:          u.PromptTokens + v.PromptTokens,
		CompletionTokens:      u.CompletionTokens + v.CompletionTokens,
		TotalTokens:           u.TotalTokens + v.TotalTokens,
		PromptCacheHitTokens:  u.PromptCacheHitTokens + v.PromptCacheHitTokens,
		PromptCacheMissTokens: u.PromptCacheMissTokens + v.PromptCacheMissTokens,
	}
}
