package protocol

// Event is one engine → client message. Each variant is a struct named
// after its wire name (agent_step → AgentStep); EventName is that wire name.
type Event interface {
	EventName() string
}

// fieldAppender is implemented by every event of this package: it appends
// the payload fields (each preceded by a comma) in wire order.
type fieldAppender interface {
	appendFields(b []byte) []byte
}

// Emit encodes e as one compact JSON object with "event" first, without a
// trailing newline.
func Emit(e Event) []byte { return AppendEvent(make([]byte, 0, 128), e) }

// AppendEvent appends Emit(e) to b.
func AppendEvent(b []byte, e Event) []byte {
	b = append(b, '{')
	b = appendStrField(b, "event", e.EventName())
	if a, ok := e.(fieldAppender); ok {
		b = a.appendFields(b)
	}
	return append(b, '}')
}

// ParseEvent decodes one event line. It returns false ("not an event",
// to be ignored) for anything but an object naming a known event with all
// required fields present and well typed; it never panics. Extra keys are
// ignored, defaulted fields take their documented defaults.
func ParseEvent(line []byte) (Event, bool) {
	o, ok := decodeObject(line)
	if !ok {
		return nil, false
	}
	name, ok := o.str("event")
	if !ok {
		return nil, false
	}
	if e, ok := parseEventFields(name, &fields{o: o, ok: true}); ok {
		return e, true
	}
	return nil, false
}
