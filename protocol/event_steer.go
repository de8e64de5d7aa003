package protocol

// Steering and notice events (reference §5.3).

// Steer kinds. A controller sends prompt or command; notice marks a notice
// the engine synthesized itself (e.g. a background job finished).
const (
	SteerPrompt  = "prompt"
	SteerCommand = "command"
	SteerNotice  = "notice"
)

// SteerApplied: mid-turn input was injected into the turn. Kind defaults to
// "prompt" when absent; SubmissionID is written only when present.
type SteerApplied struct {
	Kind         string
	Content      Content
	SubmissionID *string
}

// SteerDropped: a steer arrived with no active turn and was not applied, so
// the controller may resubmit it.
type SteerDropped struct {
	Content      Content
	SubmissionID *string
}

// BackgroundNotice is a notice shown outside any turn.
type BackgroundNotice struct{ Content string }

func (SteerApplied) EventName() string     { return "steer_applied" }
func (SteerDropped) EventName() string     { return "steer_dropped" }
func (BackgroundNotice) EventName() string { return "background_notice" }

func (e SteerApplied) appendFields(b []byte) []byte {
	b = appendStrField(b, "kind", e.Kind)
	b = e.Content.AppendJSON(appendKey(b, "content"))
	return appendOmitStrField(b, "submission_id", e.SubmissionID)
}

func (e SteerDropped) appendFields(b []byte) []byte {
	b = e.Content.AppendJSON(appendKey(b, "content"))
	return appendOmitStrField(b, "submission_id", e.SubmissionID)
}

func (e BackgroundNotice) appendFields(b []byte) []byte {
	return appendStrField(b, "content", e.Content)
}

// content decodes a required Content field.
func (f *fields) content(key string) Content {
	raw, ok := f.o[key]
	if !ok {
		f.ok = false
		return nil
	}
	c, err := DecodeContent(raw)
	f.ok = f.ok && err == nil
	return c
}

func parseSteerEvent(name string, f *fields) Event {
	switch name {
	case "steer_applied":
		kind, ok := f.o.str("kind")
		if !ok {
			kind = SteerPrompt
		}
		return SteerApplied{Kind: kind, Content: f.content("content"), SubmissionID: f.optStr("submission_id")}
	case "steer_dropped":
		return SteerDropped{Content: f.content("content"), SubmissionID: f.optStr("submission_id")}
	case "background_notice":
		return BackgroundNotice{Content: f.str("content")}
	}
	return nil
}
