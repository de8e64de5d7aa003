package responses

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/protocol"
)

// cacheKey is this adapter's key in an llm.PrefixCache.
type cacheKey struct{}

// prefixState is what the adapter keeps in an llm.PrefixCache: the
// encoded input items of the stable messages after the leading system
// messages (which become the instructions).
type prefixState struct {
	lead  int     // leading system messages
	seen  int     // messages taken in: those from lead on have their items in items
	items llm.Run // every item as json.Marshal writes it
}

// inputSentinel stands in for the input array while the rest of the
// body is encoded: "\u0000input\u0000" once encoded, a string no
// request carries.
const inputSentinel = "\x00input\x00"

// encodeRequest builds the request body. The SDK's param types marshal
// their fields in declaration order and maps with sorted keys, so the same
// request always yields the same bytes. The input items are encoded one by
// one (with req.Cache, only those not kept yet) and put in the place of a
// sentinel; json.Marshal writes an array element as it writes the element
// alone, so the body is byte for byte the whole encoding.
func encodeRequest(req llm.Request) (llm.Body, error) {
	if req.Cache == nil {
		return encodeBody(req, nil)
	}
	var body llm.Body
	var err error
	req.Cache.Update(cacheKey{}, func(v any) any {
		st, _ := v.(*prefixState)
		if st == nil {
			st = &prefixState{}
		}
		body, err = encodeBody(req, st)
		return st
	})
	return body, err
}

// encodeBody writes the body, reusing and extending st when it is not nil.
func encodeBody(req llm.Request, st *prefixState) (llm.Body, error) {
	instructions, lead := leadingSystem(req.Messages)
	stable := min(req.Stable, len(req.Messages))
	if st != nil && (st.lead != lead || st.seen < lead || stable < st.seen) {
		// Not a continuation of what st took in: start it afresh.
		*st = prefixState{lead: lead, seen: lead}
	}
	var input llm.Array
	from := lead
	if st != nil {
		for i := st.seen; i < stable; i++ {
			items, err := encodeItems(req.Messages[i], i)
			if err != nil {
				return llm.Body{}, err
			}
			for _, it := range items {
				st.items.Push(it)
			}
			st.seen = i + 1
		}
		input.AddRun(st.items.Slice(0, st.items.Len()))
		from = max(st.seen, lead)
	}
	for i := from; i < len(req.Messages); i++ {
		items, err := encodeItems(req.Messages[i], i)
		if err != nil {
			return llm.Body{}, err
		}
		for _, it := range items {
			input.Add(it)
		}
	}
	if input.Size() == 2 {
		// No items: the whole encoding has nothing to splice.
		body, err := encodeParams(req, instructions, responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{}})
		return llm.BodyOf(body), err
	}
	body, err := encodeParams(req, instructions, responses.ResponseNewParamsInputUnion{OfString: param.NewOpt(inputSentinel)})
	if err != nil {
		return llm.Body{}, err
	}
	mark, err := json.Marshal(inputSentinel)
	if err != nil {
		return llm.Body{}, err
	}
	at := bytes.Index(body, mark)
	if at < 0 || bytes.Count(body, mark) != 1 {
		return llm.Body{}, errors.New("the request's text contains the input placeholder")
	}
	return llm.Splice(body[:at], &input, body[at+len(mark):]), nil
}

// encodeParams marshals the request's params with input as given.
func encodeParams(req llm.Request, instructions string, input responses.ResponseNewParamsInputUnion) ([]byte, error) {
	p := responses.ResponseNewParams{
		Model:   shared.ResponsesModel(req.Model),
		Store:   param.NewOpt(false),
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
	}
	if req.MaxTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(req.MaxTokens))
	}
	if effort, ok := effortFor(req.Thinking); ok {
		p.Reasoning = shared.ReasoningParam{Effort: effort, Summary: shared.ReasoningSummaryAuto}
	}
	if instructions != "" {
		p.Instructions = param.NewOpt(instructions)
	}
	p.Input = input
	for _, t := range req.Tools {
		schema, err := decodeSchema(t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tool %s parameters: %w", t.Name, err)
		}
		ft := responses.FunctionToolParam{Name: t.Name, Parameters: schema, Strict: param.NewOpt(false)}
		if t.Description != "" {
			ft.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: &ft})
	}
	p.SetExtraFields(map[string]any{"stream": true})
	return json.Marshal(p)
}

// leadingSystem joins the leading system messages into the instructions
// and counts them.
func leadingSystem(msgs []chat.Message) (string, int) {
	var instructions []byte
	i := 0
	for ; i < len(msgs) && msgs[i].Role == chat.System; i++ {
		if len(instructions) > 0 {
			instructions = append(instructions, "\n\n"...)
		}
		instructions = append(instructions, msgs[i].Text()...)
	}
	return string(instructions), i
}

