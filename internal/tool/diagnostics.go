package tool

import (
	"context"
	"fmt"
	"strings"
)

// Diagnostics is the hook a file tool calls around a change so that the
// session's language servers can say what the change broke (package lsp
// implements it; the engine puts it in Env.Diagnostics). Before is called
// with the absolute paths about to change; the function it returns is
// called once they changed and reports the difference. Both wait a
// bounded time and never fail: a slow, missing or crashed server gives a
// report that says it could not check.
type Diagnostics interface {
	Before(ctx context.Context, paths []string) func(ctx context.Context) DiagnosticReport
}

// Diagnostic is one problem a language server reported.
type Diagnostic struct {
	Path     string // absolute
	Line     int    // 1-based
	Column   int    // 1-based, in UTF-16 units as the server counts
	Severity string // "error", "warning", "info" or "hint"
	Code     string
	Source   string
	Message  string
}

// DiagnosticReport is what one change did to the diagnostics of the files
// the servers know.
type DiagnosticReport struct {
	// Servers names the language servers that checked the change; empty
	// when no file had one.
	Servers []string
	// Checked is true when every server that should have checked did so
	// in time; Note says why not otherwise.
	Checked bool
	Note    string
	// Introduced are the errors and warnings present after the change and
	// not before (matched by file, code and message, not line).
	Introduced []Diagnostic
	// Resolved counts errors and warnings present before and gone after.
	Resolved int
	// Error and warning counts over the files compared.
	ErrorsBefore, ErrorsAfter     int
	WarningsBefore, WarningsAfter int
}

// ErrorDelta is ErrorsAfter − ErrorsBefore.
func (r DiagnosticReport) ErrorDelta() int { return r.ErrorsAfter - r.ErrorsBefore }

// WarningDelta is WarningsAfter − WarningsBefore.
func (r DiagnosticReport) WarningDelta() int { return r.WarningsAfter - r.WarningsBefore }

// maxShownDiagnostics bounds the introduced diagnostics listed for the
// model.
const maxShownDiagnostics = 20

// Text is the report for the model, to append to a tool result: the
// introduced problems as path:line:col lines (paths through rel), or a
// short line when nothing new appeared; "" when no server was involved.
func (r DiagnosticReport) Text(rel func(string) string) string {
	if len(r.Servers) == 0 && r.Note == "" {
		return ""
	}
	who := strings.Join(r.Servers, ", ")
	if !r.Checked {
		return fmt.Sprintf("diagnostics: not checked (%s)", r.Note)
	}
	var b strings.Builder
	if len(r.Introduced) == 0 {
		fmt.Fprintf(&b, "diagnostics (%s): no new problems", who)
		if r.Resolved > 0 {
			fmt.Fprintf(&b, "; %d resolved", r.Resolved)
		}
		fmt.Fprintf(&b, " (%d error(s), %d warning(s) now)", r.ErrorsAfter, r.WarningsAfter)
		return b.String()
	}
	errs := 0
	for _, d := range r.Introduced {
		if d.Severity == "error" {
			errs++
		}
	}
	fmt.Fprintf(&b, "diagnostics (%s): this change introduced %d error(s) and %d warning(s):", who, errs, len(r.Introduced)-errs)
	for i, d := range r.Introduced {
		if i == maxShownDiagnostics {
			fmt.Fprintf(&b, "\n… and %d more", len(r.Introduced)-i)
			break
		}
		fmt.Fprintf(&b, "\n%s:%d:%d: %s: %s", rel(d.Path), d.Line, d.Column, d.Severity, d.Message)
		if d.Code != "" {
			fmt.Fprintf(&b, " [%s]", d.Code)
		}
	}
	if r.Resolved > 0 {
		fmt.Fprintf(&b, "\n(%d earlier problem(s) resolved)", r.Resolved)
	}
	return b.String()
}

// DiagnoseChange starts watching paths for a change: the returned
// function reports what the change did. Without Env.Diagnostics it
// reports nothing at once.
func (e *Env) DiagnoseChange(ctx context.Context, paths []string) func(ctx context.Context) DiagnosticReport {
	if e == nil || e.Diagnostics == nil {
		return func(context.Context) DiagnosticReport { return DiagnosticReport{} }
	}
	return e.Diagnostics.Before(ctx, paths)
}
