package protocol

import (
	"bufio"
	"bytes"
	"os"
	"reflect"
	"testing"
)

// referenceEvents pairs every example line of the reference (§4.3, §5) with
// the value it stands for.
func referenceEvents(t testing.TB) []struct {
	line string
	ev   Event
} {
	png := mustB64(t, pngB64)
	return []struct {
		line string
		ev   Event
	}{
		{`{"event":"command_error","error":"unknown command: reboot"}`, CommandError{Error: "unknown command: reboot"}},
		{`{"event":"agent_setup_failed","error":"an API key is required"}`, AgentSetupFailed{Error: "an API key is required"}},
		{`{"event":"agent_step","step":1}`, AgentStep{Step: 1}},
		{`{"event":"stream_retry","attempt":2,"max_attempts":5,"reason":"connection reset"}`, StreamRetry{Attempt: 2, MaxAttempts: 5, Reason: "connection reset"}},
		{`{"event":"agent_aborted","reason":"interrupted"}`, AgentAborted{Reason: "interrupted"}},
		{`{"event":"agent_finished","answer":"done"}`, AgentFinished{Answer: "done"}},
		{`{"event":"max_steps_exhausted"}`, MaxStepsExhausted{}},
		{`{"event":"turn_failed","error":"agent failed: boom"}`, TurnFailed{Error: "agent failed: boom"}},
		{`{"event":"assistant_delta","content":"Hel"}`, AssistantDelta{Content: "Hel"}},
		{`{"event":"reasoning_delta","content":"thinking"}`, ReasoningDelta{Content: "thinking"}},
		{`{"event":"assistant_message","content":"Hello"}`, AssistantMessage{Content: "Hello"}},
		{`{"event":"reasoning_message","content":"thinking"}`, ReasoningMessage{Content: "thinking"}},
		{`{"event":"usage","usage":{"prompt_tokens":11,"completion_tokens":22,"total_tokens":33,"prompt_cache_hit_tokens":4,"prompt_cache_miss_tokens":7}}`,
			UsageEvent{Usage: Usage{PromptTokens: 11, CompletionTokens: 22, TotalTokens: 33, PromptCacheHitTokens: 4, PromptCacheMissTokens: 7}}},
		{`{"event":"tool_result","tool_call_id":"call_1","tool_name":"read","is_error":false,"content":"file body","brief":"read moon.mod"}`,
			ToolResult{ToolCallID: "call_1", ToolName: "read", Content: "file body", Brief: ptr("read moon.mod")}},
		{`{"event":"tool_result","tool_call_id":"call_2","tool_name":"shell","is_error":true,"content":"exit 1","brief":null}`,
			ToolResult{ToolCallID: "call_2", ToolName: "shell", IsError: true, Content: "exit 1"}},
		{`{"event":"tool_call_decode_error","tool_call_id":"call_3","tool_name":"edit","error":"bad args"}`,
			ToolCallDecodeError{ToolCallID: "call_3", ToolName: "edit", Error: "bad args"}},
		{`{"event":"approval_requested","id":"ap-1","tool_name":"mbtx","detail":"run without the sandbox policy","body":"fn main { println(1) }"}`,
			ApprovalRequested{ID: "ap-1", ToolName: "mbtx", Detail: "run without the sandbox policy", Body: ptr("fn main { println(1) }")}},
		{`{"event":"approval_requested","id":"ap-2","tool_name":"mbtx","detail":"run without the sandbox policy","body":null}`,
			ApprovalRequested{ID: "ap-2", ToolName: "mbtx", Detail: "run without the sandbox policy"}},
		{`{"event":"approval_resolved","id":"ap-1","outcome":"allowed_once"}`, ApprovalResolved{ID: "ap-1", Outcome: ApprovalAllowedOnce}},
		{`{"event":"approval_requested","id":"ap-3","tool_name":"shell","detail":"needs the network","body":"git push origin a","prefixes":["git push","curl"]}`,
			ApprovalRequested{ID: "ap-3", ToolName: "shell", Detail: "needs the network", Body: ptr("git push origin a"), Prefixes: []string{"git push", "curl"}}},
		{`{"event":"approval_resolved","id":"ap-3","outcome":"rejected","reason":"use the staging remote"}`,
			ApprovalResolved{ID: "ap-3", Outcome: ApprovalRejected, Reason: "use the staging remote"}},
		{`{"event":"steer_applied","kind":"prompt","content":"also fix docs","submission_id":"sub-8"}`,
			SteerApplied{Kind: SteerPrompt, Content: Text("also fix docs"), SubmissionID: ptr("sub-8")}},
		{`{"event":"steer_applied","kind":"notice","content":"job bg-2 exited"}`, SteerApplied{Kind: SteerNotice, Content: Text("job bg-2 exited")}},
		{`{"event":"steer_dropped","content":[{"type":"text","text":"see this"},{"type":"image","media_type":"image/png","data":"` + pngB64 + `"}]}`,
			SteerDropped{Content: Content{{Type: "text", Text: "see this"}, {Type: "image", MediaType: "image/png", Data: png}}}},
		{`{"event":"background_notice","content":"job 2 exited"}`, BackgroundNotice{Content: "job 2 exited"}},
		{`{"event":"job_changed","kind":"started","job":{"schema_version":1,"cleanup_error":null,"generation":"g1","id":"bg-1","revision":1,"command":"moon test","description":null,"cwd":"/w","state":{"kind":"running"},"started_at_ms":1758700001000,"backgrounded_at_ms":1758700006000,"finished_at_ms":null,"last_output_at_ms":null,"output_file":"bg-1.log","output_persistent":true,"output_bytes":0,"output_chars":0,"output_truncated":false,"invalid_utf8":false,"output_error":null,"persistence_error":null}}`,
			JobChanged{Kind: JobEventStarted, Job: JobRecord{Generation: "g1", ID: "bg-1", Revision: 1, Command: "moon test", Cwd: ptr("/w"),
				State: JobState{Kind: JobStateRunning}, StartedAtMs: 1758700001000, BackgroundedAtMs: 1758700006000,
				OutputFile: ptr("bg-1.log"), OutputPersistent: true}}},
		{`{"event":"jobs_snapshot","request_id":"req-1","jobs":[]}`, JobsSnapshot{RequestID: "req-1", Jobs: []JobRecord{}}},
		{`{"event":"job_stop_result","request_id":"req-2","generation":"g1","job_id":"bg-1","outcome":"stopped"}`,
			JobStopResult{RequestID: "req-2", Generation: "g1", JobID: "bg-1", Outcome: JobStopStopped}},
		{`{"event":"goal_updated","goal":"ship it"}`, GoalUpdated{Goal: ptr("ship it")}},
		{`{"event":"goal_updated","goal":null}`, GoalUpdated{}},
		{`{"event":"goal_blocked","reason":"needs a key"}`, GoalBlocked{Reason: "needs a key"}},
		{`{"event":"goal_unblocked"}`, GoalUnblocked{}},
		{`{"event":"goal_check","content":"is it met?"}`, GoalCheck{Content: "is it met?"}},
		{`{"event":"goal_reminder","content":"remember the goal"}`, GoalReminder{Content: "remember the goal"}},
		{`{"event":"goal_continue","remaining":4}`, GoalContinue{Remaining: 4}},
		{`{"event":"goal_budget_exhausted","turns":20}`, GoalBudgetExhausted{Turns: 20}},
		{`{"event":"plan_reminder","content":"update the plan"}`, PlanReminder{Content: "update the plan"}},
		{`{"event":"compaction_started","from_sequence":1,"to_sequence":9}`, CompactionStarted{FromSequence: 1, ToSequence: 9}},
		{`{"event":"compaction_finished","from_sequence":1,"to_sequence":9,"summary":"recap"}`, CompactionFinished{FromSequence: 1, ToSequence: 9, Summary: "recap"}},
		{`{"event":"compaction_failed","error":"cancelled"}`, CompactionFailed{Error: "cancelled"}},
		{`{"event":"auto_compaction_started","from_sequence":1,"to_sequence":12}`, AutoCompactionStarted{FromSequence: 1, ToSequence: 12}},
		{`{"event":"auto_compaction_finished","from_sequence":1,"to_sequence":12,"summary":"recap"}`, AutoCompactionFinished{FromSequence: 1, ToSequence: 12, Summary: "recap"}},
		{`{"event":"auto_compaction_failed","error":"summary boom"}`, AutoCompactionFailed{Error: "summary boom"}},
		{`{"event":"context_yield","to_sequence":30,"answer":"[context ceiling] This turn reached the model's context window and was checkpointed."}`,
			ContextYield{ToSequence: 30, Answer: "[context ceiling] This turn reached the model's context window and was checkpointed."}},
		{`{"event":"subrun_started","id":"sr-1","kind":"review","label":"goal review"}`, SubrunStarted{ID: "sr-1", Kind: "review", Label: "goal review"}},
		{`{"event":"subrun_finished","id":"sr-1","status":"captured","steps":12,"prompt_tokens":34000,"completion_tokens":5600}`,
			SubrunFinished{ID: "sr-1", Status: SubrunCaptured, Steps: 12, PromptTokens: 34000, CompletionTokens: 5600}},
		{`{"event":"subrun_finished","id":"sr-2","status":"cancelled","steps":3,"prompt_tokens":0,"completion_tokens":0,"unaccounted":"cancelled before the result was read"}`,
			SubrunFinished{ID: "sr-2", Status: SubrunCancelled, Steps: 3, Unaccounted: ptr("cancelled before the result was read")}},
		{`{"event":"workflow_started","id":"wf-1","journal":"/w/.openseek/wf-1/journal.jsonl","events":"/w/.openseek/wf-1/events.jsonl","first_child":1,"child_count":3}`,
			WorkflowStarted{ID: "wf-1", Journal: "/w/.openseek/wf-1/journal.jsonl", Events: "/w/.openseek/wf-1/events.jsonl", FirstChild: 1, ChildCount: 3}},
		{`{"event":"workflow_finished","id":"wf-1"}`, WorkflowFinished{ID: "wf-1"}},
		{`{"event":"session_started","session":"cli-20260101-120000-000","session_root":".openseek","workspace_root":"/w"}`,
			SessionStarted{Session: "cli-20260101-120000-000", SessionRoot: ".openseek", WorkspaceRoot: ptr("/w")}},
		{`{"event":"session_error","error":"failed to append user"}`, SessionError{Error: "failed to append user"}},
		{`{"event":"workspace_created","dir":"/w/new"}`, WorkspaceCreated{Dir: "/w/new"}},
		{`{"event":"command_error","error":"expected a string \"text\" field"}`, CommandError{Error: `expected a string "text" field`}},
		{`{"event":"mcp_config_ignored","reason":"fleet mode does not support MCP servers"}`, McpConfigIgnored{Reason: "fleet mode does not support MCP servers"}},
		{`{"event":"mcp_config_unreadable","path":"/mcp.json","error":"no such file"}`, McpConfigUnreadable{Path: "/mcp.json", Error: "no such file"}},
		{`{"event":"mcp_config_invalid","path":"/mcp.json","error":"bad shape"}`, McpConfigInvalid{Path: "/mcp.json", Error: "bad shape"}},
		{`{"event":"mcp_tools_registered","servers":2,"tools":3,"names":["a","b","c"]}`, McpToolsRegistered{Servers: 2, Tools: 3, Names: []string{"a", "b", "c"}}},
		{`{"event":"mcp_tool_duplicate","server":"fs","tool":"read"}`, McpToolDuplicate{Server: "fs", Tool: "read"}},
		{`{"event":"mcp_tool_renamed","from":"read","to":"fs_read"}`, McpToolRenamed{From: "read", To: "fs_read"}},
		{`{"event":"mcp_tools_capped","server":"fs","kept":64}`, McpToolsCapped{Server: "fs", Kept: 64}},
		{`{"event":"mcp_server_skipped_over_cap","server":"fs"}`, McpServerSkippedOverCap{Server: "fs"}},
		{`{"event":"mcp_connect_failed","server":"fs","error":"spawn failed"}`, McpConnectFailed{Server: "fs", Error: "spawn failed"}},
		{`{"event":"mcp_list_tools_failed","server":"fs","error":"timeout"}`, McpListToolsFailed{Server: "fs", Error: "timeout"}},
		{`{"event":"mcp_list_tools_timeout","server":"fs"}`, McpListToolsTimeout{Server: "fs"}},
		{`{"event":"mcp_no_tools","server":"fs"}`, McpNoTools{Server: "fs"}},
	}
}

