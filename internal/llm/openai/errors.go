package openai

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/openseek/openseek/internal/llm"
)

// eventError classifies a failure while reading the stream: an error
// object the server sent mid-stream is an *llm.Error; anything else is left
// to llm.API.Stream.
func eventError(err error) error {
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		return llm.EventError(errorCode(se.Event.Data), llm.ErrorMessage(se.Event.Data), err)
	}
	return err
}

// errorCode reads a numeric error.code from a stream error event.
func errorCode(data []byte) int {
	var doc struct {
		Error struct {
			Code json.RawMessage `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.Trim(string(doc.Error.Code), `"`))
	if err != nil || n < 100 || n > 599 {
		return 0
	}
	return n
}
