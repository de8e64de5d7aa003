package acp

import (
	"strings"
	"testing"

	"github.com/openseek/openseek/protocol"
)

// An answer's unbacked claim reaches the editor as a quoted paragraph,
// every turn it happens (other warnings show once a session).
func TestTranslateUnverifiedClaim(t *testing.T) {
	msg := "The answer says the tests pass, but no test ran in this session."
	tr := newTranslator("/ws")
	for turn := 1; turn <= 2; turn++ {
		ups := tr.translate(protocol.UnverifiedClaim{Session: "s", Claim: "tests", Quote: "all tests pass", Message: msg})
		if len(ups) != 1 || ups[0].AgentMessageChunk == nil || !strings.Contains(ups[0].AgentMessageChunk.Content.Text.Text, "> "+msg) {
			t.Errorf("turn %d: updates %+v", turn, ups)
		}
	}
}
