package mcp

import (
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openseek/openseek/protocol"
)

func TestConvertResult(t *testing.T) {
	png := tinyPNG()
	size := int64(10)
	tests := []struct {
		name      string
		in        *sdk.CallToolResult
		wantText  string
		wantParts string // part types joined
		wantError bool
	}{
		{
			name:      "texts joined",
			in:        &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}},
			wantText:  "a\nb",
			wantParts: "text",
		},
		{
			name:      "image between texts",
			in:        &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.ImageContent{MIMEType: "image/png", Data: png}, &sdk.TextContent{Text: "b"}}},
			wantText:  "ab",
			wantParts: "text,image,text",
		},
		{
			name:      "image too large",
			in:        &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: append(png, make([]byte, 200)...)}}},
			wantText:  "[image image/png, ",
			wantParts: "text",
		},
		{
			name:      "not an image",
			in:        &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/svg+xml", Data: []byte("<svg/>")}}},
			wantText:  "[image image/svg+xml, 6 bytes, not shown]",
			wantParts: "text",
		},
		{
			name:      "audio, link, resources",
			in:        &sdk.CallToolResult{Content: []sdk.Content{&sdk.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")}, &sdk.ResourceLink{URI: "file:///a", Name: "a", Size: &size}, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "x:/t", Text: "inline"}}, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "x:/b", MIMEType: "application/zip", Blob: []byte("PK")}}}},
			wantText:  "[audio audio/wav, 4 bytes, not shown]\n[resource link: file:///a (a)]\ninline\n[resource x:/b, application/zip, 2 bytes, not shown]",
			wantParts: "text",
		},
		{
			name:      "structured only",
			in:        &sdk.CallToolResult{StructuredContent: map[string]any{"n": 1}},
			wantText:  `{"n":1}`,
			wantParts: "text",
		},
		{
			name:      "structured already in text",
			in:        &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: `{ "n": 1 }`}}, StructuredContent: map[string]any{"n": 1}},
			wantText:  `{ "n": 1 }`,
			wantParts: "text",
		},
		{
			name:      "empty",
			in:        &sdk.CallToolResult{},
			wantText:  "(no output)",
			wantParts: "text",
		},
		{
			name:      "empty error",
			in:        &sdk.CallToolResult{IsError: true},
			wantText:  "error: MCP tool t failed without a message",
			wantParts: "text",
			wantError: true,
		},
		{
			name:      "error text",
			in:        &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "no such file"}}},
			wantText:  "no such file",
			wantParts: "text",
			wantError: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := convertResult("t", tc.in, 1000, len(png)+10)
			var types []string
			for _, p := range r.Content {
				types = append(types, p.Type)
			}
			if got := r.Content.Text(); !strings.HasPrefix(got, tc.wantText) {
				t.Errorf("text = %q, want prefix %q", got, tc.wantText)
			}
			if got := strings.Join(types, ","); got != tc.wantParts {
				t.Errorf("parts = %s, want %s", got, tc.wantParts)
			}
			if r.IsError != tc.wantError {
				t.Errorf("IsError = %v", r.IsError)
			}
		})
	}
}

func TestCapText(t *testing.T) {
	img := protocol.Part{Type: "image", MediaType: "image/png", Data: []byte{1}}
	tests := []struct {
		name string
		in   protocol.Content
		max  int
		want string
	}{
		{"under", protocol.Text("hello"), 5, "hello"},
		{"over", protocol.Text("hello world"), 5, "hello\n[output truncated: 5 of 11 bytes shown]"},
		{"utf8 boundary", protocol.Text("héllo"), 2, "h\n[output truncated: 1 of 6 bytes shown]"},
		{"across parts", protocol.Content{{Type: "text", Text: "abc"}, img, {Type: "text", Text: "defg"}}, 5, "abcde\n[output truncated: 5 of 7 bytes shown]"},
		{"ends in image", protocol.Content{{Type: "text", Text: "abcdef"}, img}, 3, "abc\n[output truncated: 3 of 6 bytes shown]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := capText(tc.in, tc.max)
			if got.Text() != tc.want {
				t.Errorf("capText = %q, want %q", got.Text(), tc.want)
			}
			if tc.name == "ends in image" && got[len(got)-1].Type != "text" {
				t.Errorf("note not last: %+v", got)
			}
		})
	}
}

func BenchmarkConvertResult(b *testing.B) {
	in := &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: strings.Repeat("line of tool output\n", 4000)},
		&sdk.TextContent{Text: "tail"},
	}}
	b.ReportAllocs()
	for b.Loop() {
		convertResult("t", in, DefaultMaxResultBytes, DefaultMaxImageBytes)
	}
}
