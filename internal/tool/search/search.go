// Package search holds the read-only tools the model finds its way with:
// grep (RE2 regular expressions over file contents), glob (file names by
// doublestar pattern) and list (a directory tree).
//
// Invariants:
//   - Paths go through tool.Env.Resolve; results are relative to the
//     workspace with forward slashes, in path order, so the same search
//     gives the same bytes.
//   - What git would ignore is skipped: .gitignore and .ignore files at
//     every level (nested, with "!" negations) and .git/info/exclude, as
//     well as hidden entries (unless the path or pattern names one),
//     .git, symbolic links (never followed) and binary files (a NUL byte).
//   - Output is bounded (lines, and 24 KB) and a cut result ends with a
//     "<system>showing N of M …</system>" footer.
//   - The walk and the search run in parallel; a literal every match must
//     contain is found with bytes.Index before the regexp runs, which keeps
//     grep near ripgrep's speed (BenchmarkGoSource).
package search

import "github.com/openseek/openseek/internal/tool"

// Tools returns glob, grep and list.
func Tools() []tool.Tool {
	return []tool.Tool{Glob(), Grep(), List()}
}
