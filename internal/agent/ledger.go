package agent

import (
	"crypto/sha256"
	"fmt"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// ledger remembers, per file and range, what the model's last read of it
// showed, so that reading it again unchanged is answered in one line
// instead of the whole content again. An entry counts only while the
// result it names is still in the model's context: a compaction drops
// the entries it summarised, and a rewind that hid the result makes the
// next read a full one. It is used by the running turn (or compaction)
// only, like history.
type ledger struct {
	entries map[string]readEntry // by tool.ReadMark.Key
	avoided int                  // re-reads answered briefly
	saved   int                  // bytes of content not sent again
}

// readEntry is one full read the model saw.
type readEntry struct {
	sum    [32]byte
	callID string // the call whose result holds the content
	seq    int    // that result's sequence in the log
	turn   int    // the agent's turn count when it was read
	step   int
}

// reread answers a read whose content is unchanged since a read still
// in msgs (the context of the current request) briefly; ok is false
// when the read must go out in full.
func (l *ledger) reread(m *tool.ReadMark, msgs []chat.Message, turn int) (text string, ok bool) {
	e, found := l.entries[m.Key]
	if !found || e.sum != m.Sum || !holds(msgs, e.callID, e.sum) {
		return "", false
	}
	when := "of this turn"
	if e.turn != turn {
		when = "of an earlier turn"
	}
	return fmt.Sprintf("[unchanged] %s is unchanged since your read at step %d %s (same range, same content); that result is still above, use it.", m.Path, e.step, when), true
}

// note records a full read.
func (l *ledger) note(m *tool.ReadMark, e readEntry) {
	if l.entries == nil {
		l.entries = map[string]readEntry{}
	}
	e.sum = m.Sum
	l.entries[m.Key] = e
}

// forget drops the reads whose results a summary up to sequence to
// replaced: their content left the context.
func (l *ledger) forget(to int) {
	for k, e := range l.entries {
		if e.seq <= to {
			delete(l.entries, k)
		}
	}
}

// holds reports whether msgs carry the result of call id with the
// content whose hash is sum (so a call ID a provider used twice, or a
// result a hook added to, never passes for the read).
func holds(msgs []chat.Message, id string, sum [32]byte) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == chat.Tool && msgs[i].ToolCallID == id {
			return sha256.Sum256([]byte(msgs[i].Text())) == sum
		}
	}
	return false
}

// useLedger answers res briefly when the ledger says the model still
// has the same content in context, counting what it saved; the brief
// answer carries no ReadMark, so noteRead keeps the earlier entry.
func (t *turn) useLedger(res tool.Result) tool.Result {
	m := res.Read
	if m == nil {
		return res
	}
	l := &t.a.ledger
	text, ok := l.reread(m, t.msgs, t.a.turns)
	if !ok {
		return res
	}
	l.avoided++
	l.saved += max(len(res.Content.Text())-len(text), 0)
	res.Content, res.IsError, res.Read = protocol.Text(text), false, nil
	if res.Brief != "" {
		res.Brief += " (unchanged)"
	}
	return res
}

// noteRead remembers a full read just recorded (at t.lastSeq) as the
// latest of its file and range.
func (t *turn) noteRead(c chat.ToolCall, res tool.Result) {
	if res.Read != nil {
		t.a.ledger.note(res.Read, readEntry{callID: c.ID, seq: t.lastSeq, turn: t.a.turns, step: t.steps})
	}
}