func TestEventReferenceRoundTrip(t *testing.T) {
	for _, tc := range referenceEvents(t) {
		t.Run(tc.ev.EventName(), func(t *testing.T) {
			if got := string(Emit(tc.ev)); got != tc.line {
				t.Errorf("Emit:\n got %s\nwant %s", got, tc.line)
			}
			parsed, ok := ParseEvent([]byte(tc.line))
			if !ok {
				t.Fatalf("ParseEvent(%s) = not an event", tc.line)
			}
			if !reflect.DeepEqual(parsed, tc.ev) {
				t.Errorf("ParseEvent:\n got %#v\nwant %#v", parsed, tc.ev)
			}
			if again, ok := ParseEvent(Emit(tc.ev)); !ok || !reflect.DeepEqual(again, tc.ev) {
				t.Errorf("ParseEvent(Emit(e)) = %#v, %v", again, ok)
			}
			if got := string(Emit(parsed)); got != tc.line {
				t.Errorf("Emit(ParseEvent(line)):\n got %s\nwant %s", got, tc.line)
			}
		})
	}
}

// TestEventReferenceCovered checks the table against the example lines
// copied from the reference, so no variant is left without a round trip.
func TestEventReferenceCovered(t *testing.T) {
	want := map[string]bool{}
	f, err := os.Open("testdata/reference-events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		want[sc.Text()] = true
	}
	names := map[string]bool{}
	for _, tc := range referenceEvents(t) {
		delete(want, tc.line)
		names[tc.ev.EventName()] = true
	}
	for line := range want {
		t.Errorf("reference line missing from the table: %s", line)
	}
	if len(names) != 57 {
		t.Errorf("table covers %d event names, want all 57", len(names))
	}
}