// encodeItems is message i's input items, each as json.Marshal writes it.
func encodeItems(m chat.Message, i int) ([][]byte, error) {
	items, err := appendMessage(nil, m)
	if err != nil {
		return nil, fmt.Errorf("message %d: %w", i, err)
	}
	out := make([][]byte, len(items))
	for j, it := range items {
		if out[j], err = json.Marshal(it); err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
	}
	return out, nil
}

// effortFor maps llm.Request.Thinking to a reasoning effort; ok is false
// for "" (the model's default) and unknown modes.
func effortFor(mode string) (shared.ReasoningEffort, bool) {
	switch mode {
	case "no":
		return shared.ReasoningEffortMinimal, true
	case "high":
		return shared.ReasoningEffortMedium, true
	case "max":
		return shared.ReasoningEffortHigh, true
	}
	return "", false
}

// decodeSchema splits a JSON schema into its top-level members, each kept
// as raw JSON so that the schema is sent as written; empty means an object
// with no properties.
func decodeSchema(raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	if top == nil {
		return nil, fmt.Errorf("schema is null, want an object")
	}
	m := make(map[string]any, len(top))
	for k, v := range top {
		m[k] = v
	}
	return m, nil
}

func appendMessage(items responses.ResponseInputParam, m chat.Message) (responses.ResponseInputParam, error) {
	switch m.Role {
	case chat.System, chat.User:
		role := responses.EasyInputMessageRoleUser
		if m.Role == chat.System {
			role = responses.EasyInputMessageRoleDeveloper
		}
		items = append(items, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
			Role:    role,
			Content: responses.EasyInputMessageContentUnionParam{OfInputItemContentList: inputContent(m.Content)},
		}})
	case chat.Assistant:
		reasoning, err := reasoningItems(m.ReasoningItems)
		if err != nil {
			return nil, err
		}
		items = append(items, reasoning...)
		if text := m.Text(); text != "" {
			items = append(items, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
				Role:    responses.EasyInputMessageRoleAssistant,
				Content: responses.EasyInputMessageContentUnionParam{OfString: param.NewOpt(text)},
			}})
		}
		for _, c := range m.ToolCalls {
			items = append(items, responses.ResponseInputItemUnionParam{OfFunctionCall: &responses.ResponseFunctionToolCallParam{
				CallID: c.ID, Name: c.Name, Arguments: c.Arguments,
			}})
		}
	case chat.Tool:
		out := responses.ResponseInputItemFunctionCallOutputOutputUnionParam{}
		if m.Content.IsTextOnly() {
			out.OfString = param.NewOpt(m.Text())
		} else {
			out.OfResponseFunctionCallOutputItemArray = outputContent(m.Content)
		}
		items = append(items, responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
			CallID: param.NewOpt(m.ToolCallID), Output: out,
		}})
	default:
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
	return items, nil
}

// reasoningItems replays the opaque reasoning items of an assistant
// message verbatim, one input item per array element.
func reasoningItems(raw json.RawMessage) ([]responses.ResponseInputItemUnionParam, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, fmt.Errorf("reasoning items are not a JSON array: %w", err)
	}
	out := make([]responses.ResponseInputItemUnionParam, 0, len(elems))
	for _, e := range elems {
		out = append(out, param.Override[responses.ResponseInputItemUnionParam](e))
	}
	return out, nil
}

func dataURL(p protocol.Part) string {
	return "data:" + p.MediaType + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
}

func inputContent(c protocol.Content) responses.ResponseInputMessageContentListParam {
	out := make(responses.ResponseInputMessageContentListParam, 0, len(c))
	for _, p := range c {
		if p.Type == "image" {
			out = append(out, responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
				Detail: responses.ResponseInputImageDetailAuto, ImageURL: param.NewOpt(dataURL(p)),
			}})
			continue
		}
		out = append(out, responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: p.Text}})
	}
	return out
}

func outputContent(c protocol.Content) responses.ResponseFunctionCallOutputItemListParam {
	out := make(responses.ResponseFunctionCallOutputItemListParam, 0, len(c))
	for _, p := range c {
		if p.Type == "image" {
			out = append(out, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{
				ImageURL: param.NewOpt(dataURL(p)),
			}})
			continue
		}
		out = append(out, responses.ResponseFunctionCallOutputItemUnionParam{OfInputText: &responses.ResponseInputTextContentParam{Text: p.Text}})
	}
	return out
}
