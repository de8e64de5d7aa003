package protocol

import (
	"bufio"
	"encoding/base64"
	"os"
	"reflect"
	"strings"
	"testing"
)

func referenceCommands(t testing.TB) []struct {
	line string
	cmd  Command
} {
	return []struct {
		line string
		cmd  Command
	}{
		{`{"command":"prompt","content":"fix the failing test","submission_id":"sub-7"}`, PromptCmd{Content: Text("fix the failing test"), SubmissionID: ptr("sub-7")}},
		{`{"command":"steer","kind":"prompt","content":"also update the docs"}`, SteerCmd{Kind: SteerPrompt, Content: Text("also update the docs")}},
		{`{"command":"jobs_snapshot","request_id":"req-1"}`, JobsSnapshotCmd{RequestID: "req-1"}},
		{`{"command":"job_stop","request_id":"req-2","generation":"g-20260101","job_id":"bg-3"}`, JobStopCmd{RequestID: "req-2", Generation: "g-20260101", JobID: "bg-3"}},
		{`{"command":"compact"}`, CompactCmd{}},
		{`{"command":"cancel"}`, CancelCmd{}},
		{`{"command":"goal","action":"set","text":"all tests pass","auto":true}`, GoalCmd{Action: GoalSet, Text: "all tests pass", Auto: true}},
		{`{"command":"goal","action":"clear"}`, GoalCmd{Action: GoalClear}},
		{`{"command":"approval","id":"ap-1","allow":true}`, ApprovalCmd{ID: "ap-1", Allow: true}},
		// forms beyond the reference's examples
		{`{"command":"prompt","content":"x"}`, PromptCmd{Content: Text("x")}},
		{`{"command":"prompt","content":[{"type":"text","text":"see"},{"type":"image","media_type":"image/png","data":"` + pngB64 + `"}]}`,
			PromptCmd{Content: Content{{Type: "text", Text: "see"}, {Type: "image", MediaType: "image/png", Data: mustB64(t, pngB64)}}}},
		{`{"command":"steer","kind":"command","content":"/compact","submission_id":"s-1"}`, SteerCmd{Kind: SteerCommand, Content: Text("/compact"), SubmissionID: ptr("s-1")}},
		{`{"command":"goal","action":"set","text":""}`, GoalCmd{Action: GoalSet}},
		{`{"command":"approval","id":"ap-2","allow":false}`, ApprovalCmd{ID: "ap-2"}},
		{`{"command":"network_allow","host":"*.example.com:443"}`, NetworkAllowCmd{Host: "*.example.com:443"}},
		{`{"command":"network_allow"}`, NetworkAllowCmd{}},
	}
}

func TestCommandRoundTrip(t *testing.T) {
	for _, tc := range referenceCommands(t) {
		t.Run(tc.line, func(t *testing.T) {
			if got := string(EmitCommand(tc.cmd)); got != tc.line {
				t.Errorf("EmitCommand:\n got %s\nwant %s", got, tc.line)
			}
			parsed, err := ParseCommand([]byte(tc.line))
			if err != nil || !reflect.DeepEqual(parsed, tc.cmd) {
				t.Fatalf("ParseCommand = %#v, %v; want %#v", parsed, err, tc.cmd)
			}
			if got := string(EmitCommand(parsed)); got != tc.line {
				t.Errorf("EmitCommand(ParseCommand(line)) = %s", got)
			}
		})
	}
}

func TestCommandReferenceCovered(t *testing.T) {
	f, err := os.Open("testdata/reference-commands.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	have := map[string]bool{}
	for _, tc := range referenceCommands(t) {
		have[tc.line] = true
	}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		if !have[sc.Text()] {
			t.Errorf("reference line missing from the table: %s", sc.Text())
		}
	}
	if n != 9 {
		t.Errorf("read %d reference command lines, want 9", n)
	}
}

