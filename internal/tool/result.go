package tool

import (
	"fmt"

	"github.com/openseek/openseek/protocol"
)

// TextResult is an ordinary (non-error) result made of one text part.
func TextResult(s string) Result {
	return Result{Content: protocol.Text(s)}
}

// Errorf is an error result: the model sees the formatted text and may
// recover; the turn goes on.
func Errorf(format string, a ...any) Result {
	return Result{Content: protocol.Text(fmt.Sprintf(format, a...)), IsError: true}
}
