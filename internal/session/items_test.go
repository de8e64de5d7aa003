package session

import "testing"

// Every row of itemTable is an Item of its kind, and the decoder's
// dispatch knows the kind (it fails on the payload, not the kind).
func TestItemTable(t *testing.T) {
	for _, row := range itemTable() {
		if got := row.zero.ItemKind(); got != row.kind {
			t.Errorf("%T.ItemKind() = %q, want %q", row.zero, got, row.kind)
		}
		_, err := ParseEvent([]byte(`{"sequence":1,"ts":1,"item":{"kind":"` + row.kind + `","payload":{}}}`))
		if err == nil || err.Error() == "unknown session item kind: "+row.kind {
			t.Errorf("kind %s with an empty payload: %v", row.kind, err)
		}
	}
}
