package fs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/openseek/openseek/internal/tool"
)

type multiEditArgs struct {
	Edits     []editItem `json:"edits,omitempty"`
	EditsFile string     `json:"edits_file,omitempty" jsonschema:"JSON file holding more edits, appended to edits"`
}

type editItem struct {
	File      string `json:"file"`
	OldString string `json:"old_string" jsonschema:"exact text; empty inserts at start_line"`
	NewString string `json:"new_string"`
	StartLine int    `json:"start_line" jsonschema:"1-based line the match starts at or after"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line of the search range"`
}

// UnmarshalJSON decodes the edits with the per-edit texts of the
// reference ("arguments.edits[0].start_line to be an integer", …).
func (a *multiEditArgs) UnmarshalJSON(b []byte) error {
	var top struct {
		Edits     json.RawMessage `json:"edits"`
		EditsFile *string         `json:"edits_file"`
	}
	if err := json.Unmarshal(b, &top); err != nil {
		return tool.MissingArg("multi_edit", "edits")
	}
	if top.EditsFile != nil {
		a.EditsFile = *top.EditsFile
	}
	if len(top.Edits) == 0 || string(top.Edits) == "null" {
		return nil
	}
	edits, err := decodeEdits(top.Edits, 0)
	if err != nil {
		return err
	}
	a.Edits = edits
	return nil
}

