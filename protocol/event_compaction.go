package protocol

// Compaction events (reference §5.6). FromSequence..ToSequence is the
// inclusive session-event range a summary covers.

// CompactionStarted: a requested (compact command) compaction began.
type CompactionStarted struct{ FromSequence, ToSequence int }

// CompactionFinished: the requested compaction stored Summary.
type CompactionFinished struct {
	FromSequence, ToSequence int
	Summary                  string
}

// CompactionFailed: the requested compaction failed or was cancelled.
type CompactionFailed struct{ Error string }

// AutoCompactionStarted: the engine began compacting on its own.
type AutoCompactionStarted struct{ FromSequence, ToSequence int }

// AutoCompactionFinished: automatic compaction stored Summary.
type AutoCompactionFinished struct {
	FromSequence, ToSequence int
	Summary                  string
}

// AutoCompactionFailed: automatic compaction failed.
type AutoCompactionFailed struct{ Error string }

// ContextYield ends a turn that reached the context ceiling; it was
// checkpointed up to ToSequence and Answer is the yield notice.
type ContextYield struct {
	ToSequence int
	Answer     string
}

func (CompactionStarted) EventName() string      { return "compaction_started" }
func (CompactionFinished) EventName() string     { return "compaction_finished" }
func (CompactionFailed) EventName() string       { return "compaction_failed" }
func (AutoCompactionStarted) EventName() string  { return "auto_compaction_started" }
func (AutoCompactionFinished) EventName() string { return "auto_compaction_finished" }
func (AutoCompactionFailed) EventName() string   { return "auto_compaction_failed" }
func (ContextYield) EventName() string           { return "context_yield" }

func appendRange(b []byte, from, to int) []byte {
	return appendIntField(appendIntField(b, "from_sequence", from), "to_sequence", to)
}

func (e CompactionStarted) appendFields(b []byte) []byte {
	return appendRange(b, e.FromSequence, e.ToSequence)
}
func (e CompactionFinished) appendFields(b []byte) []byte {
	return appendStrField(appendRange(b, e.FromSequence, e.ToSequence), "summary", e.Summary)
}
func (e CompactionFailed) appendFields(b []byte) []byte { return appendStrField(b, "error", e.Error) }
func (e AutoCompactionStarted) appendFields(b []byte) []byte {
	return appendRange(b, e.FromSequence, e.ToSequence)
}
func (e AutoCompactionFinished) appendFields(b []byte) []byte {
	return appendStrField(appendRange(b, e.FromSequence, e.ToSequence), "summary", e.Summary)
}
func (e AutoCompactionFailed) appendFields(b []byte) []byte {
	return appendStrField(b, "error", e.Error)
}
func (e ContextYield) appendFields(b []byte) []byte {
	return appendStrField(appendIntField(b, "to_sequence", e.ToSequence), "answer", e.Answer)
}

func parseCompactionEvent(name string, f *fields) Event {
	switch name {
	case "compaction_started":
		return CompactionStarted{FromSequence: f.int("from_sequence"), ToSequence: f.int("to_sequence")}
	case "compaction_finished":
		return CompactionFinished{FromSequence: f.int("from_sequence"), ToSequence: f.int("to_sequence"), Summary: f.str("summary")}
	case "compaction_failed":
		return CompactionFailed{Error: f.str("error")}
	case "auto_compaction_started":
		return AutoCompactionStarted{FromSequence: f.int("from_sequence"), ToSequence: f.int("to_sequence")}
	case "auto_compaction_finished":
		return AutoCompactionFinished{FromSequence: f.int("from_sequence"), ToSequence: f.int("to_sequence"), Summary: f.str("summary")}
	case "auto_compaction_failed":
		return AutoCompactionFailed{Error: f.str("error")}
	case "context_yield":
		return ContextYield{ToSequence: f.int("to_sequence"), Answer: f.str("answer")}
	}
	return nil
}
