package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"path/filepath"
	"strings"

	"github.com/openseek/openseek/internal/tool"
)

type editArgs struct {
	Path      string `json:"path"`
	OldString string `json:"old_string" jsonschema:"exact text to replace; empty inserts at start_line"`
	NewString string `json:"new_string"`
	StartLine *int   `json:"start_line,omitempty" jsonschema:"1-based line the match starts at or after"`
	EndLine   *int   `json:"end_line,omitempty" jsonschema:"last line of the search range"`
	// ReplaceAll is the legacy flag: false is accepted, true refused. It is
	// kept out of the schema so the model is not invited to use it.
	ReplaceAll bool `json:"replace_all,omitempty"`
	// The diagnostic guards of the reference (openseek-tools.md §1).
	RevertOnParseErrors bool `json:"revert_on_parse_errors,omitempty" jsonschema:"refuse or revert an edit that adds syntax errors"`
	RevertIfErrorDelta  *int `json:"revert_if_error_delta_greater_or_equal,omitempty" jsonschema:"revert if the language server's error count grows by at least this (1: no new error; 0: must decrease)"`
}

// AdjustSchema hides the legacy replace_all flag.
func (editArgs) AdjustSchema(s *tool.Schema) {
	delete(s.Properties, "replace_all")
	s.Order = without(s.Order, "replace_all")
}

func without(names []string, drop string) []string {
	out := names[:0:0]
	for _, n := range names {
		if n != drop {
			out = append(out, n)
		}
	}
	return out
}

const editDescription = "Replace one exact span of a file. With start_line, the first match of old_string " +
	"at or after it (up to end_line) is replaced; without, old_string must occur exactly once. " +
	"Empty old_string inserts new_string at the start of start_line (last line+1 appends). " +
	"Copy old_string from read output without the line-number gutter."

