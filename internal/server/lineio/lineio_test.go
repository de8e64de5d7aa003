package lineio

import (
	"errors"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	in := "a\n\r\n  \n" + strings.Repeat("x", 100) + "\n b \r\nlast"
	var got []string
	err := Read(strings.NewReader(in), 50, func(line []byte, tooLong bool) error {
		if tooLong {
			got = append(got, "<too long>")
		} else {
			got = append(got, string(line))
		}
		return nil
	})
	if err != nil || strings.Join(got, "|") != "a|<too long>|b|last" {
		t.Errorf("got %q, %v", got, err)
	}
	stop := errors.New("stop")
	if err := Read(strings.NewReader("a\nb\n"), 50, func([]byte, bool) error { return stop }); err != stop {
		t.Errorf("fn's error: %v", err)
	}
}
