package responses

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/responses"

	"github.com/openseek/openseek/internal/llm/cassette"
)

// eventView is everything the fold reads from one event.
type eventView struct {
	Type, Delta, ItemID, Arguments          string
	OutputIndex, SummaryIndex, ContentIndex int64
	ItemType, CallID, Name, ItemArguments   string
	Replay                                  string // the reasoning item as replayed, "" if none
	Model, Status, Reason, ErrCode, ErrMsg  string
	UsageSet                                bool
	Input, Output, Total, Cached            int64
	Code, Message                           string
}

func replayView(raw []byte) string {
	if r, ok := replayable(raw); ok {
		return string(r)
	}
	return ""
}

// viewOurs decodes data as the client does.
func viewOurs(data []byte) (eventView, error) {
	var ev streamEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return eventView{}, err
	}
	r, u := ev.Response, ev.Response.Usage
	v := eventView{
		Type: string(ev.Type), Delta: string(ev.Delta), ItemID: string(ev.ItemID), Arguments: string(ev.Arguments),
		OutputIndex: ev.OutputIndex.N, SummaryIndex: ev.SummaryIndex.N, ContentIndex: ev.ContentIndex.N,
		ItemType: string(ev.Item.Type), CallID: string(ev.Item.CallID), Name: string(ev.Item.Name), ItemArguments: string(ev.Item.Arguments),
		Model: string(r.Model), Status: string(r.Status), Reason: string(r.IncompleteDetails.Reason), ErrCode: string(r.Error.Code), ErrMsg: string(r.Error.Message),
		UsageSet: u.InputTokens.Set || u.OutputTokens.Set,
		Input:    u.InputTokens.N, Output: u.OutputTokens.N, Total: u.TotalTokens.N, Cached: u.InputTokensDetails.CachedTokens.N,
		Code: string(ev.Code), Message: string(ev.Message),
	}
	if ev.Item.Type == "reasoning" {
		v.Replay = replayView(ev.Item.raw)
	}
	return v, nil
}

// viewSDK decodes data as the client did with openai-go's event union.
func viewSDK(data []byte) (eventView, error) {
	var ev responses.ResponseStreamEventUnion
	if err := json.Unmarshal(data, &ev); err != nil {
		return eventView{}, err
	}
	r, u := ev.Response, ev.Response.Usage
	v := eventView{
		Type: ev.Type, Delta: ev.Delta, ItemID: ev.ItemID, Arguments: ev.Arguments,
		OutputIndex: ev.OutputIndex, SummaryIndex: ev.SummaryIndex, ContentIndex: ev.ContentIndex,
		ItemType: ev.Item.Type, CallID: ev.Item.CallID, Name: ev.Item.Name, ItemArguments: ev.Item.Arguments.OfString,
		Model: r.Model, Status: string(r.Status), Reason: r.IncompleteDetails.Reason, ErrCode: string(r.Error.Code), ErrMsg: r.Error.Message,
		UsageSet: u.JSON.InputTokens.Valid() || u.JSON.OutputTokens.Valid(),
		Input:    u.InputTokens, Output: u.OutputTokens, Total: u.TotalTokens, Cached: u.InputTokensDetails.CachedTokens,
		Code: ev.Code, Message: ev.Message,
	}
	if ev.Item.Type == "reasoning" {
		v.Replay = replayView([]byte(ev.Item.RawJSON()))
	}
	return v, nil
}

// compareEvent fails when our decoding of data differs from the SDK's.
func compareEvent(t *testing.T, data []byte) {
	t.Helper()
	sdk, sdkErr := viewSDK(data)
	ours, err := viewOurs(data)
	if (err != nil) != (sdkErr != nil) {
		t.Fatalf("%s:\nerror %v, the SDK's %v", data, err, sdkErr)
	}
	if err != nil {
		// The same message but for the name of the event type.
		if strings.ReplaceAll(sdkErr.Error(), "ResponseStreamEventUnion", "streamEvent") != err.Error() {
			t.Errorf("%s:\nerror %q, the SDK's %q", data, err, sdkErr)
		}
		return
	}
	if ours != sdk {
		t.Errorf("%s:\n got %+v\nwant %+v", data, ours, sdk)
	}
}