func TestParseEventNotAnEvent(t *testing.T) {
	for _, line := range []string{
		``,
		`   `,
		`null`,
		`[]`,
		`"agent_step"`,
		`{"event":"agent_step","step":1`,
		`{"event":"agent_step","step":1}x`,
		`{}`,
		`{"step":1}`,
		`{"event":null,"step":1}`,
		`{"event":7,"step":1}`,
		`{"event":"no_such_event"}`,
		`{"event":"fleet_started","runs":3,"task":"port it"}`,
		`{"event":"runtime_update"}`,
		`{"subrun_report":{"ok":true}}`,
		// required fields missing, null, or mistyped
		`{"event":"agent_step"}`,
		`{"event":"agent_step","step":null}`,
		`{"event":"agent_step","step":"1"}`,
		`{"event":"agent_step","step":true}`,
		`{"event":"agent_finished"}`,
		`{"event":"agent_finished","answer":null}`,
		`{"event":"agent_finished","answer":1}`,
		`{"event":"stream_retry","attempt":2,"reason":"x"}`,
		`{"event":"tool_result","tool_call_id":"c","tool_name":"t","is_error":"false","content":"x"}`,
		`{"event":"tool_result","tool_call_id":"c","tool_name":"t","is_error":0,"content":"x"}`,
		`{"event":"tool_result","tool_call_id":"c","tool_name":"t","content":"x"}`,
		`{"event":"approval_requested","id":"a","tool_name":"t"}`,
		`{"event":"approval_resolved","id":"a"}`,
		`{"event":"subrun_finished","id":"s","status":"captured","steps":1,"prompt_tokens":1}`,
		`{"event":"workflow_started","id":"w","journal":"j","events":"e","first_child":1}`,
		`{"event":"session_started","session":"s"}`,
		`{"event":"mcp_tools_registered","servers":1,"tools":1}`,
		`{"event":"mcp_tools_registered","servers":1,"tools":1,"names":null}`,
		`{"event":"mcp_tools_registered","servers":1,"tools":1,"names":["a",1]}`,
		`{"event":"mcp_tools_registered","servers":1,"tools":1,"names":"a"}`,
		`{"event":"mcp_connect_failed","error":"x"}`,
		// integrality and int32 range
		`{"event":"agent_step","step":1.5}`,
		`{"event":"agent_step","step":3e10}`,
		`{"event":"agent_step","step":2147483648}`,
		`{"event":"agent_step","step":-2147483649}`,
		`{"event":"agent_step","step":1e400}`,
		// usage: all five, integral, non-negative
		`{"event":"usage"}`,
		`{"event":"usage","usage":null}`,
		`{"event":"usage","usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3,"prompt_cache_hit_tokens":0}}`,
		`{"event":"usage","usage":{"prompt_tokens":1.5,"completion_tokens":2,"total_tokens":3,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":1}}`,
		`{"event":"usage","usage":{"prompt_tokens":-1,"completion_tokens":2,"total_tokens":3,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":1}}`,
		// content
		`{"event":"steer_applied","kind":"prompt"}`,
		`{"event":"steer_applied","content":null}`,
		`{"event":"steer_applied","content":5}`,
		`{"event":"steer_dropped","content":[{"type":"video"}]}`,
		`{"event":"steer_dropped","content":[{"type":"image","media_type":"image/jpeg","data":"` + pngB64 + `"}]}`,
		// jobs
		`{"event":"job_changed","kind":"exploded","job":` + sampleJobLine + `}`,
		`{"event":"job_changed","job":` + sampleJobLine + `}`,
		`{"event":"job_changed","kind":"started"}`,
		`{"event":"job_changed","kind":"started","job":{"schema_version":2}}`,
		`{"event":"jobs_snapshot","request_id":"r"}`,
		`{"event":"jobs_snapshot","request_id":"r","jobs":{}}`,
		`{"event":"jobs_snapshot","request_id":"r","jobs":[{}]}`,
		`{"event":"job_stop_result","request_id":"r","generation":"g","job_id":"j","outcome":"vanished"}`,
		`{"event":"job_stop_result","request_id":"r","generation":"g","job_id":"j"}`,
	} {
		if e, ok := ParseEvent([]byte(line)); ok {
			t.Errorf("ParseEvent(%s) = %#v, want not an event", line, e)
		}
	}
}

