package beneathtest

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Exchange keeps exchanging the paths a and b with renameat2
// RENAME_EXCHANGE — atomic, so both names always exist — until stop is
// called. stop waits for the loop to end, leaves a and b as they were
// before, and returns how many exchanges happened.
func Exchange(a, b string) (stop func() int64) {
	var done atomic.Bool
	var n atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for !done.Load() {
			if unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE) == nil {
				n.Add(1)
			}
		}
	})
	return func() int64 {
		done.Store(true)
		wg.Wait()
		if n.Load()%2 == 1 {
			unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
		}
		return n.Load()
	}
}

// Identity is the device, inode and content of the file at path (not
// followed if a symlink), or "absent": a file replaced by a rename shows
// as changed even with the same content.
func Identity(path string) string {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return "absent"
	}
	b, _ := os.ReadFile(path)
	return fmt.Sprintf("%d:%d %q", st.Dev, st.Ino, b)
}