// TestEventsDecodeAsSDK: every event of the recorded Responses API
// streams, and events with members of unexpected types, decode as
// openai-go's event union decoded them.
func TestEventsDecodeAsSDK(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(cassette.Dir(t), "TestOpenAIResponses*", "*", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Responses API cassettes (%v)", err)
	}
	kinds := map[string]int{}
	for _, file := range files {
		for _, it := range cassette.Load(t, file).Interactions {
			sc := bufio.NewScanner(strings.NewReader(it.Response.Body))
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
					compareEvent(t, []byte(data))
					var ev struct{ Type string }
					_ = json.Unmarshal([]byte(data), &ev)
					kinds[ev.Type]++
				}
			}
		}
	}
	for _, k := range []string{"response.created", "response.in_progress", "response.output_text.delta", "response.reasoning_summary_text.delta",
		"response.output_item.added", "response.output_item.done", "response.function_call_arguments.delta", "response.function_call_arguments.done", "response.completed"} {
		if kinds[k] == 0 {
			t.Errorf("the cassettes have no %s event", k)
		}
	}
	for _, data := range oddEvents {
		compareEvent(t, []byte(data))
	}
}

// oddEvents are events with members of unexpected types or values.
var oddEvents = []string{
	`5`, `"x"`, `[]`, `null`, `{}`, `true`, `{"type":5}`, `{"type":null}`,
	`{"type":"response.output_text.delta","delta":5}`,
	`{"type":"response.output_text.delta","delta":-1.5e3}`,
	`{"type":"response.output_text.delta","delta":true}`,
	`{"type":"response.output_text.delta","delta":false}`,
	`{"type":"response.output_text.delta","delta":{ "a" : 1 }}`,
	`{"type":"response.output_text.delta","delta":[1, 2]}`,
	`{"type":"response.output_text.delta","delta":null}`,
	`{"type":"response.output_text.delta","delta":"a\"b\\c\u00e9\ud83d\ude00\n<&>"}`,
	`{"type":"response.output_text.delta","delta":"\ud800x"}`,
	`{"type":"response.output_text.delta","delta":"é🙂"}`,
	`{"type":"response.function_call_arguments.delta","output_index":"3","delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":"1e2","delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":"x","delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":1.9,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":-1.9,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":1e2,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":1e300,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":-1e300,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":99999999999999999999,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":-99999999999999999999,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":1e400,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":"1e400","delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":-1e400,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":1e-400,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":true,"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":{},"delta":"x"}`,
	`{"type":"response.function_call_arguments.delta","output_index":[1],"delta":"x"}`,
	`{"type":"response.function_call_arguments.done","output_index":0,"arguments":5}`,
	`{"type":"response.function_call_arguments.done","output_index":0,"arguments":{"a":1}}`,
	`{"type":"response.reasoning_summary_text.delta","item_id":5,"summary_index":"2","delta":"x"}`,
	`{"type":"response.reasoning_text.delta","item_id":"rs","content_index":"-3","delta":"x"}`,
	`{"type":"response.output_item.added","output_index":0,"item":"str"}`,
	`{"type":"response.output_item.added","output_index":0,"item":[1]}`,
	`{"type":"response.output_item.added","output_index":0,"item":null}`,
	`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":7,"name":true,"arguments":{"a":1}}}`,
	`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":"c","name":"n","arguments":5}}`,
	`{"type":"response.output_item.added","output_index":0,"item":{"type":"function_call","call_id":"c","name":"n","arguments":"{\"a\":\"<\"}"}}`,
	`{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"r","encrypted_content":"e","summary":5}}`,
	`{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"r","encrypted_content":5}}`,
	`{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"r","encrypted_content":null}}`,
	`{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"","encrypted_content":"e"}}`,
	`{"type":"response.output_item.done","output_index":0,"item":{"type":"reasoning","id":"r","encrypted_content":"e","summary":[ {"type":"summary_text", "text":"<a>"} ],"status":"completed","content":[]}}`,
	`{"type":"response.output_item.done","output_index":0,"item":{"type":"message","id":"m","content":[{"type":"output_text","text":"hi"}]}}`,
	`{"type":"response.completed","response":{"usage":{"input_tokens":"5","output_tokens":2}}}`,
	`{"type":"response.completed","response":{"usage":{"input_tokens":null,"output_tokens":null}}}`,
	`{"type":"response.completed","response":{"usage":{"input_tokens":"x"}}}`,
	`{"type":"response.completed","response":{"usage":{"input_tokens":true}}}`,
	`{"type":"response.completed","response":{"usage":{"output_tokens":[1]}}}`,
	`{"type":"response.completed","response":{"usage":{"input_tokens":2.7,"total_tokens":"9","input_tokens_details":{"cached_tokens":1}}}}`,
	`{"type":"response.completed","response":{"usage":{"input_tokens":2,"input_tokens_details":5}}}`,
	`{"type":"response.completed","response":{"usage":null}}`,
	`{"type":"response.completed","response":{"usage":"x"}}`,
	`{"type":"response.completed","response":null}`,
	`{"type":"response.completed","response":5}`,
	`{"type":"response.completed","response":[{"model":"m"}]}`,
	`{"type":"response.completed","response":{"status":5,"model":6}}`,
	`{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":5}}}`,
	`{"type":"response.incomplete","response":{"incomplete_details":"x"}}`,
	`{"type":"response.incomplete","response":{"incomplete_details":null}}`,
	`{"type":"response.failed","response":{"error":{"code":500,"message":7}}}`,
	`{"type":"response.failed","response":{"error":null}}`,
	`{"type":"response.failed","response":{"error":"boom"}}`,
	`{"type":"response.failed","response":{"error":{"code":{"a":1},"message":["m"]}}}`,
	`{"type":"error","code":500,"message":"m"}`,
	`{"type":"error","code":429.5,"message":{"a":1}}`,
	`{"type":"error","code":null,"message":null}`,
	`{"type":"response.created","response":{"model":"m1","output":[],"tools":[{"type":"function","name":"x"}],"instructions":"<sys>"}}`,
	`{"type":"response.in_progress","response":{"model":["m1"]}}`,
	`{"type":"response.output_text.delta","delta":"a"} x`,
	`{"type":"response.output_text.delta","delta":"a"`,
}

// FuzzEventsDecodeAsSDK: any event decodes as openai-go's union decoded
// it. Keys that repeat or differ from the API's only in case are left
// out: openai-go read the first of equal keys and matched case exactly,
// encoding/json reads the last and matches any case.
func FuzzEventsDecodeAsSDK(f *testing.F) {
	for _, e := range oddEvents {
		f.Add([]byte(e))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) || ambiguousKeys(data) {
			return
		}
		compareEvent(t, data)
	})
}

// ambiguousKeys reports an object in data with a repeated key, a key that
// equals another but for case, or a key that is not its lower case.
func ambiguousKeys(data []byte) bool {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	var walk func() bool
	walk = func() bool {
		tok, err := dec.Token()
		if err != nil {
			return true
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return true
				}
				key := k.(string)
				if seen[strings.ToLower(key)] || key != strings.ToLower(key) {
					return true
				}
				seen[strings.ToLower(key)] = true
				if walk() {
					return true
				}
			}
			_, _ = dec.Token()
		case json.Delim('['):
			for dec.More() {
				if walk() {
					return true
				}
			}
			_, _ = dec.Token()
		}
		return false
	}
	return walk()
}
