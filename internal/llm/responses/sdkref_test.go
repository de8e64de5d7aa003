package responses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/protocol"
)

// The request encoder this package used while it built its requests with
// openai-go's param types, kept as the oracle our own encoding must match
// byte for byte.

// referenceEncode is the request body as the SDK encodes the whole params.
func referenceEncode(t *testing.T, req llm.Request) []byte {
	t.Helper()
	body, err := sdkEncode(req)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func sdkEncode(req llm.Request) ([]byte, error) {
	instructions, lead := leadingSystem(req.Messages)
	items := responses.ResponseInputParam{}
	for _, m := range req.Messages[lead:] {
		var err error
		if items, err = sdkAppendMessage(items, m); err != nil {
			return nil, err
		}
	}
	return sdkEncodeParams(req, instructions, responses.ResponseNewParamsInputUnion{OfInputItemList: items})
}

// sdkEncodeParams marshals the request's params with input as given.
func sdkEncodeParams(req llm.Request, instructions string, input responses.ResponseNewParamsInputUnion) ([]byte, error) {
	p := responses.ResponseNewParams{
		Model:   shared.ResponsesModel(req.Model),
		Store:   param.NewOpt(false),
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
	}
	if req.MaxTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(req.MaxTokens))
	}
	if effort, ok := sdkEffortFor(req.Thinking); ok {
		p.Reasoning = shared.ReasoningParam{Effort: effort, Summary: shared.ReasoningSummaryAuto}
	}
	if instructions != "" {
		p.Instructions = param.NewOpt(instructions)
	}
	p.Input = input
	for _, t := range req.Tools {
		schema, err := sdkDecodeSchema(t.Parameters)
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

// sdkEffortFor maps llm.Request.Thinking to a reasoning effort; ok is false
// for "" (the model's default) and unknown modes.
func sdkEffortFor(mode string) (shared.ReasoningEffort, bool) {
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

// sdkDecodeSchema splits a JSON schema into its top-level members, each kept
// as raw JSON so that the schema is sent as written; empty means an object
// with no properties.
func sdkDecodeSchema(raw json.RawMessage) (map[string]any, error) {
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

func sdkAppendMessage(items responses.ResponseInputParam, m chat.Message) (responses.ResponseInputParam, error) {
	switch m.Role {
	case chat.System, chat.User:
		role := responses.EasyInputMessageRoleUser
		if m.Role == chat.System {
			role = responses.EasyInputMessageRoleDeveloper
		}
		items = append(items, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
			Role:    role,
			Content: responses.EasyInputMessageContentUnionParam{OfInputItemContentList: sdkInputContent(m.Content)},
		}})
	case chat.Assistant:
		reasoning, err := sdkReasoningItems(m.ReasoningItems)
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
			out.OfResponseFunctionCallOutputItemArray = sdkOutputContent(m.Content)
		}
		items = append(items, responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
			CallID: param.NewOpt(m.ToolCallID), Output: out,
		}})
	default:
		return nil, fmt.Errorf("unknown role %q", m.Role)
	}
	return items, nil
}

// sdkReasoningItems replays the opaque reasoning items of an assistant
// message verbatim, one input item per array element.
func sdkReasoningItems(raw json.RawMessage) ([]responses.ResponseInputItemUnionParam, error) {
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

func sdkInputContent(c protocol.Content) responses.ResponseInputMessageContentListParam {
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

func sdkOutputContent(c protocol.Content) responses.ResponseFunctionCallOutputItemListParam {
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
