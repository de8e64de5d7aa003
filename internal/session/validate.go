package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/openseek/openseek/protocol"
)

// MaxImageBytes bounds one inline image (the decoded file bytes).
const MaxImageBytes = 5 << 20

// imageMatches reports whether mediaType is an accepted image type and
// whether b starts with that type's magic bytes.
func imageMatches(mediaType string, b []byte) (known, ok bool) {
	switch mediaType {
	case "image/png":
		return true, bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n"))
	case "image/jpeg":
		return true, bytes.HasPrefix(b, []byte("\xff\xd8\xff"))
	case "image/gif":
		return true, bytes.HasPrefix(b, []byte("GIF87a")) || bytes.HasPrefix(b, []byte("GIF89a"))
	case "image/webp":
		return true, len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP"
	}
	return false, false
}

// prepareItem checks an item before it is appended after sequence last and
// returns the form to encode (tool result data compacted onto one line
// when it spans several). The caller's item is never modified.
func prepareItem(item Item, last int) (Item, error) {
	if item == nil || reflect.ValueOf(item).IsNil() {
		return nil, errors.New("session item must not be nil")
	}
	switch it := item.(type) {
	case *User:
		if err := validateContent(it.Content); err != nil {
			return nil, fmt.Errorf("user content: %w", err)
		}
	case *Assistant, *Notice:
	case *ToolResult:
		if err := validateContent(it.Content); err != nil {
			return nil, fmt.Errorf("tool result content: %w", err)
		}
		if it.Data != nil {
			if !json.Valid(it.Data) {
				return nil, errors.New("tool result data is not valid JSON")
			}
			if bytes.ContainsAny(it.Data, "\r\n") {
				var buf bytes.Buffer
				if err := json.Compact(&buf, it.Data); err != nil {
					return nil, fmt.Errorf("tool result data: %w", err)
				}
				cp := *it
				cp.Data = buf.Bytes()
				return &cp, nil
			}
		}
	case *Summary:
		if err := validateSummary(it, last); err != nil {
			return nil, err
		}
	case *Terminal:
		switch it.Kind {
		case Finished, ContextYield, Aborted, Interrupted, MaxStepsExhausted, Failed:
		default:
			return nil, fmt.Errorf("unknown terminal kind: %q", it.Kind)
		}
	default:
		return nil, fmt.Errorf("unknown session item type %T", item)
	}
	return item, nil
}

// validateSummary applies the compaction range rules (reference §3.5).
func validateSummary(s *Summary, last int) error {
	switch {
	case strings.TrimSpace(s.Content) == "":
		return errors.New("summary content must not be empty")
	case s.From <= 0:
		return errors.New("summary from_sequence must be positive")
	case s.To < s.From:
		return errors.New("summary to_sequence must be >= from_sequence")
	case s.To > last:
		return fmt.Errorf("summary range %d..%d exceeds last sequence %d", s.From, s.To, last)
	}
	return nil
}

// validateContent checks parts are text or inline images of an accepted
// type whose bytes match the declared type.
func validateContent(c protocol.Content) error {
	for i, p := range c {
		switch p.Type {
		case "text":
		case "image":
			known, matches := imageMatches(p.MediaType, p.Data)
			if !known {
				return fmt.Errorf("part %d: unsupported image type %q (want image/png, image/jpeg, image/gif or image/webp)", i, p.MediaType)
			}
			if len(p.Data) > MaxImageBytes {
				return fmt.Errorf("part %d: image is %d bytes, over the %d byte limit", i, len(p.Data), MaxImageBytes)
			}
			if !matches {
				return fmt.Errorf("part %d: data is not a %s image", i, p.MediaType)
			}
		default:
			return fmt.Errorf("part %d: unknown content part type %q", i, p.Type)
		}
	}
	return nil
}
