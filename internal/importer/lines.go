package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Source names for Import.
const (
	Codex  = "codex"
	Claude = "claude"
)

// Import reads a transcript of source (Codex or Claude) from r; name is
// how errors refer to it (its path).
func Import(source string, r io.Reader, name string) (*Transcript, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	var b *builder
	var each func(*builder, json.RawMessage) error
	switch source {
	case Codex:
		b, each = newBuilder(Codex), (*builder).codexLine
	case Claude:
		b, each = newBuilder(Claude), (*builder).claudeLine
	default:
		return nil, fmt.Errorf("unknown transcript source %q: want %s or %s", source, Codex, Claude)
	}
	if err := eachLine(data, name, b, each); err != nil {
		return nil, err
	}
	if source == Claude {
		b.claudeFinish()
	}
	t, err := b.done()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// eachLine hands each non-blank line of data, a JSON object, to each. A
// line that is not one fails with its number, except an unterminated last
// line, which a writer cut off mid-append: it is skipped with a warning.
func eachLine(data []byte, name string, b *builder, each func(*builder, json.RawMessage) error) error {
	for n := 1; len(data) > 0; n++ {
		line, rest, terminated := bytes.Cut(data, []byte("\n"))
		data = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !json.Valid(line) || bytes.TrimSpace(line)[0] != '{' {
			if !terminated {
				b.warnf("%s line %d is cut off (no newline at the end) and was skipped", name, n)
				return nil
			}
			return fmt.Errorf("%s line %d: not a JSON object: %.80q", name, n, line)
		}
		if err := each(b, line); err != nil {
			return fmt.Errorf("%s line %d: %w", name, n, err)
		}
	}
	return nil
}

// textOf reads a tool output or message content that is a string, an
// array of content blocks ({"type":"text"|"input_text"|"output_text",
// "text":…}) or an object with such a "content"; other blocks (images)
// read as a bracketed placeholder.
func textOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var parts []string
		for _, bl := range blocks {
			switch {
			case bl.Text != "":
				parts = append(parts, bl.Text)
			case bl.Type != "":
				parts = append(parts, "["+bl.Type+"]")
			}
		}
		return strings.Join(parts, "\n")
	}
	var obj struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Content != nil {
		return textOf(obj.Content)
	}
	return string(raw)
}