// Edit is the edit tool.
func Edit() tool.Tool {
	return tool.Func("edit", editDescription, runEdit)
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func runEdit(ctx context.Context, env *tool.Env, a editArgs) tool.Result {
	brief := "edit " + filepath.Base(a.Path)
	fail := func(real, outcome, msg string) tool.Result {
		return with(tool.Errorf("error editing %s: %s", a.Path, msg), brief, data{Outcome: outcome, Path: relPath(env, real, a.Path)})
	}
	if err := ctx.Err(); err != nil {
		return fail("", "error", err.Error())
	}
	if a.ReplaceAll {
		return fail("", "error", "replace_all=true is no longer supported; give start_line to pick one match, or multi_edit with explicit line-anchored edits")
	}
	c := change{Old: a.OldString, New: a.NewString, Start: deref(a.StartLine), End: deref(a.EndLine)}
	if (a.StartLine != nil && c.Start < 1) || (a.EndLine != nil && c.End < 1) {
		return fail("", "error", "start_line and end_line must be positive line numbers")
	}
	if msg := c.check(); msg != "" {
		return fail("", "error", msg)
	}
	real, err := env.Resolve(a.Path)
	if err != nil {
		return fail("", "error", err.Error())
	}
	if err := env.CheckWrite(ctx, "edit", real); err != nil {
		return fail(real, "refused", err.Error())
	}
	content, msg := readText(env, real)
	if msg != "" {
		return fail(real, "error", msg)
	}
	sp, m := locate(content, c)
	if m != nil {
		outcome := "error"
		if m.kind == missNotFound {
			outcome = "not_found"
		}
		return fail(real, outcome, describeMiss(content, c, m))
	}
	updated := apply(content, []span{sp})
	if a.RevertIfErrorDelta != nil && *a.RevertIfErrorDelta < 0 {
		return fail(real, "error", "revert_if_error_delta_greater_or_equal must be 0 or more")
	}
	if a.RevertOnParseErrors {
		if msg := parseGate(a.Path, content, updated); msg != "" {
			return with(tool.Errorf("%s", msg), brief, data{Outcome: "rejected", Path: env.Rel(real)})
		}
	}
	diagnose := env.DiagnoseChange(ctx, []string{real})
	mode := fileMode(env, real)
	if err := writeAtomic(env, real, []byte(updated), mode); err != nil {
		return fail(real, "error", "edit failed: "+describeErr(err))
	}
	env.Files.Record(real, []byte(updated))
	report := diagnose(ctx)
	d := data{Outcome: "applied", Path: env.Rel(real), Check: checkData(report), Diff: unifiedDiff(env.Rel(real), []byte(content), []byte(updated))}
	if msg, outcome := guard(a, report); msg != "" {
		if err := writeAtomic(env, real, []byte(content), mode); err != nil {
			return fail(real, "error", msg+"; restoring the file failed: "+describeErr(err))
		}
		env.Files.Record(real, []byte(content))
		d.Outcome = outcome
		return with(withDiagnostics(tool.Errorf("%s; %s was NOT modified", msg, a.Path), env, report), brief, d)
	}
	first := lineOf(updated, sp.start+sp.lead)
	last := first + strings.Count(sp.text[sp.lead:max(sp.lead, len(sp.text)-1)], "\n")
	d.Lines = &lines{Start: first, End: last}
	res := tool.TextResult(fmt.Sprintf("ok: replaced 1 occurrence(s) at line %d in %s", first, a.Path))
	return with(withDiagnostics(res, env, report), brief, d)
}

// guard applies the post-write diagnostic guards the call asked for: the
// text and outcome of a revert, or "" when the edit stands.
func guard(a editArgs, r tool.DiagnosticReport) (string, string) {
	if a.RevertIfErrorDelta != nil {
		t := *a.RevertIfErrorDelta
		if !r.Checked {
			reason := r.Note
			if len(r.Servers) == 0 {
				reason = "no language server is installed for this file"
			}
			return fmt.Sprintf("not applied: a diagnostic guard was requested, but the language server could not verify the change (%s)", reason), "unverified"
		}
		if delta := r.ErrorDelta(); delta >= t {
			return fmt.Sprintf("reverted: the error count changed by %d (>= revert_if_error_delta_greater_or_equal=%d)", delta, t), "reverted"
		}
	}
	if a.RevertOnParseErrors && r.Checked {
		if n := syntaxErrors(r); n > 0 {
			return fmt.Sprintf("reverted: the edit introduced %d parse error(s)", n), "reverted"
		}
	}
	return "", ""
}

// readText reads the text file at real, or says why it cannot.
func readText(env *tool.Env, real string) (string, string) {
	b, err := safeReadFile(env, real)
	if err != nil {
		if errors.Is(err, iofs.ErrNotExist) {
			msg := "no such file; use write to create it"
			if s := suggest(env, real); s != "" {
				msg += ". Did you mean " + s + "?"
			}
			return "", msg
		}
		if fi, serr := safeLstat(env, real); serr == nil && fi.IsDir() {
			return "", "is a directory"
		}
		return "", describeErr(err)
	}
	if isBinary(b, true) {
		return "", "binary file (not UTF-8 text); edit changes text files only"
	}
	return string(b), ""
}

// describeMiss is the model-facing text of an edit that did not locate.
func describeMiss(content string, c change, m *miss) string {
	switch m.kind {
	case missInvalid:
		return m.msg
	case missAmbiguous:
		return fmt.Sprintf("old_string matched %d times on lines %s; give start_line", len(m.lines), joinLines(m.lines, 20))
	}
	var b strings.Builder
	b.WriteString("old_string not found")
	if c.Start > 0 {
		if c.End > 0 {
			fmt.Fprintf(&b, " in lines %d-%d", c.Start, m.last)
		} else {
			fmt.Fprintf(&b, " from line %d", c.Start)
		}
	}
	switch len(m.lines) {
	case 0:
		if line, text := closestLine(content, c.Old); line > 0 {
			fmt.Fprintf(&b, ". The closest text in the file is line %d: %s", line, text)
		} else {
			b.WriteString(". Re-read the file and copy old_string exactly")
		}
	case 1:
		fmt.Fprintf(&b, "; it occurs on line %d", m.lines[0])
	default:
		fmt.Fprintf(&b, "; it occurs on lines %s", joinLines(m.lines, 20))
	}
	return b.String()
}
