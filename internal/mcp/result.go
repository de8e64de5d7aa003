package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// convertResult turns a server's answer into what the model sees: text
// parts joined by newlines; images as image parts when they are at most
// maxImage bytes of a format the providers take, else a note; other
// content kinds as one-line notes; structured content as JSON text unless
// a text part already carries it. The text is capped at maxText bytes with
// a note saying how much was left out. isError carries over.
func convertResult(name string, r *sdk.CallToolResult, maxText, maxImage int) tool.Result {
	var parts []protocol.Part
	var texts []string // text waiting to be joined into one part
	flush := func() {
		if len(texts) > 0 {
			parts = append(parts, protocol.Part{Type: "text", Text: strings.Join(texts, "\n")})
			texts = texts[:0]
		}
	}
	for _, c := range r.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			texts = append(texts, c.Text)
		case *sdk.ImageContent:
			sniffed := protocol.SniffImage(c.Data)
			if sniffed == "" || len(c.Data) > maxImage {
				texts = append(texts, fmt.Sprintf("[image %s, %d bytes, not shown]", c.MIMEType, len(c.Data)))
				continue
			}
			flush()
			parts = append(parts, protocol.Part{Type: "image", MediaType: sniffed, Data: c.Data})
		case *sdk.AudioContent:
			texts = append(texts, fmt.Sprintf("[audio %s, %d bytes, not shown]", c.MIMEType, len(c.Data)))
		case *sdk.ResourceLink:
			texts = append(texts, resourceLinkNote(c))
		case *sdk.EmbeddedResource:
			texts = append(texts, embeddedNote(c))
		default:
			texts = append(texts, fmt.Sprintf("[%T content, not shown]", c))
		}
	}
	if r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil && !textCarries(r.Content, b) {
			texts = append(texts, string(b))
		}
	}
	flush()
	if len(parts) == 0 {
		text := "(no output)"
		if r.IsError {
			text = fmt.Sprintf("error: MCP tool %s failed without a message", name)
		}
		parts = protocol.Text(text)
	}
	return tool.Result{
		Content: capText(parts, maxText),
		IsError: r.IsError,
		Brief:   name,
	}
}

// textCarries reports whether some text part holds the JSON value b (a
// server that returns structured content usually repeats it as text).
func textCarries(content []sdk.Content, b []byte) bool {
	var want any
	if json.Unmarshal(b, &want) != nil {
		return false
	}
	for _, c := range content {
		t, ok := c.(*sdk.TextContent)
		if !ok {
			continue
		}
		var got any
		if json.Unmarshal([]byte(t.Text), &got) == nil && reflect.DeepEqual(got, want) {
			return true
		}
	}
	return false
}

func resourceLinkNote(c *sdk.ResourceLink) string {
	s := "[resource link: " + c.URI
	if c.Name != "" {
		s += " (" + c.Name + ")"
	}
	if c.Description != "" {
		s += " — " + c.Description
	}
	return s + "]"
}

func embeddedNote(c *sdk.EmbeddedResource) string {
	if c.Resource == nil {
		return "[empty resource]"
	}
	if c.Resource.Text != "" {
		return c.Resource.Text
	}
	return fmt.Sprintf("[resource %s, %s, %d bytes, not shown]", c.Resource.URI, c.Resource.MIMEType, len(c.Resource.Blob))
}

// capText keeps at most max bytes of text across parts (cut at a UTF-8
// boundary) and, when it cut, ends with a note of what was left out.
func capText(parts []protocol.Part, max int) protocol.Content {
	total := 0
	for _, p := range parts {
		total += len(p.Text)
	}
	if total <= max {
		return parts
	}
	out := make(protocol.Content, 0, len(parts)+1)
	left, shown := max, 0
	for _, p := range parts {
		if p.Type != "text" {
			out = append(out, p)
			continue
		}
		if left <= 0 {
			continue
		}
		if len(p.Text) > left {
			cut := left
			for cut > 0 && !utf8.RuneStart(p.Text[cut]) {
				cut--
			}
			p.Text = p.Text[:cut]
			left = 0
		} else {
			left -= len(p.Text)
		}
		shown += len(p.Text)
		out = append(out, p)
	}
	note := fmt.Sprintf("\n[output truncated: %d of %d bytes shown]", shown, total)
	if n := len(out); n > 0 && out[n-1].Type == "text" {
		out[n-1].Text += note
	} else {
		out = append(out, protocol.Part{Type: "text", Text: note})
	}
	return out
}
