package acp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// PromptContent turns an ACP prompt into message content: text as is,
// images as image parts, embedded resources (files the editor attached)
// as fenced text naming their URI, resource links as a line naming them.
// Audio is refused: no model OpenSeek talks to takes it.
func PromptContent(blocks []sdk.ContentBlock) (protocol.Content, error) {
	var out protocol.Content
	text := func(s string) {
		if n := len(out); n > 0 && out[n-1].Type == "text" {
			out[n-1].Text += "\n" + s
			return
		}
		out = append(out, protocol.Part{Type: "text", Text: s})
	}
	image := func(data, mime string) error {
		raw, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return fmt.Errorf("image data is not base64: %w", err)
		}
		out = append(out, protocol.Part{Type: "image", MediaType: mime, Data: raw})
		return nil
	}
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			text(b.Text.Text)
		case b.Image != nil:
			if err := image(b.Image.Data, b.Image.MimeType); err != nil {
				return nil, err
			}
		case b.Resource != nil:
			r := b.Resource.Resource
			switch {
			case r.TextResourceContents != nil:
				text(fmt.Sprintf("<context uri=%q>\n%s\n</context>", r.TextResourceContents.Uri, r.TextResourceContents.Text))
			case r.BlobResourceContents != nil && r.BlobResourceContents.MimeType != nil && strings.HasPrefix(*r.BlobResourceContents.MimeType, "image/"):
				if err := image(r.BlobResourceContents.Blob, *r.BlobResourceContents.MimeType); err != nil {
					return nil, err
				}
			case r.BlobResourceContents != nil:
				text(fmt.Sprintf("<context uri=%q>(binary content not shown)</context>", r.BlobResourceContents.Uri))
			}
		case b.ResourceLink != nil:
			text(fmt.Sprintf("<resource name=%q uri=%q/>", b.ResourceLink.Name, b.ResourceLink.Uri))
		case b.Audio != nil:
			return nil, errors.New("audio prompts are not supported; send text or images")
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the prompt is empty; send at least one text block")
	}
	return out, nil
}

// Replay turns a recorded session into the updates that show it again:
// the user's messages, the agent's thoughts and answers, and each tool
// call with its result (diffs for edits, plans for the plan tool), a
// script's calls under it as they were shown live, and the notes of
// compactions and network connections.
func Replay(s *session.Session, workspace string) []sdk.SessionUpdate {
	if s == nil {
		return nil
	}
	return replay(newTranslator(workspace), s)
}

// replay is Replay with t, which then knows the calls the log announced:
// a live result of one of them updates it instead of announcing it again.
func replay(t *translator, s *session.Session) []sdk.SessionUpdate {
	var out []sdk.SessionUpdate
	for _, ev := range s.Events {
		switch it := ev.Item.(type) {
		case *session.User:
			out = append(out, userMessage(it)...)
		case *session.Assistant:
			if it.Reasoning != nil && *it.Reasoning != "" {
				out = append(out, sdk.UpdateAgentThoughtText(*it.Reasoning))
			}
			if it.Content != "" {
				out = append(out, sdk.UpdateAgentMessageText(it.Content))
			}
			for _, c := range it.ToolCalls {
				out = append(out, t.started(c.ID, c.Name, c.Arguments, "", sdk.ToolCallStatusInProgress)...)
			}
		case *session.ToolResult:
			out = append(out, t.result(it.ToolCallID, it.ToolName, it.Content.Text(), it.IsError, diffOf(it.Data), it.Arguments, it.Parent)...)
		case *session.Notice:
			// What a compaction summarised and the commands' network
			// connections were shown live; they show again.
			if session.IsNetworkMarker(it.Content) || strings.HasPrefix(it.Content, session.CompactionNotePrefix) {
				out = append(out, notice(it.Content))
			}
		}
	}
	return out
}

// userMessage is a user message as the updates that show it.
func userMessage(u *session.User) []sdk.SessionUpdate {
	var out []sdk.SessionUpdate
	for _, p := range u.Content {
		switch p.Type {
		case "text":
			out = append(out, sdk.UpdateUserMessageText(p.Text))
		case "image":
			out = append(out, sdk.UpdateUserMessage(sdk.ImageBlock(base64.StdEncoding.EncodeToString(p.Data), p.MediaType)))
		}
	}
	return out
}

// diffOf is the unified diff a tool recorded in its result data, if any.
func diffOf(data []byte) *string {
	if len(data) == 0 || !strings.Contains(string(data), `"diff"`) {
		return nil
	}
	var d struct {
		Diff string `json:"diff"`
	}
	if json.Unmarshal(data, &d) != nil || d.Diff == "" {
		return nil
	}
	return &d.Diff
}
