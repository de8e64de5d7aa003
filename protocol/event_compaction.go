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
