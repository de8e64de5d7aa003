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
	// UnchangedPrefix starts the notice "[snapshot] unchanged
	// turn=<sequence>" appended at the end of a turn that ran nothing
	// able to change the workspace's files, and so took no snapshot: the
	// files before it are those before the next snapshot.
	UnchangedPrefix = "[snapshot] unchanged turn="
	// CommandSnapshotPrefix starts the notice
	// "[snapshot] before_command commit=<id> <what>": the snapshot taken
	// just before a destructive command (rm -r, git clean, …) ran, which
	// `openseek rewind --snapshot <id>` restores. It starts no turn; it
	// belongs to the turn it is in (Turn.Commands).
	CommandSnapshotPrefix = "[snapshot] before_command commit="
)

// CommandSnapshotMarker is the notice recording that snapshot id was
// taken before a destructive command; what says what the command
// destroys, on one line.
func CommandSnapshotMarker(id, what string) string {
	return CommandSnapshotPrefix + id + " " + strings.Join(strings.Fields(what), " ")
}

func parseCommandSnapshot(c string) (id, what string, ok bool) {
	rest, ok := strings.CutPrefix(c, CommandSnapshotPrefix)
	if !ok {
		return "", "", false
	}
	id, what, _ = strings.Cut(rest, " ")
	return id, what, id != "" && !strings.Contains(id, "\n")
}

// CommandSnapshot is a snapshot taken within a turn, just before a
// destructive command ran.
type CommandSnapshot struct {
	Snapshot string `json:"snapshot"`
	Sequence int    `json:"sequence"` // of its marker
	What     string `json:"what"`     // the command and what it destroys
}

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

// UnchangedMarkerFor is the notice recording that the turn whose prompt
// is the user item at sequence turn changed no files (UnchangedPrefix).
func UnchangedMarkerFor(turn int) string { return UnchangedPrefix + strconv.Itoa(turn) }

// parseUnchanged returns the prompt sequence an unchanged marker names.
func parseUnchanged(c string) (int, bool) { return parseSequence(c, UnchangedPrefix) }

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
func parseRewind(c string) (int, bool) { return parseSequence(c, RewindPrefix) }

// parseSequence returns the sequence that follows prefix in c, written
// canonically (no sign, no leading zero).
func parseSequence(c, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(c, prefix)
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
	// Unchanged: the turn ran nothing that could change the files, so it
	// took no snapshot (UnchangedPrefix).
	Unchanged bool `json:"unchanged,omitempty"`
	// Prompt is the text of the prompt that started the turn.
	Prompt string `json:"prompt"`
	// Commands are the snapshots taken before the turn's destructive
	// commands, in order.
	Commands []CommandSnapshot `json:"commands,omitempty"`
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
			turn, ok := parseUnchanged(n.Content)
			if !ok {
				_, turn, ok = parseSnapshot(n.Content)
			}
			if ok && turn > 0 {
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
			} else if turn, ok := parseUnchanged(it.Content); ok {
				for i := len(turns) - 1; i >= 0; i-- {
					if turns[i].Sequence == turn {
						turns[i].Unchanged = true
						break
					}
				}
			} else if id, what, ok := parseCommandSnapshot(it.Content); ok && len(turns) > 0 {
				t := &turns[len(turns)-1]
				t.Commands = append(t.Commands, CommandSnapshot{Snapshot: id, Sequence: e.Sequence, What: what})
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

// IsMarker reports whether a notice is a snapshot, rewind, fork, approval
// or compaction marker: bookkeeping that the projection never shows the model. A
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
	if _, _, ok := parseFork(c); ok {
		return true
	}
	if _, ok := parseUnchanged(c); ok {
		return true
	}
	if _, _, ok := parseCommandSnapshot(c); ok {
		return true
	}
	_, ok := ParseApproval(c)
	return ok
}

// SnapshotBefore is the snapshot holding the files as they were before
// turn n (from 1): its own, or, when it and the turns after it up to one
// with a snapshot changed no files (Turn.Unchanged), that later
// snapshot. unchanged reports, with no snapshot, that turn n and all
// later turns changed no files, so the files now are those before it.
func SnapshotBefore(turns []Turn, n int) (id string, unchanged bool) {
	for _, t := range turns[n-1:] {
		if t.Snapshot != "" {
			return t.Snapshot, false
		}
		if !t.Unchanged {
			return "", false
		}
	}
	return "", true
}
