package subrun

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
)

// Lease is the workspace's delegated-general-run lock, held while the
// run works. Release lets the next one in.
type Lease struct{ f *os.File }

// LeasePath is the lock file of workspace (an absolute, clean path): in
// the system's temporary directory, so that taking the lease creates
// nothing in a workspace that does not exist yet.
func LeasePath(workspace string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(workspace)))
	return filepath.Join(os.TempDir(), fmt.Sprintf("openseek-%d-delegated-%x.lock", os.Getuid(), sum[:8]))
}

// AcquireLease takes the one-delegated-general-run lease of workspace. A
// second delegated general run in the same workspace is refused with the
// reference's text; the lease dies with the process that holds it.
func AcquireLease(workspace string) (*Lease, error) {
	f, err := os.OpenFile(LeasePath(workspace), os.O_RDWR|os.O_CREATE, 0o600)
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
