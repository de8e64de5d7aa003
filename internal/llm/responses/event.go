package responses

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
)

// The stream events as the fold reads them: only the members it uses.
// They decode as openai-go's ResponseStreamEventUnion decoded them (a
// test holds the two equal, event by event, over the recorded streams):
// a member of the wrong JSON type does not fail the event, scalars are
// read loosely (a number or a boolean where a string is expected is its
// JSON text, a numeric string where a count is expected is the number),
// and an object or array where an object is expected is ignored. An
// event that is not JSON, or is not an object, is an error.

// streamEvent is one stream event.
type streamEvent struct {
	Type         text     `json:"type"`
	Delta        text     `json:"delta"`
	ItemID       text     `json:"item_id"`
	OutputIndex  count    `json:"output_index"`
	SummaryIndex count    `json:"summary_index"`
	ContentIndex count    `json:"content_index"`
	Arguments    text     `json:"arguments"`
	Item         item     `json:"item"`
	Response     response `json:"response"`
	Code         text     `json:"code"`    // of an error event
	Message      text     `json:"message"` // of an error event
}

// item is the output item of response.output_item.added and .done.
type item struct {
	Type      text       `json:"type"`
	CallID    text       `json:"call_id"`
	Name      text       `json:"name"`
	Arguments stringOnly `json:"arguments"` // a function call's; other items' may be objects
	raw       []byte     // the whole item, kept for reasoning items
}

// response is the response object of response.created, .in_progress,
// .completed, .incomplete and .failed.
type response struct {
	Model             text  `json:"model"`
	Status            text  `json:"status"`
	Usage             usage `json:"usage"`
	IncompleteDetails struct {
		Reason text `json:"reason"`
	} `json:"incomplete_details"`
	Error struct {
		Code    text `json:"code"`
		Message text `json:"message"`
	} `json:"error"`
}

type usage struct {
	InputTokens        count `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens count `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens count `json:"output_tokens"`
	TotalTokens  count `json:"total_tokens"`
}

type itemFields item

// UnmarshalJSON reads an item object, ignoring any other value and the
// members of the wrong type.
func (it *item) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	if err := lenient(json.Unmarshal(b, (*itemFields)(it))); err != nil {
		return err
	}
	if it.Type == "reasoning" {
		it.raw = bytes.Clone(b)
	}
	return nil
}

type responseFields response

// UnmarshalJSON reads a response object, ignoring any other value and
// the members of the wrong type.
func (r *response) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	return lenient(json.Unmarshal(b, (*responseFields)(r)))
}

// lenient drops the error of a member of the wrong JSON type, which
// encoding/json reports once it has decoded everything else.
func lenient(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

// text is a string read loosely: a number or boolean is its JSON text, an
// object or array its raw JSON, null leaves it as it is.
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case '"':
		return unquote(b, (*string)(t))
	case 'n':
		return nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		*t = text(numberText(b))
	default: // true, false, an object or an array
		*t = text(b)
	}
	return nil
}

// stringOnly is a string that ignores any other JSON value.
type stringOnly string

func (s *stringOnly) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '"' {
		return nil
	}
	return unquote(b, (*string)(s))
}

// unquote decodes the JSON string b into s; one without escapes is its
// bytes as they are.
func unquote(b []byte, s *string) error {
	inner := b[1 : len(b)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		*s = string(inner)
		return nil
	}
	return json.Unmarshal(b, s)
}

// numberText is an integer's JSON text, or the shortest decimal form of
// any other number (1e2 is "100").
func numberText(b []byte) string {
	digits := b
	if digits[0] == '-' {
		digits = digits[1:]
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			f, _ := strconv.ParseFloat(string(b), 64)
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	return string(b)
}

// count is an integer read loosely: a number is truncated, a numeric
// string is its number, true is 1. Set says a usable value was there
// (not null, an object, an array or a string that is no number).
type count struct {
	N   int64
	Set bool
}

func (c *count) UnmarshalJSON(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	switch b[0] {
	case 'n':
		*c = count{}
	case 't':
		*c = count{1, true}
	case 'f':
		*c = count{0, true}
	case '"':
		var s string
		if err := unquote(b, &s); err != nil {
			return err
		}
		n, ok := toInt(s, false)
		*c = count{n, ok}
	case '{', '[':
		*c = count{}
	default:
		n, _ := toInt(string(b), true)
		*c = count{n, true}
	}
	return nil
}

// toInt reads s as an integer, or as a number truncated towards zero
// (clamped to the int64 range); ok is false when s is no number. A JSON
// number beyond the float64 range counts as infinite, a string's as no
// number.
func toInt(s string, number bool) (n int64, ok bool) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	} else if errors.Is(err, strconv.ErrRange) {
		if s[0] == '-' {
			return math.MinInt64, true
		}
		return math.MaxInt64, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !(number && errors.Is(err, strconv.ErrRange)) {
		return 0, false
	}
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64, true
	case f < math.MinInt64:
		return math.MinInt64, true
	}
	return int64(f), true
}
