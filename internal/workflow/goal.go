package workflow

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/openseek/openseek/internal/session"
)

// goal is goal(session=""): the standing goal of a session of the
// workspace — the one named, else the most recently active one that has
// a goal (not the run's own, nor its agents') — as a struct with .text,
// .session, .baseline (the commit it was set at; "" when none was
// recorded), .dirty (there were uncommitted changes then) and .blocked;
// None when there is no such goal.
func (r *Run) goal(_ *starlark.Thread, b *starlark.Builtin, pos starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	var id string
	if err := starlark.UnpackArgs(b.Name(), pos, kw, "session?", &id); err != nil {
		return nil, err
	}
	store := r.Host.Store()
	ids := []string{id}
	if id == "" {
		ls, err := store.List()
		if err != nil {
			return nil, fmt.Errorf("goal: %w", err)
		}
		ids = ids[:0]
		own := r.Session.ID()
		for _, l := range ls {
			if l.ID != own && !strings.HasPrefix(l.ID, own+"-sr-") {
				ids = append(ids, l.ID)
			}
		}
	}
	for _, id := range ids {
		s, err := store.Load(id)
		if err != nil {
			if len(ids) == 1 {
				return nil, fmt.Errorf("goal: %w", err)
			}
			continue // one unreadable session does not hide the others' goals
		}
		g, ok := s.Goal()
		if !ok {
			continue
		}
		base, _ := s.GoalBaseline()
		return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
			"text":     starlark.String(g.Text),
			"session":  starlark.String(id),
			"baseline": starlark.String(base.SHA),
			"dirty":    starlark.Bool(base.Dirty),
			"blocked":  starlark.Bool(g.Blocked),
		}), nil
	}
	return starlark.None, nil
}

// goalOf reads review's goal= argument: a goal() struct, or a text
// (whose baseline is then base=, which wins over the struct's too).
func goalOf(v starlark.Value, base string) (string, session.Baseline, error) {
	var (
		text string
		b    session.Baseline
	)
	switch v := v.(type) {
	case starlark.String:
		text = string(v)
	case *starlarkstruct.Struct:
		t, _ := v.Attr("text")
		sha, _ := v.Attr("baseline")
		dirty, _ := v.Attr("dirty")
		ts, ok := t.(starlark.String)
		if !ok {
			return "", b, fmt.Errorf("review: goal= is a struct without .text; pass goal() or a text")
		}
		text = string(ts)
		if s, ok := sha.(starlark.String); ok {
			b.SHA = string(s)
		}
		if d, ok := dirty.(starlark.Bool); ok {
			b.Dirty = bool(d)
		}
	default:
		return "", b, fmt.Errorf("review: goal= is a %s; pass goal() or a text", v.Type())
	}
	if base != "" {
		b = session.Baseline{SHA: base}
	}
	if b.SHA == "" {
		return "", b, fmt.Errorf("review: the goal has no baseline commit (it was set outside git, or before baselines were recorded): pass base=COMMIT")
	}
	return text, b, nil
}
