package acp

import (
	"strings"
	"testing"

	"github.com/openseek/openseek/protocol"
)

// An answer's unbacked claim reaches the editor as a quoted paragraph.
func TestTranslateUnverifiedClaim(t *testing.T) {
	msg := "The answer says the tests pass, but no test ran after the last edit (step 7)."
	ups := newTranslator("/ws").translate(protocol.UnverifiedClaim{Session: "s", Claim: "tests", Quote: "all tests pass", Message: msg})
	if len(ups) != 1 || ups[0].AgentMessageChunk == nil || !strings.Contains(ups[0].AgentMessageChunk.Content.Text.Text, "> "+msg) {
		t.Errorf("updates %+v", ups)
	}
}
