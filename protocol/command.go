package protocol

import (
	"encoding/json"
	"errors"
)

// Command is one controller → engine message read by `openseek serve`.
// CommandName is the wire name in the "command" key.
type Command interface {
	CommandName() string
}

// Goal command actions (GoalCmd.Action).
const (
	GoalSet   = "set"
	GoalClear = "clear"
)

// PromptCmd starts a turn. SubmissionID is the controller's optional tag,
// stored on the turn's durable user item.
type PromptCmd struct {
	Content      Content
	SubmissionID *string
}

// SteerCmd is mid-turn input; Kind is SteerPrompt or SteerCommand (empty is
// written as "prompt").
type SteerCmd struct {
	Kind         string
	Content      Content
	SubmissionID *string
}

// JobsSnapshotCmd asks for every background job (answered by JobsSnapshot).
type JobsSnapshotCmd struct{ RequestID string }

// JobStopCmd asks to stop one background job (answered by JobStopResult).
type JobStopCmd struct{ RequestID, Generation, JobID string }

// CompactCmd asks for a summary of the whole session now.
type CompactCmd struct{}

// CancelCmd interrupts the active turn (a no-op when idle).
type CancelCmd struct{}

// GoalCmd sets (Action GoalSet, Text, Auto arms autonomous continuation) or
// clears (Action GoalClear) the standing goal.
type GoalCmd struct {
	Action string
	Text   string
	Auto   bool
}

// ApprovalCmd answers the approval_requested event with the same ID.
// Remember (wire: optional "remember": true, written only when set) asks
// the engine to allow the same command pattern for the rest of the
// session without asking again. Reason (wire: optional "reason", written
// only when set) is the user's word on a rejection; the model reads it in
// the refused tool's result.
type ApprovalCmd struct {
	ID       string
	Allow    bool
	Remember bool
	Reason   string
}

// NetworkAllowCmd lets the session's sandboxed commands reach Host
// ("host", "*.domain" or "host:port", as in [sandbox] network) through
// the allowlist proxy for the rest of the session; without a host it
// only lists what is allowed. The engine answers with a
// background_notice listing the allowlist.
type NetworkAllowCmd struct{ Host string }

func (NetworkAllowCmd) CommandName() string { return "network_allow" }

func (PromptCmd) CommandName() string       { return "prompt" }
func (SteerCmd) CommandName() string        { return "steer" }
func (JobsSnapshotCmd) CommandName() string { return "jobs_snapshot" }
func (JobStopCmd) CommandName() string      { return "job_stop" }
func (CompactCmd) CommandName() string      { return "compact" }
func (CancelCmd) CommandName() string       { return "cancel" }
func (GoalCmd) CommandName() string         { return "goal" }
func (ApprovalCmd) CommandName() string     { return "approval" }

// The decode error texts are wire contract: the engine reports them
// verbatim in command_error events.
const (
	errTextNotCommand   = `expected a {"command": ...} object`
	errTextSubmissionID = `expected a string "submission_id" field`
	errTextKind         = `expected a string "kind" field`
	errTextText         = `expected a string "text" field`
	errTextImages       = `expected an array of image URLs`
	errTextJobCommand   = `invalid background job command`
	errTextGoal         = `expected {"action": "set", "text": ...} or {"action": "clear"}`
	errTextAllow        = `expected a boolean "allow" field`
	errTextID           = `expected a string "id" field`
	errTextHost         = `expected a string "host" field`
)

// ParseCommand decodes one command line. The error's text is exactly what
// the engine must report in a command_error event (reference §4.3, §4.5).
// Unknown extra keys are ignored; policy (blank goal text, steer while
// idle) is not judged here.
func ParseCommand(line []byte) (Command, error) {
	o, ok := decodeObject(line)
	if !ok {
		return nil, errors.New(errTextNotCommand)
	}
	name, ok := o.str("command")
	if !ok {
		return nil, errors.New(errTextNotCommand)
	}
	switch name {
	case "prompt":
		content, err := commandContent(o)
		if err != nil {
			return nil, err
		}
		sid, err := submissionID(o)
		if err != nil {
			return nil, err
		}
		return PromptCmd{Content: content, SubmissionID: sid}, nil
	case "steer":
		return parseSteer(o)
	case "jobs_snapshot":
		rid, ok := o.str("request_id")
		if !ok || rid == "" {
			return nil, errors.New(errTextJobCommand)
		}
		return JobsSnapshotCmd{RequestID: rid}, nil
	case "job_stop":
		rid, ok1 := o.str("request_id")
		gen, ok2 := o.str("generation")
		id, ok3 := o.str("job_id")
		if !ok1 || !ok2 || !ok3 || rid == "" || !ValidJobComponent(gen) || !ValidJobComponent(id) {
			return nil, errors.New(errTextJobCommand)
		}
		return JobStopCmd{RequestID: rid, Generation: gen, JobID: id}, nil
	case "compact":
		return CompactCmd{}, nil
	case "cancel":
		return CancelCmd{}, nil
	case "goal":
		action, _ := o.str("action")
		switch action {
		case GoalSet:
			if text, ok := o.str("text"); ok {
				return GoalCmd{Action: GoalSet, Text: text, Auto: string(o["auto"]) == "true"}, nil
			}
		case GoalClear:
			return GoalCmd{Action: GoalClear}, nil
		}
		return nil, errors.New(errTextGoal)
	case "approval":
		id, ok := o.str("id")
		if !ok {
			return nil, errors.New(errTextID)
		}
		allow, ok := o.boolAt("allow")
		if !ok {
			return nil, errors.New(errTextAllow)
		}
		reason, _ := o.str("reason")
		return ApprovalCmd{ID: id, Allow: allow, Remember: string(o["remember"]) == "true", Reason: reason}, nil
	case "network_allow":
		host, ok := o.str("host")
		if _, present := o["host"]; present && !ok {
			return nil, errors.New(errTextHost)
		}
		return NetworkAllowCmd{Host: host}, nil
	}
	return nil, errors.New("unknown command: " + name)
}