func TestParseEventDefaultsAndTolerance(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Event
	}{
		{`{"event":"steer_applied","content":"x"}`, SteerApplied{Kind: "prompt", Content: Text("x")}},
		{`{"event":"steer_applied","kind":null,"content":"x","submission_id":null}`, SteerApplied{Kind: "prompt", Content: Text("x")}},
		{`{"event":"steer_dropped","content":"x","submission_id":null}`, SteerDropped{Content: Text("x")}},
		{`{"event":"steer_dropped","content":[]}`, SteerDropped{Content: Content{}}},
		{`{"event":"tool_result","tool_call_id":"c","tool_name":"t","is_error":false,"content":"x"}`, ToolResult{ToolCallID: "c", ToolName: "t", Content: "x"}},
		{`{"event":"session_started","session":"s","session_root":"r"}`, SessionStarted{Session: "s", SessionRoot: "r"}},
		{`{"event":"subrun_finished","id":"s","status":"failed","steps":1,"prompt_tokens":2,"completion_tokens":3,"unaccounted":null}`,
			SubrunFinished{ID: "s", Status: "failed", Steps: 1, PromptTokens: 2, CompletionTokens: 3}},
		{`{"event":"goal_updated"}`, GoalUpdated{}},
		{`{"event":"approval_requested","id":"a","tool_name":"t","detail":"d"}`, ApprovalRequested{ID: "a", ToolName: "t", Detail: "d"}},
		{`{"event":"mcp_connect_failed","server":"fs"}`, McpConnectFailed{Server: "fs", Error: "unknown error"}},
		{`{"event":"mcp_connect_failed","server":"fs","error":null}`, McpConnectFailed{Server: "fs", Error: "unknown error"}},
		{`{"event":"mcp_connect_failed","server":"fs","error":42}`, McpConnectFailed{Server: "fs", Error: "unknown error"}},
		// integral numbers in other spellings, int32 bounds
		{`{"event":"agent_step","step":1.0}`, AgentStep{Step: 1}},
		{`{"event":"agent_step","step":1e2}`, AgentStep{Step: 100}},
		{`{"event":"agent_step","step":-0}`, AgentStep{Step: 0}},
		{`{"event":"goal_continue","remaining":2147483647}`, GoalContinue{Remaining: 2147483647}},
		{`{"event":"goal_continue","remaining":-2147483648}`, GoalContinue{Remaining: -2147483648}},
		// log envelope and unknown keys are ignored; event need not be first
		{`{"timestamp":"2026-01-01T00:00:00Z","level":"info","source":"agent","category":"x","event":"agent_step","step":3}`, AgentStep{Step: 3}},
		{` {"step":3, "event" : "agent_step", "extra":[1,{"a":null}]}` + "\n", AgentStep{Step: 3}},
		// non-ASCII may arrive escaped
		{`{"event":"assistant_delta","content":"\u00e9\ud83d\ude00"}`, AssistantDelta{Content: "é😀"}},
	} {
		got, ok := ParseEvent([]byte(tc.line))
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseEvent(%s) = %#v, %v; want %#v", tc.line, got, ok, tc.want)
		}
	}
}

