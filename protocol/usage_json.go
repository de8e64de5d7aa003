package protocol

import (
	"fmt"
	"strconv"
)

// usageKeys is the wire order of the Usage counters.
func usageKeys() [5]string {
	return [5]string{"prompt_tokens", "completion_tokens", "total_tokens", "prompt_cache_hit_tokens", "prompt_cache_miss_tokens"}
}

func (u *Usage) counters() [5]*int {
	return [5]*int{&u.PromptTokens, &u.CompletionTokens, &u.TotalTokens, &u.PromptCacheHitTokens, &u.PromptCacheMissTokens}
}

// AppendJSON appends the usage object with its five counters in wire order.
func (u Usage) AppendJSON(b []byte) []byte {
	keys := usageKeys()
	b = append(b, '{')
	for i, p := range u.counters() {
		b = appendKey(b, keys[i])
		b = strconv.AppendInt(b, int64(*p), 10)
	}
	return append(b, '}')
}

// MarshalJSON implements json.Marshaler (same bytes as AppendJSON).
func (u Usage) MarshalJSON() ([]byte, error) { return u.AppendJSON(nil), nil }

// UnmarshalJSON decodes a usage object: all five counters are required and
// each must be an integral, non-negative number within int32.
func (u *Usage) UnmarshalJSON(b []byte) error {
	o, ok := decodeObject(b)
	if !ok {
		return fmt.Errorf("expected a usage object")
	}
	keys := usageKeys()
	var v Usage
	for i, p := range v.counters() {
		n, ok := o.int32At(keys[i])
		if !ok || n < 0 {
			return fmt.Errorf("usage: %q must be a non-negative integer", keys[i])
		}
		*p = n
	}
	*u = v
	return nil
}