func TestParseCommandDefaultsAndLegacy(t *testing.T) {
	png := mustB64(t, pngB64)
	url := "data:image/png;base64," + pngB64
	for _, tc := range []struct {
		line string
		want Command
	}{
		{`{"command":"steer","content":"x"}`, SteerCmd{Kind: SteerPrompt, Content: Text("x")}},
		{`{"command":"prompt","text":"hi"}`, PromptCmd{Content: Text("hi")}},
		{`{"command":"prompt","text":"hi","submission_id":"s"}`, PromptCmd{Content: Text("hi"), SubmissionID: ptr("s")}},
		{`{"command":"prompt","text":"hi","images":[]}`, PromptCmd{Content: Text("hi")}},
		{`{"command":"prompt","text":"hi","images":["` + url + `","` + url + `"]}`,
			PromptCmd{Content: Content{{Type: "text", Text: "hi"}, {Type: "image", MediaType: "image/png", Data: png}, {Type: "image", MediaType: "image/png", Data: png}}}},
		{`{"command":"steer","kind":"command","text":"/x"}`, SteerCmd{Kind: SteerCommand, Content: Text("/x")}},
		{`{"command":"prompt","content":"new","text":"old"}`, PromptCmd{Content: Text("new")}},
		{`{"command":"goal","action":"set","text":"t","auto":"true"}`, GoalCmd{Action: GoalSet, Text: "t"}},
		{`{"command":"goal","action":"set","text":"t","auto":1}`, GoalCmd{Action: GoalSet, Text: "t"}},
		{`{"command":"goal","action":"set","text":"t","auto":false}`, GoalCmd{Action: GoalSet, Text: "t"}},
		{`{"command":"goal","action":"clear","text":"ignored","auto":true}`, GoalCmd{Action: GoalClear}},
		{`{"command":"cancel","extra":{"x":1},"timestamp":"now"}`, CancelCmd{}},
		{"  {\"command\" : \"compact\"}\r\n", CompactCmd{}},
	} {
		got, err := ParseCommand([]byte(tc.line))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseCommand(%.80s) = %#v, %v; want %#v", tc.line, got, err, tc.want)
		}
	}
}

func TestParseCommandErrors(t *testing.T) {
	badURL := "data:image/png;base64," + strings.TrimRight(pngB64, "=")
	jpegURL := "data:image/jpeg;base64," + pngB64
	for _, tc := range []struct{ line, want string }{
		{``, `expected a {"command": ...} object`},
		{`[]`, `expected a {"command": ...} object`},
		{`"prompt"`, `expected a {"command": ...} object`},
		{`null`, `expected a {"command": ...} object`},
		{`{"command":"prompt"`, `expected a {"command": ...} object`},
		{`{}`, `expected a {"command": ...} object`},
		{`{"command":null}`, `expected a {"command": ...} object`},
		{`{"command":1}`, `expected a {"command": ...} object`},
		{`{"command":"reboot"}`, `unknown command: reboot`},
		{`{"command":""}`, `unknown command: `},
		{`{"command":"fleet"}`, `unknown command: fleet`},
		{`{"command":"network_allow","host":1}`, `expected a string "host" field`},
		// prompt: content first, then submission_id
		{`{"command":"prompt"}`, `expected a string "text" field`},
		{`{"command":"prompt","text":null}`, `expected a string "text" field`},
		{`{"command":"prompt","text":1,"submission_id":1}`, `expected a string "text" field`},
		{`{"command":"prompt","content":null}`, `invalid content: expected content string or array`},
		{`{"command":"prompt","content":{}}`, `invalid content: expected content string or array`},
		{`{"command":"prompt","content":[1]}`, `invalid content: expected content part object`},
		{`{"command":"prompt","content":[{"type":"audio"}]}`, `invalid content: unknown content part type`},
		{`{"command":"prompt","content":[{"type":"image","media_type":"image/gif","data":"` + pngB64 + `"}]}`,
			`invalid content: invalid image: image declares image/gif but bytes identify image/png`},
		{`{"command":"prompt","content":"x","submission_id":null}`, `expected a string "submission_id" field`},
		{`{"command":"prompt","content":"x","submission_id":7}`, `expected a string "submission_id" field`},
		{`{"command":"prompt","text":"x","images":null}`, `expected an array of image URLs`},
		{`{"command":"prompt","text":"x","images":"` + badURL + `"}`, `expected an array of image URLs`},
		{`{"command":"prompt","text":"x","images":[1]}`, `expected an array of image URLs`},
		{`{"command":"prompt","text":"x","images":["` + badURL + `"]}`, `image data must be canonical padded base64`},
		{`{"command":"prompt","text":"x","images":["` + jpegURL + `"]}`, `image declares image/jpeg but bytes identify image/png`},
		{`{"command":"prompt","text":"x","images":["http://x/a.png"]}`, `image data must be canonical padded base64`},
		// steer: submission_id first, then content, then kind
		{`{"command":"steer","submission_id":null}`, `expected a string "submission_id" field`},
		{`{"command":"steer","kind":5}`, `expected a string "text" field`},
		{`{"command":"steer","content":"x","kind":null}`, `expected a string "kind" field`},
		{`{"command":"steer","content":"x","kind":5}`, `expected a string "kind" field`},
		{`{"command":"steer","content":"x","kind":"notice"}`, `unknown steer kind: notice`},
		{`{"command":"steer","content":"x","kind":"Prompt"}`, `unknown steer kind: Prompt`},
		{`{"command":"steer","content":5,"kind":"notice"}`, `invalid content: expected content string or array`},
		// jobs
		{`{"command":"jobs_snapshot"}`, `invalid background job command`},
		{`{"command":"jobs_snapshot","request_id":""}`, `invalid background job command`},
		{`{"command":"jobs_snapshot","request_id":1}`, `invalid background job command`},
		{`{"command":"job_stop","request_id":"r","generation":"g"}`, `invalid background job command`},
		{`{"command":"job_stop","request_id":"","generation":"g","job_id":"j"}`, `invalid background job command`},
		{`{"command":"job_stop","request_id":"r","generation":"..","job_id":"j"}`, `invalid background job command`},
		{`{"command":"job_stop","request_id":"r","generation":"g","job_id":"a/b"}`, `invalid background job command`},
		{`{"command":"job_stop","request_id":"r","generation":"g","job_id":5}`, `invalid background job command`},
		// goal
		{`{"command":"goal"}`, `expected {"action": "set", "text": ...} or {"action": "clear"}`},
		{`{"command":"goal","action":"set"}`, `expected {"action": "set", "text": ...} or {"action": "clear"}`},
		{`{"command":"goal","action":"set","text":null}`, `expected {"action": "set", "text": ...} or {"action": "clear"}`},
		{`{"command":"goal","action":"reset","text":"x"}`, `expected {"action": "set", "text": ...} or {"action": "clear"}`},
		// approval
		{`{"command":"approval","id":"ap-1"}`, `expected a boolean "allow" field`},
		{`{"command":"approval","id":"ap-1","allow":"yes"}`, `expected a boolean "allow" field`},
		{`{"command":"approval","id":"ap-1","allow":null}`, `expected a boolean "allow" field`},
		{`{"command":"approval","allow":true}`, `expected a string "id" field`},
		{`{"command":"approval","id":1,"allow":true}`, `expected a string "id" field`},
		{`{"command":"approval"}`, `expected a string "id" field`},
	} {
		cmd, err := ParseCommand([]byte(tc.line))
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseCommand(%.80s)\n got %#v, %v\nwant error %q", tc.line, cmd, err, tc.want)
		}
	}
}

