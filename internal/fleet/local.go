package fleet

import (
	"context"
	"errors"
	"fmt"
	"github.com/openseek/openseek/internal/render"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/openseek/openseek/internal/engine"
)

// MaxRuns is the most attempts one best-of-N task may ask for.
const MaxRuns = 32

// LocalOptions configure RunLocal: N attempts of one task on this
// machine, without a queue.
type LocalOptions struct {
	Prompt string
	// Dir is the user's workspace. Inside a git repository each attempt
	// gets a detached worktree of it (with the uncommitted changes and
	// untracked files carried over); elsewhere a copy of Dir.
	Dir         string
	Runs        int
	Concurrency int    // attempts at once (default min(Runs, NumCPU))
	Verify      string // command that must pass; "" = pick by fewest lines
	Judge       bool   // a judging model picks among the candidates
	MaxCost     float64
	// Engine is the template of each attempt's host (Dir, SessionRoot
	// and SessionID are set per attempt).
	Engine engine.Options
	// Root holds this best-of-N task's attempts: run-<k>/ (the workspace,
	// removed afterwards unless Keep), run-<k>.patch and sessions/.
	Root string
	Keep bool
	// Progress receives one line per attempt start and end (nil = none).
	Progress io.Writer
}

// Attempt is one run of a local best-of-N task, as reported.
type Attempt struct {
	Run          int     `json:"run"`
	State        State   `json:"state"`
	Result       string  `json:"result,omitempty"`
	Error        string  `json:"error,omitempty"`
	CostUSD      float64 `json:"cost_usd"`
	CostUnknown  bool    `json:"cost_unknown,omitempty"`
	ChangedLines int     `json:"changed_lines"`
	VerifyOK     *bool   `json:"verify_ok,omitempty"`
	Stat         string  `json:"stat,omitempty"`  // git diff --stat
	Diff         string  `json:"diff,omitempty"`  // cut at 64 KiB
	Patch        string  `json:"patch,omitempty"` // the whole change, for git apply
	Session      string  `json:"session,omitempty"`
	SessionLog   string  `json:"session_log,omitempty"`
	Workspace    string  `json:"workspace,omitempty"` // kept with Keep
	Seconds      float64 `json:"seconds"`
}

// LocalReport is the outcome of RunLocal.
type LocalReport struct {
	Task    string     `json:"task"`
	Dir     string     `json:"dir"`
	ApplyIn string     `json:"apply_in"` // where the chosen patch applies (the repository's top)
	Root    string     `json:"root"`
	Verify  string     `json:"verify,omitempty"`
	Runs    []*Attempt `json:"runs"`
	Chosen  int        `json:"chosen"` // the run number; 0 = none
	By      string     `json:"by,omitempty"`
	Verdict string     `json:"verdict"`
	Warning string     `json:"warning,omitempty"`
	// CostUSD is every attempt's cost plus the judge's.
	CostUSD     float64 `json:"cost_usd"`
	CostUnknown bool    `json:"cost_unknown,omitempty"`
	JudgeCost   float64 `json:"judge_cost_usd,omitempty"`
	Applied     bool    `json:"applied"`
	Seconds     float64 `json:"seconds"`
}

// ChosenRun is the chosen attempt, or nil.
func (r *LocalReport) ChosenRun() *Attempt {
	for _, a := range r.Runs {
		if a.Run == r.Chosen {
			return a
		}
	}
	return nil
}

// CheckRuns says what is wrong with a number of runs.
func CheckRuns(n int) error {
	if n < 1 || n > MaxRuns {
		return fmt.Errorf("--runs must be between 1 and %d, not %d", MaxRuns, n)
	}
	return nil
}

