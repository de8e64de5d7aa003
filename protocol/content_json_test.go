package protocol

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestContentJSON(t *testing.T) {
	png := mustB64(t, pngB64)
	img := Part{Type: "image", MediaType: "image/png", Data: png}
	imgJSON := `{"type":"image","media_type":"image/png","data":"` + pngB64 + `"}`
	for _, tc := range []struct {
		name string
		c    Content
		wire string
	}{
		{"one text part is a bare string", Text("do <it> & \"now\""), `"do <it> & \"now\""`},
		{"empty text part is still a string", Text(""), `""`},
		{"no parts", Content{}, `[]`},
		{"two text parts", Content{{Type: "text", Text: "a"}, {Type: "text", Text: "b"}}, `[{"type":"text","text":"a"},{"type":"text","text":"b"}]`},
		{"image only", Content{img}, `[` + imgJSON + `]`},
		{"text and image", Content{{Type: "text", Text: "see"}, img}, `[{"type":"text","text":"see"},` + imgJSON + `]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.c.MarshalJSON()
			if err != nil || string(got) != tc.wire {
				t.Errorf("MarshalJSON = %s, %v; want %s", got, err, tc.wire)
			}
			var back Content
			if err := json.Unmarshal([]byte(tc.wire), &back); err != nil || !reflect.DeepEqual(back, tc.c) {
				t.Errorf("Unmarshal = %#v, %v", back, err)
			}
		})
	}
	if got := string(Content(nil).AppendJSON(nil)); got != `[]` {
		t.Errorf("nil content = %s", got)
	}
}

func TestDecodeContentErrors(t *testing.T) {
	for _, tc := range []struct{ wire, want string }{
		{`null`, "expected content string or array"},
		{`5`, "expected content string or array"},
		{`{"type":"text","text":"a"}`, "expected content string or array"},
		{`["a"]`, "expected content part object"},
		{`[null]`, "expected content part object"},
		{`[{"text":"a"}]`, "unknown content part type"},
		{`[{"type":"video"}]`, "unknown content part type"},
		{`[{"type":5}]`, "unknown content part type"},
		{`[{"type":"text"}]`, `expected a string "text" field in text part`},
		{`[{"type":"text","text":null}]`, `expected a string "text" field in text part`},
		{`[{"type":"image","data":"` + pngB64 + `"}]`, `expected string "media_type" and "data" fields in image part`},
		{`[{"type":"image","media_type":"image/gif","data":"` + pngB64 + `"}]`, "invalid image: image declares image/gif but bytes identify image/png"},
		{`[{"type":"image","media_type":"image/png","data":"` + strings.TrimRight(pngB64, "=") + `"}]`, "invalid image: image data must be canonical padded base64"},
		{`[{"type":"image","media_type":"image/png","data":"aGVsbG8="}]`, "invalid image: expected PNG, JPEG, GIF, or WebP image bytes"},
	} {
		_, err := DecodeContent([]byte(tc.wire))
		if err == nil || err.Error() != tc.want {
			t.Errorf("DecodeContent(%.60s) err %v, want %q", tc.wire, err, tc.want)
		}
	}
}

func TestUsageJSON(t *testing.T) {
	u := Usage{PromptTokens: 11, CompletionTokens: 22, TotalTokens: 33, PromptCacheHitTokens: 4, PromptCacheMissTokens: 7}
	wire := `{"prompt_tokens":11,"completion_tokens":22,"total_tokens":33,"prompt_cache_hit_tokens":4,"prompt_cache_miss_tokens":7}`
	if got, _ := json.Marshal(u); string(got) != wire {
		t.Errorf("Marshal = %s", got)
	}
	var back Usage
	if err := json.Unmarshal([]byte(wire), &back); err != nil || back != u {
		t.Errorf("Unmarshal = %+v, %v", back, err)
	}
	for _, tc := range []struct{ wire, want string }{
		{`[]`, "expected a usage object"},
		{`{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_cache_hit_tokens":0}`, `usage: "prompt_cache_miss_tokens" must be a non-negative integer`},
		{`{"prompt_tokens":-1,"completion_tokens":2,"total_tokens":3,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":1}`, `usage: "prompt_tokens" must be a non-negative integer`},
		{`{"prompt_tokens":1,"completion_tokens":2.5,"total_tokens":3,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":1}`, `usage: "completion_tokens" must be a non-negative integer`},
		{`{"prompt_tokens":1,"completion_tokens":2,"total_tokens":"3","prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":1}`, `usage: "total_tokens" must be a non-negative integer`},
	} {
		var v Usage
		if err := v.UnmarshalJSON([]byte(tc.wire)); err == nil || err.Error() != tc.want {
			t.Errorf("Unmarshal(%s) err %v, want %q", tc.wire, err, tc.want)
		}
	}
}
