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

func (ContextHealth) EventName() string { return "context_health" }

func (e ContextHealth) appendFields(b []byte) []byte {
	b = appendIntField(b, "used_tokens", e.UsedTokens)
	b = appendIntField(b, "window", e.Window)
	b = appendIntField(b, "compactions", e.Compactions)
	b = appendIntField(b, "rereads_avoided", e.RereadsAvoided)
	return appendIntField(b, "reread_bytes_saved", e.RereadBytesSaved)
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

func (CompactionReport) EventName() string { return "compaction_report" }

func (e CompactionReport) appendFields(b []byte) []byte {
	b = appendStrField(b, "trigger", e.Trigger)
	b = appendRange(b, e.FromSequence, e.ToSequence)
	b = appendIntField(b, "turns", e.Turns)
	b = appendStrings(b, "files", e.Files)
	b = appendIntField(b, "tokens_before", e.TokensBefore)
	b = appendIntField(b, "tokens_after", e.TokensAfter)
	return appendBoolField(b, "hook_replaced", e.HookReplaced)
}

func parseContextEvent(name string, f *fields) Event {
	switch name {
	case "context_health":
		return ContextHealth{UsedTokens: f.int("used_tokens"), Window: f.int("window"), Compactions: f.int("compactions"),
			RereadsAvoided: f.int("rereads_avoided"), RereadBytesSaved: f.int("reread_bytes_saved")}
	case "compaction_report":
		return CompactionReport{Trigger: f.str("trigger"), FromSequence: f.int("from_sequence"), ToSequence: f.int("to_sequence"),
			Turns: f.int("turns"), Files: f.strings("files"), TokensBefore: f.int("tokens_before"), TokensAfter: f.int("tokens_after"),
			HookReplaced: f.bool("hook_replaced")}
	}
	return nil
}
