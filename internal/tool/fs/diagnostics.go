package fs

import (
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"path/filepath"
	"strings"

	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// check is the diagnostics part of Result.Data.
type check struct {
	Servers      []string `json:"servers"`
	Checked      bool     `json:"checked"`
	ErrorsBefore int      `json:"errors_before"`
	ErrorsAfter  int      `json:"errors_after"`
	Introduced   int      `json:"introduced"`
}

func checkData(r tool.DiagnosticReport) *check {
	if len(r.Servers) == 0 {
		return nil
	}
	return &check{Servers: r.Servers, Checked: r.Checked, ErrorsBefore: r.ErrorsBefore, ErrorsAfter: r.ErrorsAfter, Introduced: len(r.Introduced)}
}

// withDiagnostics appends the language servers' report to a result.
func withDiagnostics(res tool.Result, env *tool.Env, r tool.DiagnosticReport) tool.Result {
	if text := r.Text(env.Rel); text != "" {
		res.Content = protocol.Text(res.Content.Text() + "\n" + text)
	}
	return res
}

// goParseErrors parses src as a Go file and returns its syntax errors.
func goParseErrors(name, src string) scanner.ErrorList {
	_, err := parser.ParseFile(token.NewFileSet(), name, src, parser.AllErrors|parser.SkipObjectResolution)
	if list, ok := err.(scanner.ErrorList); ok {
		return list
	}
	return nil
}

// parseGate is the pre-write syntax gate of revert_on_parse_errors for
// files this package can parse itself (Go): it returns the refusal text
// when after has more syntax errors than before, else "".
func parseGate(path, before, after string) string {
	if !strings.EqualFold(filepath.Ext(path), ".go") {
		return ""
	}
	old, now := goParseErrors(path, before), goParseErrors(path, after)
	if len(now) <= len(old) {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "rejected: the edit would introduce %d new parse error(s) in %s, so the file was NOT modified.", len(now)-len(old), path)
	for i, e := range now {
		if i == 5 {
			fmt.Fprintf(&b, "\n… and %d more", len(now)-i)
			break
		}
		fmt.Fprintf(&b, "\n%d. line %d:%d: %s", i+1, e.Pos.Line, e.Pos.Column, e.Msg)
	}
	return b.String()
}

// syntaxErrors counts the introduced diagnostics that are syntax errors
// by the words servers use for them (gopls, pyright, tsserver, clangd,
// rust-analyzer).
func syntaxErrors(r tool.DiagnosticReport) int {
	n := 0
	for _, d := range r.Introduced {
		if d.Severity != "error" {
			continue
		}
		src, code, msg := strings.ToLower(d.Source), strings.ToLower(d.Code), strings.ToLower(d.Message)
		if src == "syntax" || strings.Contains(code, "syntax") || strings.HasPrefix(msg, "expected ") ||
			strings.HasPrefix(msg, "syntax error") || strings.Contains(msg, "unexpected token") || strings.HasPrefix(msg, "invalid syntax") {
			n++
		}
	}
	return n
}
