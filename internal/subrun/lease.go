package subrun

import (
	"fmt"
	"os"
	"path/filepath"
)

// Lease is the workspace's delegated-general-run lock, held while the
// run works. Release lets the next one in.
type Lease struct{ f *os.File }

// LeaseFile is the lock's name under the session root.
const LeaseFile = "delegated-run.lock"

// AcquireLease takes the one-delegated-general-run lease of workspace,
// kept in sessionRoot. A second delegated general run in the same
// workspace is refused with the reference's text; the lease dies with
// the process that holds it.
func AcquireLease(sessionRoot, workspace string) (*Lease, error) {
	if err := os.MkdirAll(sessionRoot, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(sessionRoot, LeaseFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("another delegated general run is already working in %s; run a worker for parallel writes", workspace)
	}
	_ = f.Truncate(0)
	fmt.Fprintf(f, "%d\n", os.Getpid())
	return &Lease{f: f}, nil
}

// Release gives the lease back.
func (l *Lease) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = unlockFile(l.f)
	_ = l.f.Close()
	l.f = nil
}