func TestParseCommandImageTooLarge(t *testing.T) {
	huge := strings.Repeat("A", maxImageBase64+4)
	for _, line := range []string{
		`{"command":"prompt","content":[{"type":"image","media_type":"image/png","data":"` + huge + `"}]}`,
		`{"command":"prompt","text":"x","images":["data:image/png;base64,` + huge + `"]}`,
	} {
		_, err := ParseCommand([]byte(line))
		if err == nil || !strings.HasSuffix(err.Error(), "image exceeds the 5 MiB limit") {
			t.Errorf("huge image: %v", err)
		}
	}
	// the same bytes within the limit are fine
	ok := base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 1024)...))
	if _, err := ParseCommand([]byte(`{"command":"prompt","text":"x","images":["data:image/png;base64,` + ok + `"]}`)); err != nil {
		t.Errorf("small image: %v", err)
	}
}

func TestEmitCommandDefaults(t *testing.T) {
	for _, tc := range []struct {
		cmd  Command
		want string
	}{
		{SteerCmd{Content: Text("x")}, `{"command":"steer","kind":"prompt","content":"x"}`},
		{PromptCmd{}, `{"command":"prompt","content":[]}`},
		{GoalCmd{Action: GoalSet, Text: "t"}, `{"command":"goal","action":"set","text":"t"}`},
		{GoalCmd{Action: GoalClear, Text: "ignored", Auto: true}, `{"command":"goal","action":"clear"}`},
	} {
		if got := string(EmitCommand(tc.cmd)); got != tc.want {
			t.Errorf("EmitCommand(%#v) = %s, want %s", tc.cmd, got, tc.want)
		}
	}
}
