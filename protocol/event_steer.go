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
	Kind         string `wire:",default=prompt"`
	Content      Content
	SubmissionID *string `wire:",omitempty"`
}

// SteerDropped: a steer arrived with no active turn and was not applied, so
// the controller may resubmit it.
type SteerDropped struct {
	Content      Content
	SubmissionID *string `wire:",omitempty"`
}

// BackgroundNotice is a notice shown outside any turn.
type BackgroundNotice struct{ Content string }

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