func TestEmitOptionalFields(t *testing.T) {
	for _, tc := range []struct {
		ev   Event
		want string
	}{
		{ToolResult{ToolCallID: "c", ToolName: "t", Content: "x"}, `{"event":"tool_result","tool_call_id":"c","tool_name":"t","is_error":false,"content":"x","brief":null}`},
		{ApprovalRequested{ID: "a", ToolName: "t", Detail: "d"}, `{"event":"approval_requested","id":"a","tool_name":"t","detail":"d","body":null}`},
		{GoalUpdated{}, `{"event":"goal_updated","goal":null}`},
		{SessionStarted{Session: "s", SessionRoot: "r"}, `{"event":"session_started","session":"s","session_root":"r","workspace_root":null}`},
		{SteerApplied{Kind: "command", Content: Text("/x")}, `{"event":"steer_applied","kind":"command","content":"/x"}`},
		{SteerDropped{Content: nil, SubmissionID: ptr("s")}, `{"event":"steer_dropped","content":[],"submission_id":"s"}`},
		{SubrunFinished{ID: "s", Status: "failed"}, `{"event":"subrun_finished","id":"s","status":"failed","steps":0,"prompt_tokens":0,"completion_tokens":0}`},
		{McpToolsRegistered{}, `{"event":"mcp_tools_registered","servers":0,"tools":0,"names":[]}`},
		{JobsSnapshot{RequestID: "r"}, `{"event":"jobs_snapshot","request_id":"r","jobs":[]}`},
		{AssistantDelta{Content: "<a & b>\n\"q\"\\ é\u2028"}, `{"event":"assistant_delta","content":"<a & b>\n\"q\"\\ é\u2028"}`},
	} {
		if got := string(Emit(tc.ev)); got != tc.want {
			t.Errorf("Emit(%#v):\n got %s\nwant %s", tc.ev, got, tc.want)
		}
	}
}

func TestEmitNoEnvelopeNoNewline(t *testing.T) {
	for _, tc := range referenceEvents(t) {
		b := Emit(tc.ev)
		if bytes.ContainsAny(b, "\n") {
			t.Errorf("%s: contains a newline", b)
		}
		o, ok := decodeObject(b)
		if !ok {
			t.Fatalf("%s: not an object", b)
		}
		for _, k := range []string{"timestamp", "level", "source", "category"} {
			if _, bad := o[k]; bad {
				t.Errorf("%s: has envelope key %q", b, k)
			}
		}
		if !bytes.HasPrefix(b, []byte(`{"event":"`+tc.ev.EventName()+`"`)) {
			t.Errorf("%s: event is not the first key", b)
		}
	}
}
