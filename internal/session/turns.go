package session

import (
	"strconv"
	"strings"
)

// Markers of snapshots and rewinds, stored as runtime notices (an
// OpenSeek extension of the format that other readers see as plain
// notices). Both are single lines.
const (
	// SnapshotPrefix starts the notice appended just before a turn's
	// prompt: "[snapshot] commit=<id>", the id of the workspace snapshot
	// taken before the turn changed anything (package snapshot); or after
	// the prompt, naming it: "[snapshot] commit=<id> turn=<sequence>".
	SnapshotPrefix = "[snapshot] commit="
	// RewindPrefix starts the notice "[rewind] from_sequence=<n>" that
	// rewinds the conversation: the projection drops the events from
	// sequence n up to the marker itself.
	RewindPrefix = "[rewind] from_sequence="
)

// SnapshotMarker is the notice recording that snapshot id was taken
// before the turn whose prompt follows.
func SnapshotMarker(id string) string { return SnapshotPrefix + id }

// SnapshotMarkerFor is the notice recording that snapshot id was taken
// before the turn whose prompt is the user item at sequence turn: a
// snapshot taken beside the turn's first model request is recorded once
// it is done, after the prompt (and before anything the turn changed).
func SnapshotMarkerFor(id string, turn int) string {
	return SnapshotPrefix + id + " turn=" + strconv.Itoa(turn)
}

// RewindMarker is the notice that hides events from sequence from on.
func RewindMarker(from int) string { return RewindPrefix + strconv.Itoa(from) }

// parseSnapshot returns the id of a snapshot marker, and the sequence of
// the prompt it names (0: the prompt that follows it).
func parseSnapshot(c string) (string, int, bool) {
	id, ok := strings.CutPrefix(c, SnapshotPrefix)
	if !ok {
		return "", 0, false
	}
	turn := 0
	if i := strings.Index(id, " turn="); i >= 0 {
		n, err := strconv.Atoi(id[i+len(" turn="):])
		if err != nil || n <= 0 || strconv.Itoa(n) != id[i+len(" turn="):] {
			return "", 0, false
		}
		id, turn = id[:i], n
	}
	if id == "" || strings.ContainsAny(id, " \n") {
		return "", 0, false
	}
	return id, turn, true
}

// parseRewind returns the first hidden sequence of a rewind marker.
func parseRewind(c string) (int, bool) {
	rest, ok := strings.CutPrefix(c, RewindPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n <= 0 || strconv.Itoa(n) != rest {
		return 0, false
	}
	return n, true
}

// Turn is one turn of a session, in log order.
type Turn struct {
	// Number counts turns from 1 in log order, rewound ones included.
	Number int `json:"number"`
	// Sequence is the sequence of the user item that started the turn.
	Sequence int `json:"sequence"`
	// Start is the first sequence belonging to the turn: its snapshot
	// marker when it has one, else Sequence. A conversation rewound to
	// before the turn hides events from Start on.
	Start int `json:"start"`
	// Snapshot is the id of the workspace snapshot taken before the turn,
	// "" when none was recorded.
	Snapshot string `json:"snapshot"`
	// Prompt is the text of the prompt that started the turn.
	Prompt string `json:"prompt"`
}

// Turns lists the session's turns. A turn starts with a user item that
// follows a terminal (or the start of the log, or a rewind), that
// directly follows its snapshot marker, or that a later snapshot marker
// names (turn=<sequence>); other user items inside a running turn are
// steering and do not start one. The last rule keeps a turn that was
// resumed after a crash: the killed turn recorded no terminal, but the
// resumed prompt's snapshot marker names it.
func (s *Session) Turns() []Turn {
	var named map[int]bool
	for _, e := range s.Events {
		if n, ok := e.Item.(*Notice); ok {
			if _, turn, ok := parseSnapshot(n.Content); ok && turn > 0 {
				if named == nil {
					named = map[int]bool{}
				}
				named[turn] = true
			}
		}
	}
	var turns []Turn
	open := false
	snap, snapSeq := "", 0
	for _, e := range s.Events {
		switch it := e.Item.(type) {
		case *Notice:
			if id, turn, ok := parseSnapshot(it.Content); ok && turn > 0 {
				// Recorded after its prompt: it belongs to that turn.
				for i := len(turns) - 1; i >= 0; i-- {
					if turns[i].Sequence == turn {
						if turns[i].Snapshot == "" {
							turns[i].Snapshot = id
						}
						break
					}
				}
			} else if ok {
				snap, snapSeq = id, e.Sequence
			} else if _, ok := parseRewind(it.Content); ok {
				open = false
			}
		case *Terminal:
			open = false
		case *User:
			if open && snap == "" && !named[e.Sequence] {
				continue
			}
			t := Turn{Number: len(turns) + 1, Sequence: e.Sequence, Start: e.Sequence, Prompt: it.Content.Text()}
			if snap != "" {
				t.Snapshot, t.Start = snap, snapSeq
			}
			turns = append(turns, t)
			open, snap, snapSeq = true, "", 0
		}
	}
	return turns
}

// Hidden reports, by event index, the events rewind markers hide from
// the model (nil when there is none): a conversation view leaves them out
// as the model does.
func (s *Session) Hidden() []bool { return s.rewound() }

// rewound reports, by event index, the events a rewind marker hides from
// the projection (nil when there is none). Markers are honoured newest
// first, and a marker that a later rewind hides is void: rewinding to
// before a turn shows the conversation exactly as it stood then.
func (s *Session) rewound() []bool {
	var hidden []bool
	for i := len(s.Events) - 1; i >= 0; i-- {
		n, ok := s.Events[i].Item.(*Notice)
		if !ok || (hidden != nil && hidden[i]) {
			continue
		}
		from, ok := parseRewind(n.Content)
		if !ok {
			continue
		}
		if hidden == nil {
			hidden = make([]bool, len(s.Events))
		}
		// Sequences are contiguous: event index = sequence-1.
		for j := max(from-1, 0); j <= i; j++ {
			hidden[j] = true
		}
	}
	return hidden
}

// IsMarker reports whether a notice is a snapshot, rewind, approval or
// compaction marker: bookkeeping that the projection never shows the model. A
// conversation view shows approvals (ParseApproval first) and hides the
// rest.
func IsMarker(c string) bool {
	if strings.HasPrefix(c, CompactionNotePrefix) {
		return true
	}
	if _, _, ok := parseSnapshot(c); ok {
		return true
	}
	if _, ok := parseRewind(c); ok {
		return true
	}
	_, ok := ParseApproval(c)
	return ok
}
