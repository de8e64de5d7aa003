package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"path/filepath"
	"unicode/utf8"

	"github.com/openseek/openseek/internal/tool"
)

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content" jsonschema:"the whole new file"`
}

const writeDescription = "Create or overwrite a whole file; missing parent directories are created. " +
	"Prefer edit for changing part of an existing file."

// Write is the write tool.
func Write() tool.Tool {
	return tool.Func("write", writeDescription, runWrite)
}

func runWrite(ctx context.Context, env *tool.Env, a writeArgs) tool.Result {
	brief := "write " + filepath.Base(a.Path)
	fail := func(real, msg string) tool.Result {
		return with(tool.Errorf("error writing %s: %s", a.Path, msg), brief, data{Outcome: "error", Path: relPath(env, real, a.Path)})
	}
	if err := ctx.Err(); err != nil {
		return fail("", err.Error())
	}
	real, err := env.Resolve(a.Path)
	if err != nil {
		return fail("", err.Error())
	}
	if err := env.CheckWrite(ctx, "write", real); err != nil {
		return fail(real, err.Error())
	}
	existed := false
	switch fi, err := safeLstat(env, real); {
	case err == nil && fi.IsDir():
		return fail(real, "is a directory")
	case err == nil:
		existed = true
	case !errors.Is(err, iofs.ErrNotExist):
		return fail(real, describeErr(err))
	}
	if err := safeMkdirAll(env, filepath.Dir(real)); err != nil {
		return fail(real, describeErr(err))
	}
	content := []byte(a.Content)
	var before []byte
	if existed {
		before, _ = safeReadFile(env, real)
	}
	diagnose := env.DiagnoseChange(ctx, []string{real})
	if err := writeAtomic(env, real, content, fileMode(env, real)); err != nil {
		return fail(real, describeErr(err))
	}
	report := diagnose(ctx)
	outcome := "overwritten"
	if existed {
		env.Files.Record(real, content)
	} else {
		outcome = "created"
		env.Files.MarkCreated(real, content)
	}
	res := tool.TextResult(fmt.Sprintf("ok: wrote %d chars to %s", utf8.RuneCountInString(a.Content), a.Path))
	return with(withDiagnostics(res, env, report), brief, data{Outcome: outcome, Path: env.Rel(real), Check: checkData(report),
		Diff: unifiedDiff(env.Rel(real), before, content)})
}
