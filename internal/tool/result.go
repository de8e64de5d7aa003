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

// ReadMark names what a read showed, for the turn loop's read ledger: a
// later read with the same Key whose Sum is the same showed the model
// nothing new. Key is the file and the range asked for; Sum is the
// SHA-256 of the text shown.
type ReadMark struct {
	Path string
	Key  string
	Sum  [32]byte
}
