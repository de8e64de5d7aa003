package control

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openseek/openseek/internal/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func run(t *testing.T, tl tool.Tool, args string) (tool.Result, *tool.ArgError) {
	t.Helper()
	res, err := tl.Run(context.Background(), &tool.Env{}, json.RawMessage(args))
	var ae *tool.ArgError
	if err != nil && !errors.As(err, &ae) {
		t.Fatalf("unexpected error %v", err)
	}
	return res, ae
}

func TestFinish(t *testing.T) {
	tests := []struct {
		args    string
		want    string
		control tool.Control
		argErr  bool
	}{
		{`{"answer":"All done: 3 files fixed."}`, "All done: 3 files fixed.", tool.Finish, false},
		{`{"answer":""}`, "", tool.Finish, false},
		{`{}`, "error: finish requires arguments.answer", tool.Respond, true},
		{`{"answer":3}`, "error: finish requires arguments.answer", tool.Respond, true},
		{`"done"`, "error: finish requires object arguments", tool.Respond, true},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			res, ae := run(t, Finish(), tt.args)
			if res.Content.Text() != tt.want || res.Control != tt.control || (ae != nil) != tt.argErr {
				t.Fatalf("got %q control %v argErr %v", res.Content.Text(), res.Control, ae)
			}
		})
	}
}

func TestGoal(t *testing.T) {
	tests := []struct {
		name     string
		args     string
		want     string
		isError  bool
		argErr   bool
		notices  []string
		wantData string
	}{
		{"met", `{"status":"met"}`, "goal status recorded", false, false, []string{"[goal cleared]"}, `{"status":"met"}`},
		{"continuing", `{"status":"continuing","remaining":"write the tests"}`, "goal status recorded", false, false, nil, `{"status":"continuing","remaining":"write the tests"}`},
		{"blocked", `{"status":"blocked","reason":" need an API key \n"}`, "goal status recorded", false, false, []string{"[goal blocked]\nneed an API key"}, `{"status":"blocked","reason":"need an API key"}`},
		{"continuing without remaining", `{"status":"continuing"}`, `error: goal requires a string "remaining" when status is "continuing"`, true, false, nil, ""},
		{"continuing with blank remaining", `{"status":"continuing","remaining":"  "}`, `error: goal requires a string "remaining" when status is "continuing"`, true, false, nil, ""},
		{"blocked without reason", `{"status":"blocked"}`, `error: goal requires a string "reason" when status is "blocked"`, true, false, nil, ""},
		{"unknown status", `{"status":"done"}`, "error: goal requires arguments.status to be one of met, continuing, blocked", true, false, nil, ""},
		{"missing status", `{}`, "error: goal requires arguments.status", true, true, nil, ""},
		{"remaining not a string", `{"status":"continuing","remaining":1}`, "error: goal requires arguments.remaining", true, true, nil, ""},
		{"additional property refused", `{"status":"met","note":"x"}`, "error: goal does not take arguments.note", true, true, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, ae := run(t, Goal(), tt.args)
			if got := res.Content.Text(); got != tt.want {
				t.Fatalf("text = %q, want %q", got, tt.want)
			}
			if res.IsError != tt.isError || (ae != nil) != tt.argErr {
				t.Errorf("IsError %v argErr %v", res.IsError, ae)
			}
			if !slices.Equal(res.Notices, tt.notices) {
				t.Errorf("Notices = %q, want %q", res.Notices, tt.notices)
			}
			if string(res.Data) != tt.wantData {
				t.Errorf("Data = %s, want %s", res.Data, tt.wantData)
			}
			if res.Control != tool.Respond {
				t.Errorf("goal ended the turn")
			}
		})
	}
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name     string
		args     string
		want     string
		isError  bool
		wantData string
		brief    string
	}{
		{"checklist",
			`{"explanation":"found the bug","steps":[{"step":"reproduce","status":"completed"},{"step":"fix","status":"in_progress"},{"step":"test","status":"pending"}]}`,
			"plan updated: 1/3 completed\n[x] reproduce\n[>] fix\n[ ] test", false,
			`{"explanation":"found the bug","steps":[{"step":"reproduce","status":"completed"},{"step":"fix","status":"in_progress"},{"step":"test","status":"pending"}]}`,
			"plan 1/3"},
		{"empty plan", `{"steps":[]}`, "plan updated: 0/0 completed", false, `{"steps":[]}`, "plan 0/0"},
		{"two in progress",
			`{"steps":[{"step":"a","status":"in_progress"},{"step":"b","status":"in_progress"}]}`,
			"error: plan allows at most one in_progress step (got 2)", true, "", "plan"},
		{"bad status", `{"steps":[{"step":"a","status":"done"}]}`,
			"error: plan requires arguments.steps[0].status to be pending, in_progress or completed", true, "", "plan"},
		{"blank step", `{"steps":[{"step":"a","status":"pending"},{"step":" ","status":"pending"}]}`,
			"error: plan requires arguments.steps[1].step to be a non-empty string", true, "", "plan"},
		{"missing steps", `{}`, "error: plan requires arguments.steps", true, "", ""},
		{"steps not an array", `{"steps":"a"}`, "error: plan requires arguments.steps", true, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := run(t, Plan(), tt.args)
			if got := res.Content.Text(); got != tt.want {
				t.Fatalf("text =\n%s\nwant\n%s", got, tt.want)
			}
			if res.IsError != tt.isError || string(res.Data) != tt.wantData || res.Brief != tt.brief {
				t.Errorf("IsError %v Data %s Brief %q", res.IsError, res.Data, res.Brief)
			}
		})
	}
}

func TestSchemasGolden(t *testing.T) {
	for _, tl := range Tools() {
		t.Run(tl.Name, func(t *testing.T) {
			path := filepath.Join("testdata", "schemas", tl.Name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, append(tl.Schema, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(bytes.TrimSuffix(want, []byte("\n")), tl.Schema) {
				t.Errorf("schema differs:\n got %s\nwant %s", tl.Schema, want)
			}
		})
	}
}

// TestGoalSchemaIsTheReference pins goal's schema to the exact bytes of
// openseek-tools.md §8.
func TestGoalSchemaIsTheReference(t *testing.T) {
	const ref = `{"type":"object","properties":{"status":{"type":"string","enum":["met","continuing","blocked"]},"remaining":{"type":"string","description":"Required when status is \"continuing\": one or two lines on what is left to reach the goal."},"reason":{"type":"string","description":"Why the goal cannot proceed; required with status \"blocked\"."}},"required":["status"],"additionalProperties":false}`
	if got := string(Goal().Schema); got != ref {
		t.Fatalf("goal schema\n got %s\nwant %s", got, ref)
	}
}

// TestToolSetSize keeps the control tools lean: their name, description
// and schema are sent with every request.
func TestToolSetSize(t *testing.T) {
	total := 0
	for _, tl := range Tools() {
		total += len(tl.Name) + len(tl.Description) + len(tl.Schema)
	}
	if total > 1500 {
		t.Errorf("control tools cost %d bytes; keep them under 1500", total)
	}
}
