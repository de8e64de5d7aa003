package acp

import (
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// The context's health is ACP's usage_update: tokens in context against
// the window, with the line every face writes in _meta.openseek.
func TestTranslateContextHealth(t *testing.T) {
	ups := newTranslator("/ws").translate(protocol.ContextHealth{UsedTokens: 41000, Window: 128000, Compactions: 1, RereadsAvoided: 2, RereadBytesSaved: 5222})
	if len(ups) != 1 || ups[0].UsageUpdate == nil {
		t.Fatalf("updates %+v", ups)
	}
	u := ups[0].UsageUpdate
	meta, _ := u.Meta["openseek"].(map[string]any)
	if u.Used != 41000 || u.Size != 128000 || meta["compactions"] != 1 || meta["rereadsAvoided"] != 2 ||
		meta["text"] != "context 41k/128k · 1 compaction · 2 re-reads avoided (5.1 KB)" {
		t.Errorf("usage update %+v", u)
	}
	// The SDK writes it as the variant editors know.
	data, err := ups[0].MarshalJSON()
	if err != nil || !strings.Contains(string(data), `"sessionUpdate":"usage_update"`) || !strings.Contains(string(data), `"used":41000`) {
		t.Errorf("wire form %s (%v)", data, err)
	}
}

// A compaction is a tool call of its own: in progress while the summary
// is written, completed with what it summarised, failed with why; a
// report whose start was not seen is announced and completed at once.
func TestTranslateCompaction(t *testing.T) {
	tr := newTranslator("/ws")
	rep := protocol.CompactionReport{Trigger: "auto", FromSequence: 1, ToSequence: 40, Turns: 3, Files: []string{"a.go"}, TokensBefore: 90000, TokensAfter: 12000}
	var got []string
	var texts []string
	for _, ev := range []protocol.Event{
		protocol.AutoCompactionStarted{FromSequence: 1, ToSequence: 40}, rep,
		protocol.CompactionStarted{FromSequence: 1, ToSequence: 60}, protocol.CompactionFailed{Error: "model unreachable"},
		protocol.CompactionReport{Trigger: "manual", FromSequence: 1, ToSequence: 70},
		protocol.AutoCompactionFailed{Error: "no batch-safe boundary to checkpoint at"},
	} {
		for _, u := range tr.translate(ev) {
			switch {
			case u.ToolCall != nil:
				got = append(got, "call:"+string(u.ToolCall.ToolCallId)+":"+string(u.ToolCall.Kind))
				texts = append(texts, u.ToolCall.Title)
			case u.ToolCallUpdate != nil:
				got = append(got, "update:"+string(u.ToolCallUpdate.ToolCallId)+":"+string(*u.ToolCallUpdate.Status))
				texts = append(texts, u.ToolCallUpdate.Content[0].Content.Content.Text.Text)
			case u.AgentMessageChunk != nil:
				got = append(got, "notice")
				texts = append(texts, u.AgentMessageChunk.Content.Text.Text)
			}
		}
	}
	want := "call:compaction-1:think update:compaction-1:completed call:compaction-2:think update:compaction-2:failed call:compaction-3:think update:compaction-3:completed notice"
	if strings.Join(got, " ") != want {
		t.Errorf("updates\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	all := strings.Join(texts, "\n")
	for _, w := range []string{"Compact the context: summarise events 1..40", "compacted events 1..40 (auto, 3 turns): context 90k → 12k tokens; files: a.go",
		"compaction failed: model unreachable", "> compaction failed: no batch-safe boundary"} {
		if !strings.Contains(all, w) {
			t.Errorf("no %q in\n%s", w, all)
		}
	}
}

// Each network connection is a notice of its own, even when two read
// alike; other warnings show once a session.
func TestTranslateNetworkNotices(t *testing.T) {
	tr := newTranslator("/ws")
	conn := protocol.BackgroundNotice{Content: session.NetworkPrefix + "example.com:443 refused: not in [sandbox] network"}
	other := protocol.BackgroundNotice{Content: "rules ignored until trusted"}
	n := 0
	for _, ev := range []protocol.Event{conn, conn, other, other} {
		for _, u := range tr.translate(ev) {
			if u.AgentMessageChunk != nil {
				n++
			}
		}
	}
	if n != 3 {
		t.Errorf("%d notices for two connections and one warning twice; want 3", n)
	}
}

// Loading a session shows its compaction notes and network connections
// again, as notices where they happened.
func TestReplayShowsNotes(t *testing.T) {
	s := &session.Session{ID: "s", Events: []session.Event{
		{Sequence: 1, Item: &session.User{Content: protocol.Text("go")}},
		{Sequence: 2, Item: &session.Notice{Content: session.NetworkPrefix + "example.com:443 allowed, 10 bytes sent, 20 received"}},
		{Sequence: 3, Item: &session.Notice{Content: session.CompactionNotice("auto", 1, 2, 1, nil, 900, 100, false)}},
		{Sequence: 4, Item: &session.Notice{Content: "some bookkeeping marker"}},
	}}
	var notes []string
	for _, u := range Replay(s, "/ws") {
		if u.AgentMessageChunk != nil {
			notes = append(notes, u.AgentMessageChunk.Content.Text.Text)
		}
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "example.com:443 allowed") || !strings.Contains(notes[1], "summarised events 1..2") {
		t.Errorf("replayed notices %q", notes)
	}
}