// decodeEdits decodes a JSON array of edit objects; first is the batch
// index of its first element (edits_file continues after inline edits).
func decodeEdits(raw json.RawMessage, first int) ([]editItem, *tool.ArgError) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, &tool.ArgError{Tool: "multi_edit", Msg: "error: multi_edit requires arguments.edits to be an array of edit objects"}
	}
	out := make([]editItem, len(items))
	for i, item := range items {
		e, err := decodeEdit(item, first+i)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

func decodeEdit(raw json.RawMessage, i int) (editItem, *tool.ArgError) {
	argErr := func(format string, a ...any) *tool.ArgError {
		return &tool.ArgError{Tool: "multi_edit", Msg: fmt.Sprintf("error: multi_edit requires arguments.edits[%d]", i) + fmt.Sprintf(format, a...)}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return editItem{}, argErr(" to be an object")
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var e editItem
	str := func(name string, dst *string, required bool) *tool.ArgError {
		v, ok := fields[name]
		if !ok || string(bytes.TrimSpace(v)) == "null" {
			if required {
				return argErr(" to include %s (present keys: %s)", name, strings.Join(keys, ", "))
			}
			return nil
		}
		if json.Unmarshal(v, dst) != nil {
			return argErr(".%s to be a string", name)
		}
		return nil
	}
	num := func(name string, dst *int, required bool) *tool.ArgError {
		v, ok := fields[name]
		if !ok || string(bytes.TrimSpace(v)) == "null" {
			if required {
				return argErr(" to include %s (present keys: %s)", name, strings.Join(keys, ", "))
			}
			return nil
		}
		if json.Unmarshal(v, dst) != nil {
			return argErr(".%s to be an integer", name)
		}
		return nil
	}
	for _, err := range []*tool.ArgError{
		str("file", &e.File, true),
		str("old_string", &e.OldString, true),
		str("new_string", &e.NewString, true),
		num("start_line", &e.StartLine, true),
		num("end_line", &e.EndLine, false),
	} {
		if err != nil {
			return editItem{}, err
		}
	}
	return e, nil
}

const multiEditDescription = "Apply several line-anchored edits (as in edit; start_line required) to one or more files " +
	"as one batch. Each edit is matched against its file's original content; spans must not overlap " +
	"(merge same-line changes); list a file's edits together. Nothing is written unless every edit applies."

// MultiEdit is the multi_edit tool.
func MultiEdit() tool.Tool {
	return tool.Func("multi_edit", multiEditDescription, runMultiEdit)
}

// fileBatch is the contiguous run of edits of one file.
type fileBatch struct {
	real, given string
	first       int // batch index of its first edit
	edits       []editItem
	before      string
	after       string
	mode        os.FileMode
}

func runMultiEdit(ctx context.Context, env *tool.Env, a multiEditArgs) tool.Result {
	fail := func(outcome, text string, paths []string) tool.Result {
		return with(tool.Errorf("%s", text), "multi_edit", data{Outcome: outcome, Paths: paths})
	}
	if err := ctx.Err(); err != nil {
		return fail("error", "error multi_editing: "+err.Error(), nil)
	}
	edits := a.Edits
	if a.EditsFile != "" {
		more, msg := readEditsFile(env, a.EditsFile, len(edits))
		if msg != "" {
			return fail("error", msg, nil)
		}
		edits = append(slices.Clip(edits), more...)
	}
	if len(edits) == 0 {
		return fail("error", "error: multi_edit requires arguments.edits (a non-empty array of edits) or arguments.edits_file", nil)
	}

	// Group by resolved file; a file must not come back after another's.
	var (
		batches  []*fileBatch
		problems []string
		seen     = map[string]bool{}
	)
	for i, e := range edits {
		real, err := env.Resolve(e.File)
		if err == nil {
			err = env.CheckWrite(ctx, "multi_edit", real)
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s edit[%d]: %v", e.File, i, err))
			continue
		}
		if n := len(batches); n > 0 && batches[n-1].real == real {
			batches[n-1].edits = append(batches[n-1].edits, e)
			continue
		}
		if seen[real] {
			return fail("error", fmt.Sprintf("error multi_editing: edits for %s must be contiguous; it reappears at edit[%d] after another file's edits; list all edits for a file together", e.File, i), nil)
		}
		seen[real] = true
		batches = append(batches, &fileBatch{real: real, given: e.File, first: i, edits: []editItem{e}})
	}

	for _, fb := range batches {
		problems = append(problems, fb.plan(env)...)
	}
	if len(problems) > 0 {
		return fail("rejected", fmt.Sprintf("error multi_editing: %d problem(s); no changes applied\n%s", len(problems), strings.Join(problems, "\n")), nil)
	}
	if err := ctx.Err(); err != nil {
		return fail("error", "error multi_editing: "+err.Error()+"; no changes applied", nil)
	}

	reals := make([]string, len(batches))
	for i, fb := range batches {
		reals[i] = fb.real
	}
	diagnose := env.DiagnoseChange(ctx, reals)
	paths := make([]string, len(batches))
	for i, fb := range batches {
		paths[i] = env.Rel(fb.real)
		if err := writeAtomic(env, fb.real, []byte(fb.after), fb.mode); err != nil {
			restored := 0
			for _, done := range batches[:i] {
				if writeAtomic(env, done.real, []byte(done.before), done.mode) == nil {
					restored++
				}
			}
			return fail("failed", fmt.Sprintf("error multi_editing: writing %s failed: %s; restored %d of %d file(s) already written", fb.given, describeErr(err), restored, i), paths[:i+1])
		}
		env.Files.Record(fb.real, []byte(fb.after))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ok: applied %d edit(s) across %d file(s)", len(edits), len(batches))
	for _, fb := range batches {
		fmt.Fprintf(&b, "\n%s: %d edit(s)", fb.given, len(fb.edits))
	}
	brief := fmt.Sprintf("multi_edit %d edit(s) in %d file(s)", len(edits), len(batches))
	report := diagnose(ctx)
	diffs := make([]string, len(batches))
	for i, fb := range batches {
		diffs[i] = unifiedDiff(paths[i], []byte(fb.before), []byte(fb.after))
	}
	return with(withDiagnostics(tool.TextResult(b.String()), env, report), brief, data{Outcome: "applied", Paths: paths, Check: checkData(report), Diff: joinDiffs(diffs)})
}

// plan reads the file and locates every edit against its original
// content, filling after; it returns one line per problem.
func (fb *fileBatch) plan(env *tool.Env) []string {
	content, msg := readText(env, fb.real)
	if msg != "" {
		return []string{fmt.Sprintf("%s edit[%d]: %s", fb.given, fb.first, msg)}
	}
	fb.before, fb.mode = content, fileMode(env, fb.real)
	type located struct {
		span
		index int
	}
	var (
		problems []string
		spans    []located
	)
	for j, e := range fb.edits {
		i := fb.first + j
		c := change{Old: e.OldString, New: e.NewString, Start: e.StartLine, End: e.EndLine}
		if c.Start < 1 {
			problems = append(problems, fmt.Sprintf("%s edit[%d]: start_line must be a positive line number", e.File, i))
			continue
		}
		sp, m := locate(content, c)
		switch {
		case m == nil:
			spans = append(spans, located{sp, i})
		case m.kind == missNotFound:
			problems = append(problems, fmt.Sprintf("%s edit[%d] line range %d-%d: old_string not found", e.File, i, c.Start, m.last))
		default:
			problems = append(problems, fmt.Sprintf("%s edit[%d]: %s", e.File, i, describeMiss(content, c, m)))
		}
	}
	slices.SortStableFunc(spans, func(x, y located) int {
		if x.start != y.start {
			return x.start - y.start
		}
		return x.end - y.end
	})
	for k := 1; k < len(spans); k++ {
		p, c := spans[k-1], spans[k]
		bothInsert := p.start == p.end && c.start == c.end && p.start == c.start
		if p.end > c.start || bothInsert {
			lo, hi := min(p.index, c.index), max(p.index, c.index)
			problems = append(problems, fmt.Sprintf("%s edit[%d] overlaps edit[%d]; combine same-line changes into one edit", fb.given, hi, lo))
		}
	}
	if len(problems) > 0 {
		return problems
	}
	plain := make([]span, len(spans))
	for k, s := range spans {
		plain[k] = s.span
	}
	fb.after = apply(content, plain)
	return nil
}

// readEditsFile loads the edits_file array; its edits are numbered from
// first in messages.
func readEditsFile(env *tool.Env, path string, first int) ([]editItem, string) {
	real, err := env.Resolve(path)
	if err != nil {
		return nil, fmt.Sprintf("error multi_editing: edits_file %s: %v", path, err)
	}
	b, err := safeReadFile(env, real)
	if err != nil {
		return nil, fmt.Sprintf("error multi_editing: edits_file %s: %s", path, describeErr(err))
	}
	if !json.Valid(b) {
		return nil, fmt.Sprintf("error multi_editing: edits_file %s is not valid JSON", path)
	}
	edits, aerr := decodeEdits(b, first)
	if aerr != nil {
		return nil, aerr.Msg
	}
	return edits, ""
}
