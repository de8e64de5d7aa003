package session

//go:generate go run ./internal/itemgen

// itemTable is the one list of the session log's item kinds: each kind
// as written in an event's "item" and the type that carries it. The
// payload is the type's fields in declaration order; a field's key is its
// name in snake_case unless a `wire:"key"` tag names it. A field without
// options is required (always written; absent or null fails the load);
// omitempty makes it optional (written only when set). keepnull keeps a
// raw JSON value's null as read. A type with a hand-written append<Type>
// and decode<Type> (Terminal, for its legacy forms) keeps them.
//
// `go generate ./internal/session` writes items_gen.go from this table:
// the Kind constants, ItemKind, the codec and the dispatch by kind. A
// test fails when that file is out of date or an Item is missing here.
func itemTable() []itemEntry {
	return []itemEntry{
		{"user", &User{}},
		{"assistant", &Assistant{}},
		{"tool_result", &ToolResult{}},
		{"runtime_notice", &Notice{}},
		{"summary", &Summary{}},
		{"terminal", &Terminal{}},
	}
}

type itemEntry struct {
	kind string
	zero Item
}
