package doctor

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/openseek/openseek/internal/sandbox"
)

// Sandbox checks the OS sandbox the way commands will meet it: it asks the
// kernel what it offers, then builds the default sandbox for workspace
// and runs a command in it. "ok" means sandboxed commands run here, and
// says which of the sandbox's two start paths they take; "fail" says why
// not and that only --no-sandbox is left.
func Sandbox(ctx context.Context, workspace string) Check {
	sup := sandbox.Detect()
	pol := sandbox.DefaultPolicy(workspace)
	if problems := sup.Problems(pol); len(problems) > 0 {
		return Check{Name: "sandbox", Status: "fail", Detail: fmt.Sprintf("%s — %s Commands can only run with --no-sandbox.", sup, strings.Join(problems, " "))}
	}
	start := time.Now()
	if err := pol.Try(ctx); err != nil {
		return Check{Name: "sandbox", Status: "fail", Detail: fmt.Sprintf("%s — building a sandbox and running a command in it failed: %v. Commands can only run with --no-sandbox.", sup, err)}
	}
	_, how := sandbox.StartPath()
	return Check{Name: "sandbox", Status: "ok", Detail: fmt.Sprintf("%s; a command ran in the sandbox in %d ms. %s", sup, time.Since(start).Milliseconds(), how)}
}
