package fs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openseek/openseek/internal/patch"
	"github.com/openseek/openseek/internal/tool"
)

type applyPatchArgs struct {
	Input string `json:"input" jsonschema:"the whole patch, from *** Begin Patch to *** End Patch"`
}

const applyPatchDescription = "Edit files with a patch. Format:\n" +
	"*** Begin Patch\n*** Add File: path (then +lines) | *** Delete File: path | *** Update File: path " +
	"(optional *** Move to: path), then chunks: '@@ line to find first' or '@@', " +
	"then ' ' context, '-' removed, '+' added lines; 3 lines of context around each change.\n*** End Patch\n" +
	"All hunks apply or none."

// ApplyPatch is the apply_patch tool: Codex's patch format (package
// patch), applied all or nothing inside the workspace.
func ApplyPatch() tool.Tool {
	return tool.Func("apply_patch", applyPatchDescription, runApplyPatch)
}

func runApplyPatch(ctx context.Context, env *tool.Env, a applyPatchArgs) tool.Result {
	const brief = "apply_patch"
	fail := func(outcome, msg string) tool.Result {
		return with(tool.Errorf("error applying patch: %s", msg), brief, data{Outcome: outcome})
	}
	if err := ctx.Err(); err != nil {
		return fail("error", err.Error())
	}
	p, err := patch.Parse(a.Input)
	if err != nil {
		return fail("error", err.Error())
	}
	changes, err := p.Apply(patch.Files{
		Resolve: env.Resolve,
		Check:   func(abs string) error { return env.CheckWrite(ctx, "apply_patch", abs) },
		FS:      rootFS{env},
	})
	if err != nil {
		outcome := "error"
		var he *patch.HunkError
		if errors.As(err, &he) && strings.Contains(he.Msg, "not found") {
			outcome = "not_found"
		}
		return fail(outcome, err.Error())
	}
	paths := make([]string, 0, len(changes))
	diffs := make([]string, 0, len(changes))
	for _, c := range changes {
		diffs = append(diffs, unifiedDiff(env.Rel(c.Abs), c.Old, c.New))
		switch c.Op {
		case patch.Add:
			env.Files.MarkCreated(c.Abs, c.New)
		case patch.Update:
			env.Files.Record(c.Abs, c.New)
		case patch.Delete:
			env.Files.Forget(c.Abs)
		}
		paths = append(paths, env.Rel(c.Abs))
	}
	res := tool.TextResult(patch.Summary(changes))
	return with(res, fmt.Sprintf("%s (%d files)", brief, len(changes)), data{Outcome: "applied", Paths: paths, Diff: joinDiffs(diffs)})
}
