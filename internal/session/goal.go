package session

import "strings"

// Goal is the standing goal derived from the log's goal markers.
type Goal struct {
	Text string
	// SetSequence is the sequence of the "[goal]" marker that set it.
	SetSequence int
	// AnsweredSinceSet: an assistant response or terminal came after the
	// marker, or a summary covers it.
	AnsweredSinceSet bool
	// Blocked: the newest block/unblock marker after the set marker is a
	// block; BlockReason is its text.
	Blocked     bool
	BlockReason string
}

// Goal derives the current goal by scanning the raw log newest to oldest
// (reference §6). It reports false when no goal was set or the newest set
// was followed by "[goal cleared]".
func (s *Session) Goal() (Goal, bool) {
	g, _, ok := s.goal()
	return g, ok
}

func (s *Session) goal() (Goal, int, bool) {
	var g Goal
	answered, decided := false, false
	var ranges [][2]int
	for i := len(s.Events) - 1; i >= 0; i-- {
		e := s.Events[i]
		switch it := e.Item.(type) {
		case *Assistant, *Terminal:
			answered = true
		case *Summary:
			ranges = append(ranges, [2]int{it.From, it.To})
		case *Notice:
			c := it.Content
			switch {
			case c == GoalCleared:
				return Goal{}, 0, false
			case c == GoalUnblocked:
				decided = true
			case strings.HasPrefix(c, GoalBlockedPrefix) || c == strings.TrimSuffix(GoalBlockedPrefix, "\n"):
				if !decided {
					decided, g.Blocked = true, true
					g.BlockReason = strings.TrimPrefix(c, GoalBlockedPrefix)
					if !strings.HasPrefix(c, GoalBlockedPrefix) {
						g.BlockReason = ""
					}
				}
			case strings.HasPrefix(c, GoalSetPrefix):
				g.Text, g.SetSequence, g.AnsweredSinceSet = c[len(GoalSetPrefix):], e.Sequence, answered
				for _, r := range ranges {
					if r[0] <= e.Sequence && e.Sequence <= r[1] {
						g.AnsweredSinceSet = true
					}
				}
				return g, i, true
			}
		}
	}
	return Goal{}, 0, false
}

// Baseline is the workspace snapshot recorded just before a goal was set.
type Baseline struct {
	SHA   string
	Dirty bool
}

// GoalBaseline is the baseline of the current goal: the notice immediately
// before its set marker, if it is a well-formed
// "[goal baseline] sha=<sha> dirty=<true|false>" line.
func (s *Session) GoalBaseline() (Baseline, bool) {
	_, at, ok := s.goal()
	if !ok || at == 0 {
		return Baseline{}, false
	}
	n, isNotice := s.Events[at-1].Item.(*Notice)
	if !isNotice {
		return Baseline{}, false
	}
	return ParseBaseline(n.Content)
}

// ParseBaseline parses a "[goal baseline] sha=<sha> dirty=<true|false>"
// marker: a single line, a non-empty sha, ending exactly in the dirty flag.
func ParseBaseline(c string) (Baseline, bool) {
	rest, ok := strings.CutPrefix(c, GoalBaselinePrefix)
	if !ok || strings.ContainsAny(rest, "\n") {
		return Baseline{}, false
	}
	var b Baseline
	switch {
	case strings.HasSuffix(rest, " dirty=true"):
		b.SHA, b.Dirty = strings.TrimSuffix(rest, " dirty=true"), true
	case strings.HasSuffix(rest, " dirty=false"):
		b.SHA = strings.TrimSuffix(rest, " dirty=false")
	default:
		return Baseline{}, false
	}
	if b.SHA == "" {
		return Baseline{}, false
	}
	return b, true
}