// RunLocal runs o.Runs attempts of the task concurrently, each in its own
// workspace, then chooses one (Choose) and reports all. The user's
// working tree is never touched (see Apply). judge is used when o.Judge
// (nil = EngineJudge over o.Engine).
func RunLocal(ctx context.Context, o LocalOptions, judge JudgeFunc) (*LocalReport, error) {
	if err := CheckRuns(o.Runs); err != nil {
		return nil, err
	}
	if strings.TrimSpace(o.Prompt) == "" {
		return nil, errors.New(`a task is required: openseek run --runs N "what to do"`)
	}
	if o.Concurrency <= 0 {
		o.Concurrency = min(o.Runs, runtime.NumCPU())
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Root, 0o755); err != nil {
		return nil, fmt.Errorf("best-of-N directory %s: %w", o.Root, err)
	}
	src, err := probeSource(ctx, dir)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	rep := &LocalReport{Task: o.Prompt, Dir: dir, ApplyIn: src.top, Root: o.Root, Verify: o.Verify}
	rep.Runs = make([]*Attempt, o.Runs)
	sem := make(chan struct{}, o.Concurrency)
	var wg sync.WaitGroup
	var pmu sync.Mutex
	progress := func(format string, args ...any) {
		if o.Progress != nil {
			pmu.Lock()
			fmt.Fprintf(o.Progress, format+"\n", args...)
			pmu.Unlock()
		}
	}
	for k := 1; k <= o.Runs; k++ {
		a := &Attempt{Run: k}
		rep.Runs[k-1] = a
		// Runs start in order (taking a slot here, not in the goroutine).
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			a.State, a.Error = Cancelled, ctx.Err().Error()
			continue
		}
		wg.Go(func() {
			defer func() { <-sem }()
			progress("run %d: started", k)
			t0 := time.Now()
			runAttempt(ctx, o, src, a)
			a.Seconds = time.Since(t0).Round(time.Millisecond).Seconds()
			progress("run %d: %s", k, summary(a))
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}

	tasks := make([]*Task, len(rep.Runs))
	for i, a := range rep.Runs {
		tasks[i] = &Task{ID: fmt.Sprint(a.Run), Run: a.Run, State: a.State, Result: a.Result, CostUSD: a.CostUSD, CostUnknown: a.CostUnknown, Diff: a.Diff, ChangedLines: a.ChangedLines, VerifyOK: a.VerifyOK}
		rep.CostUSD += a.CostUSD
		rep.CostUnknown = rep.CostUnknown || a.CostUnknown
	}
	if o.Judge {
		if judge == nil {
			eo := o.Engine
			eo.Dir = dir
			judge = EngineJudge(eo)
		}
		if len(tasks) > 1 {
			progress("judging the runs")
		}
	} else {
		judge = nil
	}
	ch := Choose(ctx, o.Prompt, tasks, o.Verify != "", judge)
	rep.JudgeCost = ch.Cost
	rep.CostUSD += ch.Cost
	rep.By, rep.Verdict, rep.Warning = ch.By, ch.Verdict, ch.Warning
	if ch.Best != nil {
		rep.Chosen = ch.Best.Run
	}
	rep.Seconds = time.Since(start).Round(time.Millisecond).Seconds()
	return rep, nil
}

func summary(a *Attempt) string {
	s := string(a.State)
	if a.Error != "" {
		s += ": " + cut(a.Error, 200)
	}
	if a.VerifyOK != nil {
		s += map[bool]string{true: ", verify passed", false: ", verify failed"}[*a.VerifyOK]
	}
	return fmt.Sprintf("%s, %d changed lines, %s", s, a.ChangedLines, render.CostText(a.CostUSD, !a.CostUnknown))
}

// runAttempt makes attempt a's workspace, runs the turn there and records
// its change, the verify command's verdict and its cost.
func runAttempt(ctx context.Context, o LocalOptions, src source, a *Attempt) {
	name := fmt.Sprintf("run-%d", a.Run)
	ws := filepath.Join(o.Root, name)
	base, err := src.workspace(ctx, ws)
	if err != nil {
		a.State, a.Error = Failed, err.Error()
		return
	}
	if !o.Keep {
		defer src.remove(ws)
	} else {
		a.Workspace = ws
	}
	eo := o.Engine
	eo.Dir = filepath.Join(ws, src.rel)
	eo.SessionRoot = filepath.Join(o.Root, "sessions", name)
	eo.IDPrefix = name
	_, err = runTurn(ctx, turnSpec{Engine: eo, Holder: "openseek run --runs", Prompt: o.Prompt, MaxCost: o.MaxCost,
		After: func(ctx context.Context, tr turnResult, check checkFunc) {
			settleAttempt(ctx, o, a, tr, check, ws, base, eo.Dir)
		}})
	if err != nil {
		a.State, a.Error = Failed, err.Error()
	}
}

// settleAttempt records how attempt a's turn ended: its change (diff,
// stat, patch under o.Root), its state and, when it completed, the
// verify command's verdict, run by check in the attempt's sandbox.
func settleAttempt(ctx context.Context, o LocalOptions, a *Attempt, tr turnResult, check checkFunc, ws, base, dir string) {
	a.Session, a.SessionLog, a.CostUSD, a.CostUnknown = tr.Session, tr.LogPath, tr.Cost, tr.CostUnknown
	if ctx.Err() != nil {
		a.State, a.Error = Cancelled, ctx.Err().Error()
		return
	}
	dctx := context.WithoutCancel(ctx)
	diff, lines, err := changes(dctx, ws, base)
	if err != nil {
		a.State, a.Error = Failed, "read the attempt's change: "+err.Error()
		return
	}
	a.Diff, a.ChangedLines = diff, lines
	a.Stat, _ = git(dctx, ws, "diff", "--cached", "--stat", base)
	if lines > 0 || diff != "" {
		full, err := git(dctx, ws, "diff", "--cached", "--binary", base)
		if err == nil {
			a.Patch = filepath.Join(o.Root, fmt.Sprintf("run-%d.patch", a.Run))
			if err := os.WriteFile(a.Patch, []byte(full+"\n"), 0o644); err != nil {
				a.Patch = ""
			}
		}
	}
	switch {
	case tr.Over:
		a.State, a.Error = Failed, fmt.Sprintf("stopped: the cost budget $%g was reached", o.MaxCost)
	case tr.Err != nil:
		a.State, a.Error = Failed, tr.Err.Error()
	case !tr.Out.OK():
		a.State, a.Error = Failed, fmt.Sprintf("the turn ended %s: %s", tr.Out.Kind, tr.Out.Answer)
	default:
		a.State, a.Result = Completed, tr.Out.Answer
	}
	if o.Verify != "" && a.State == Completed {
		ok, _ := check(ctx, dir, o.Verify)
		a.VerifyOK = &ok
	}
}

// source is the user's workspace the attempts start from.
type source struct {
	dir string // the user's directory
	top string // the git repository's top (= dir when not a repository)
	rel string // dir relative to top
	git bool
}

func probeSource(ctx context.Context, dir string) (source, error) {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return source{}, fmt.Errorf("the workspace %s is not a directory", dir)
	}
	s := source{dir: dir, top: dir, rel: "."}
	if top, err := git(ctx, dir, "rev-parse", "--show-toplevel"); err == nil && top != "" {
		if _, err := git(ctx, dir, "rev-parse", "--verify", "HEAD"); err == nil {
			s.git, s.top = true, top
			if real, err := filepath.EvalSymlinks(dir); err == nil {
				dir = real
			}
			if rel, err := filepath.Rel(top, dir); err == nil {
				s.rel = rel
			}
		}
	}
	return s, nil
}

