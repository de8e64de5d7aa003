// Package ghaction is the program behind the repository's GitHub Action
// (action.yml, .github/action): it runs `openseek run --format json` on a
// task, or `openseek review`, in the checked-out pull request, and posts
// the result as a comment on the pull request through the GitHub REST
// API. Its exit status is openseek's, so a failed run fails the step.
package ghaction

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/openseek/openseek/internal/review"
	"github.com/openseek/openseek/protocol"
)

// Marker starts every comment the action posts.
const Marker = "<!-- openseek-action -->"

// Inputs are the action's inputs and the GitHub context, read from the
// environment the runner gives a step.
type Inputs struct {
	Mode       string   // "task" or "review"
	Task       string   // the task (mode task)
	Base       string   // review: the base ref (default origin/<the pull request's base>)
	Args       []string // extra openseek flags, before the subcommand
	Openseek   string   // the openseek binary
	Token      string
	APIURL     string
	Repository string // owner/name
	PR         int
	BaseRef    string // the pull request's base branch
	Output     string // $GITHUB_OUTPUT, "" when unset
	Workspace  string // $GITHUB_WORKSPACE, where openseek runs ("" = here)
}

// ReadInputs reads the inputs from getenv and the pull request from the
// event file the runner names (GITHUB_EVENT_PATH).
func ReadInputs(getenv func(string) string) (Inputs, error) {
	in := Inputs{
		Mode:       cmp.Or(getenv("INPUT_MODE"), "task"),
		Task:       strings.TrimSpace(getenv("INPUT_TASK")),
		Base:       getenv("INPUT_BASE"),
		Args:       strings.Fields(getenv("INPUT_ARGS")),
		Openseek:   cmp.Or(getenv("OPENSEEK_BIN"), "openseek"),
		Token:      getenv("GITHUB_TOKEN"),
		APIURL:     strings.TrimRight(cmp.Or(getenv("GITHUB_API_URL"), "https://api.github.com"), "/"),
		Repository: getenv("GITHUB_REPOSITORY"),
		Output:     getenv("GITHUB_OUTPUT"),
		Workspace:  getenv("GITHUB_WORKSPACE"),
	}
	switch {
	case in.Mode != "task" && in.Mode != "review":
		return in, fmt.Errorf("input mode must be task or review, not %q", in.Mode)
	case in.Mode == "task" && in.Task == "":
		return in, errors.New("input task is required in mode task")
	case in.Token == "":
		return in, errors.New("GITHUB_TOKEN is not set: pass github-token (the default is the workflow's token)")
	case !strings.Contains(in.Repository, "/"):
		return in, fmt.Errorf("GITHUB_REPOSITORY must be owner/name, not %q", in.Repository)
	}
	data, err := os.ReadFile(getenv("GITHUB_EVENT_PATH"))
	if err != nil {
		return in, fmt.Errorf("read the event (GITHUB_EVENT_PATH): %w", err)
	}
	var ev struct {
		Number      int `json:"number"`
		PullRequest *struct {
			Number int `json:"number"`
			Base   struct {
				Ref string `json:"ref"`
			} `json:"base"`
		} `json:"pull_request"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return in, fmt.Errorf("read the event: %w", err)
	}
	if ev.PullRequest == nil {
		return in, errors.New("the workflow's event is not a pull request: run the action on pull_request or pull_request_target")
	}
	in.PR, in.BaseRef = cmp.Or(ev.PullRequest.Number, ev.Number), ev.PullRequest.Base.Ref
	if in.Base == "" && in.BaseRef != "" {
		in.Base = "origin/" + in.BaseRef
	}
	return in, nil
}

// Main runs the action: openseek with env as its environment, then the
// comment. It returns the exit status.
func Main(ctx context.Context, getenv func(string) string, env []string, stderr io.Writer) int {
	in, err := ReadInputs(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "openseek action: %v\n", err)
		return 1
	}
	body, code, err := Run(ctx, in, env, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "openseek action: %v\n", err)
		return 1
	}
	if err := PostComment(ctx, in, body); err != nil {
		fmt.Fprintf(stderr, "openseek action: %v\n", err)
		return 1
	}
	if in.Output != "" {
		if f, err := os.OpenFile(in.Output, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644); err == nil {
			fmt.Fprintf(f, "exit-code=%d\n", code)
			f.Close()
		}
	}
	return code
}

// Run runs openseek and returns the comment and openseek's exit status.
func Run(ctx context.Context, in Inputs, env []string, stderr io.Writer) (comment string, code int, err error) {
	args := append([]string{}, in.Args...)
	if in.Mode == "review" {
		args = append(args, "review", "--format", "json")
		if in.Base != "" {
			args = append(args, "--base", in.Base)
		}
	} else {
		args = append(args, "run", "--format", "json", "--", in.Task)
	}
	cmd := exec.CommandContext(ctx, in.Openseek, args...)
	cmd.Env, cmd.Dir = env, in.Workspace
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, stderr
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		return "", 0, fmt.Errorf("run %s: %w", in.Openseek, err)
	}
	if in.Mode == "review" {
		return reviewComment(out.Bytes(), code), code, nil
	}
	return taskComment(in.Task, out.Bytes(), code), code, nil
}

// exitMeaning is docs/scripting-ci.md's wording of run's exit statuses.
func exitMeaning(code int) string {
	switch code {
	case 0:
		return "done"
	case 1:
		return "usage error or the run could not start"
	case 2:
		return "the turn failed"
	case 3:
		return "the model or provider failed"
	case 4:
		return "the prompt was refused"
	case 5:
		return "a limit was hit"
	case 130:
		return "interrupted"
	}
	return "failed"
}

func taskComment(task string, out []byte, code int) string {
	var b strings.Builder
	b.WriteString(Marker + "\n")
	var res protocol.RunResult
	if json.Unmarshal(bytes.TrimSpace(out), &res) != nil || res.Version != 1 {
		fmt.Fprintf(&b, "### OpenSeek: the run ended without a result (exit %d: %s)\n\n> %s\n", code, exitMeaning(code), quote(task))
		return b.String()
	}
	if code == 0 {
		fmt.Fprintf(&b, "### OpenSeek: %s\n\n", res.Status)
	} else {
		fmt.Fprintf(&b, "### OpenSeek: %s (exit %d: %s)\n\n", res.Status, code, exitMeaning(code))
	}
	fmt.Fprintf(&b, "> %s\n\n", quote(task))
	switch {
	case res.Answer != nil:
		b.WriteString(strings.TrimSpace(*res.Answer) + "\n")
	case res.Reason != nil:
		b.WriteString("```\n" + strings.TrimSpace(*res.Reason) + "\n```\n")
	}
	if len(res.Warnings) > 0 {
		b.WriteString("\n**Warnings**\n\n")
		for _, w := range res.Warnings {
			b.WriteString("- ⚠️ " + w + "\n")
		}
	}
	b.WriteString("\n<sub>")
	if res.Session != nil {
		fmt.Fprintf(&b, "session `%s` · ", *res.Session)
	}
	fmt.Fprintf(&b, "%d steps · %d tokens · ", res.Steps, res.Usage.TotalTokens)
	if res.CostUSD != nil {
		fmt.Fprintf(&b, "$%.4f", *res.CostUSD)
	} else {
		b.WriteString("cost unknown")
	}
	fmt.Fprintf(&b, " · %.1fs</sub>\n", float64(res.DurationMs)/1000)
	return b.String()
}

func reviewComment(out []byte, code int) string {
	var b strings.Builder
	b.WriteString(Marker + "\n")
	var rep review.Report
	if code != 0 || json.Unmarshal(bytes.TrimSpace(out), &rep) != nil || rep.Verdict == "" {
		fmt.Fprintf(&b, "### OpenSeek review: no report (exit %d: %s)\n", code, exitMeaning(code))
		return b.String()
	}
	fmt.Fprintf(&b, "### OpenSeek review: %s\n\n", strings.ReplaceAll(rep.Verdict, "_", " "))
	if rep.Summary != "" {
		b.WriteString(strings.TrimSpace(rep.Summary) + "\n\n")
	}
	if len(rep.Findings) == 0 {
		b.WriteString("No findings.\n")
	}
	for _, f := range rep.Findings {
		where := fmt.Sprintf("%s:%d", f.File, f.LineStart)
		if f.LineEnd > f.LineStart {
			where += fmt.Sprintf("-%d", f.LineEnd)
		}
		fmt.Fprintf(&b, "- **%s** `%s` %s\n", f.Severity, where, f.Title)
		if body := strings.TrimSpace(f.Body); body != "" {
			b.WriteString("  " + strings.ReplaceAll(body, "\n", "\n  ") + "\n")
		}
	}
	return b.String()
}

// quote keeps a task on one quoted line.
func quote(s string) string { return strings.Join(strings.Fields(s), " ") }

// PostComment adds body as a comment on the pull request.
func PostComment(ctx context.Context, in Inputs, body string) error {
	payload, _ := json.Marshal(map[string]string{"body": body})
	url := fmt.Sprintf("%s/repos/%s/issues/%d/comments", in.APIURL, in.Repository, in.PR)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+in.Token)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("post the comment: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
		return fmt.Errorf("post the comment: %s: %s", resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}
