package session

import (
	"fmt"
	"runtime"
	"sync"
)

// parallelThreshold is the number of lines above which decoding is spread
// over the available CPUs; JSON decoding dominates loading a long session.
const parallelThreshold = 2048

// decodeLines decodes event lines in order. Blank lines are skipped; the
// last line, when unterminated (torn), is dropped if it does not decode.
func decodeLines(id string, lines [][]byte, torn bool) ([]Event, error) {
	decoded := make([]Event, len(lines))
	errs := make([]error, len(lines))
	decodeRange := func(lo, hi int) {
		var r lineReader // one decoder per goroutine, reset for each line
		for i := lo; i < hi; i++ {
			if isBlank(lines[i]) {
				continue
			}
			decoded[i], errs[i] = r.parseEvent(lines[i])
			if errs[i] != nil {
				return // the ordered pass below stops here anyway
			}
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if len(lines) < parallelThreshold || workers < 2 {
		decodeRange(0, len(lines))
	} else {
		var wg sync.WaitGroup
		chunk := (len(lines) + workers - 1) / workers
		for lo := 0; lo < len(lines); lo += chunk {
			hi := min(lo+chunk, len(lines))
			wg.Go(func() { decodeRange(lo, hi) })
		}
		wg.Wait()
	}

	events := decoded[:0]
	for i, line := range lines {
		if isBlank(line) {
			continue
		}
		if err := errs[i]; err != nil {
			if torn && i == len(lines)-1 {
				break // a torn append: drop it, repair on the next append
			}
			return nil, fmt.Errorf("session file for %s is corrupt at line %d: %w", id, i+2, err)
		}
		want := len(events) + 1
		if got := decoded[i].Sequence; got != want {
			return nil, fmt.Errorf("session event log sequence mismatch: expected %d, found %d", want, got)
		}
		events = append(events, decoded[i])
	}
	return events[:len(events):len(events)], nil
}