// workspace makes an attempt's workspace at ws and returns the commit its
// changes are measured against. In a repository: a detached worktree of
// the working tree's state (git stash create: HEAD plus the uncommitted
// changes), with the untracked files copied and committed on top.
// Elsewhere: a copy of the directory made a repository of its own.
func (s source) workspace(ctx context.Context, ws string) (string, error) {
	_ = s.remove(ws)
	if !s.git {
		if err := copyTree(s.dir, ws); err != nil {
			return "", fmt.Errorf("copy %s for an attempt: %w", s.dir, err)
		}
		if _, err := git(ctx, ws, "init", "-q"); err != nil {
			return "", err
		}
		return snapshot(ctx, ws)
	}
	rev, err := git(ctx, s.top, "stash", "create")
	if err != nil || rev == "" {
		rev = "HEAD"
	}
	if err := addWorktree(ctx, s.top, ws, rev); err != nil {
		return "", fmt.Errorf("create a worktree of %s: %w", s.top, err)
	}
	untracked, err := git(ctx, s.top, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return "", err
	}
	copied := false
	for _, f := range strings.Split(untracked, "\x00") {
		if f == "" || f == ".openseek" || strings.HasPrefix(f, ".openseek/") {
			continue
		}
		if err := copyFile(filepath.Join(s.top, f), filepath.Join(ws, f)); err != nil {
			return "", fmt.Errorf("copy the untracked file %s: %w", f, err)
		}
		copied = true
	}
	if copied {
		return snapshot(ctx, ws)
	}
	return git(ctx, ws, "rev-parse", "HEAD")
}

// snapshot commits everything in ws (the session directory aside) and
// returns the commit.
func snapshot(ctx context.Context, ws string) (string, error) {
	if _, err := git(ctx, ws, "add", "-A", "--", ".", ":(exclude).openseek"); err != nil {
		return "", err
	}
	if _, err := git(ctx, ws, "-c", "user.name=openseek", "-c", "user.email=openseek@localhost", "-c", "commit.gpgsign=false",
		"commit", "-q", "--no-verify", "--allow-empty", "-m", "openseek run --runs: the workspace as the attempt started"); err != nil {
		return "", err
	}
	return git(ctx, ws, "rev-parse", "HEAD")
}

// remove deletes an attempt's workspace (and its worktree registration).
func (s source) remove(ws string) error {
	if s.git {
		_, _ = git(context.Background(), s.top, "worktree", "remove", "--force", ws)
	}
	return os.RemoveAll(ws)
}

// Apply applies the chosen attempt's patch to the user's working tree
// (git apply in the repository's top, or in the directory).
func Apply(ctx context.Context, rep *LocalReport) error {
	a := rep.ChosenRun()
	switch {
	case a == nil:
		return errors.New("no run was chosen: nothing to apply")
	case a.Patch == "":
		return nil // the chosen run changed nothing
	}
	if _, err := git(ctx, rep.ApplyIn, "apply", "--whitespace=nowarn", a.Patch); err != nil {
		return fmt.Errorf("apply run %d's change to %s: %w (the working tree changed meanwhile?); the patch is %s", a.Run, rep.ApplyIn, err, a.Patch)
	}
	rep.Applied = true
	return nil
}

// copyTree copies the directory src to dst: regular files, directories
// and symbolic links; the session directory (.openseek) and .git are
// left out.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() && (rel == ".openseek" || rel == ".git") {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return copyFile(path, target)
		}
		return nil // sockets, devices: not part of a code base
	})
}

func copyFile(src, dst string) error {
	st, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		link, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(link, dst)
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
