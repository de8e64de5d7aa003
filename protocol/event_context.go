package protocol

// Context events (an OpenSeek addition to the reference: old clients
// ignore them). They let every face show how full the model's context
// is and what a compaction did.

// ContextHealth reports how full the model's context is: UsedTokens of
// the last request (the provider's count, or the engine's estimate right
// after a compaction) against the model's Window, and the Compactions
// of the session so far. RereadsAvoided counts reads the read ledger
// answered briefly because the file was unchanged since a read still in
// context, and RereadBytesSaved the bytes of content not sent again.
type ContextHealth struct {
	UsedTokens, Window, Compactions  int
	RereadsAvoided, RereadBytesSaved int
}

// CompactionReport says what a finished compaction summarised: the
// events FromSequence..ToSequence, holding Turns user turns and touching
// Files (paths the tools named), and the context's estimated size in
// tokens before and after. Trigger is "auto" or "manual"; HookReplaced
// is set when a PostCompact hook replaced the model's summary.
type CompactionReport struct {
	Trigger                   string
	FromSequence, ToSequence  int
	Turns                     int
	Files                     []string
	TokensBefore, TokensAfter int
	HookReplaced              bool
}