func parseSteer(o object) (Command, error) {
	sid, err := submissionID(o)
	if err != nil {
		return nil, err
	}
	content, err := commandContent(o)
	if err != nil {
		return nil, err
	}
	kind := SteerPrompt
	if raw, ok := o["kind"]; ok {
		k, ok := rawString(raw)
		if !ok {
			return nil, errors.New(errTextKind)
		}
		if k != SteerPrompt && k != SteerCommand {
			return nil, errors.New("unknown steer kind: " + k)
		}
		kind = k
	}
	return SteerCmd{Kind: kind, Content: content, SubmissionID: sid}, nil
}

// submissionID: absent means untagged; present must be a string (null is
// an error, unlike in events).
func submissionID(o object) (*string, error) {
	raw, ok := o["submission_id"]
	if !ok {
		return nil, nil
	}
	s, ok := rawString(raw)
	if !ok {
		return nil, errors.New(errTextSubmissionID)
	}
	return &s, nil
}

// commandContent reads `content`, or else the legacy `text` + `images`
// (data URLs) form.
func commandContent(o object) (Content, error) {
	if raw, ok := o["content"]; ok {
		c, err := DecodeContent(raw)
		if err != nil {
			return nil, errors.New("invalid content: " + err.Error())
		}
		return c, nil
	}
	text, ok := o.str("text")
	if !ok {
		return nil, errors.New(errTextText)
	}
	c := Text(text)
	raw, ok := o["images"]
	if !ok {
		return c, nil
	}
	var raws []json.RawMessage
	if firstByte(raw) != '[' || json.Unmarshal(raw, &raws) != nil {
		return nil, errors.New(errTextImages)
	}
	urls := make([]string, 0, len(raws))
	for _, r := range raws {
		u, ok := rawString(r)
		if !ok {
			return nil, errors.New(errTextImages)
		}
		urls = append(urls, u)
	}
	for _, u := range urls {
		p, err := ParseImageURL(u)
		if err != nil {
			return nil, err
		}
		c = append(c, p)
	}
	return c, nil
}

// EmitCommand encodes c as one compact JSON line without the newline, in
// the encoder's key order; optional submission ids and goal auto are
// written only when set.
func EmitCommand(c Command) []byte {
	b := make([]byte, 0, 64)
	b = appendStrField(append(b, '{'), "command", c.CommandName())
	switch c := c.(type) {
	case PromptCmd:
		b = c.Content.AppendJSON(appendKey(b, "content"))
		b = appendOmitStrField(b, "submission_id", c.SubmissionID)
	case SteerCmd:
		kind := c.Kind
		if kind == "" {
			kind = SteerPrompt
		}
		b = appendStrField(b, "kind", kind)
		b = c.Content.AppendJSON(appendKey(b, "content"))
		b = appendOmitStrField(b, "submission_id", c.SubmissionID)
	case JobsSnapshotCmd:
		b = appendStrField(b, "request_id", c.RequestID)
	case JobStopCmd:
		b = appendStrField(b, "request_id", c.RequestID)
		b = appendStrField(b, "generation", c.Generation)
		b = appendStrField(b, "job_id", c.JobID)
	case GoalCmd:
		b = appendStrField(b, "action", c.Action)
		if c.Action == GoalSet {
			b = appendStrField(b, "text", c.Text)
			if c.Auto {
				b = appendBoolField(b, "auto", true)
			}
		}
	case NetworkAllowCmd:
		if c.Host != "" {
			b = appendStrField(b, "host", c.Host)
		}
	case ApprovalCmd:
		b = appendStrField(b, "id", c.ID)
		b = appendBoolField(b, "allow", c.Allow)
		if c.Remember {
			b = appendBoolField(b, "remember", true)
		}
		if c.Reason != "" {
			b = appendStrField(b, "reason", c.Reason)
		}
	}
	return append(b, '}')
}
