package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// exitSetupFailed is the child's status when the sandbox could not be set
// up; the command did not run.
const exitSetupFailed = 126

// Main turns this process into a sandboxed command when it was started by
// [Policy.Wrap]; otherwise it returns at once. Call it first thing in
// main() and in TestMain of packages whose tests run sandboxed commands.
// In a sandbox child it never returns: it applies the policy and execs the
// real command, or reports why it could not and exits 126.
func Main() {
	data, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
	os.Unsetenv(childEnv)
	if err := runChild(data, os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "openseek sandbox: %v; the command was not run\n", err)
		os.Exit(exitSetupFailed)
	}
}

// runChild applies the policy in data to this process and execs argv;
// it returns only on failure.
func runChild(data string, argv []string) error {
	var pl payload
	if err := json.Unmarshal([]byte(data), &pl); err != nil {
		return fmt.Errorf("decode policy: %w", err)
	}
	if len(argv) == 0 || pl.Path == "" {
		return errors.New("no command to run")
	}
	pol, err := pl.Policy.validate()
	if err != nil {
		return err
	}
	runtime.LockOSThread() // never unlocked: this thread execs
	if err := protect(pol.ReadOnly); err != nil {
		return err
	}
	// The working directory was entered before the read-only mounts
	// existed; enter it again by name so relative paths go through them.
	if wd, err := os.Getwd(); err == nil {
		if err := os.Chdir(wd); err != nil {
			return fmt.Errorf("re-enter working directory: %w", err)
		}
	}
	if err := restrictWrites(pol); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if err := syscall.Exec(pl.Path, argv, os.Environ()); err != nil {
		return fmt.Errorf("exec %s: %w", pl.Path, err)
	}
	return nil
}

// protect makes this mount namespace stop sharing mounts with the host,
// then bind-mounts each existing path onto itself read-only. A mount point
// cannot be renamed or removed, so the path cannot be replaced either.
func protect(paths []string) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	for _, p := range paths {
		real, err := filepath.EvalSymlinks(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("protect %s: %w", p, err)
		}
		if err := unix.Mount(real, real, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %w", p, err)
		}
		if err := readOnly(real); err != nil {
			return fmt.Errorf("make %s read-only: %w", p, err)
		}
	}
	return nil
}

// readOnly makes the mount at path, and those below it, read-only,
// leaving its other flags alone. Older kernels without mount_setattr get
// a remount that repeats the flags a user namespace may not drop.
func readOnly(path string) error {
	err := unix.MountSetattr(-1, path, unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
	if !errors.Is(err, unix.ENOSYS) {
		return err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range [][2]int64{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV},
		{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if st.Flags&f[0] != 0 {
			flags |= uintptr(f[1])
		}
	}
	return unix.Mount("", path, "", flags, "")
}

// devFiles are the device files commands routinely write to. No ioctl
// right is granted, so a command cannot push keystrokes into the user's
// terminal (TIOCSTI) through /dev/tty.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// restrictWrites confines this process and what it execs with Landlock:
// everything readable and executable, writes only in the workspace, the
// writable roots and a few device files; no signals to or abstract
// sockets of processes outside the sandbox.
func restrictWrites(p Policy) error {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return errors.New("the kernel has no Landlock, so writes cannot be limited to the workspace")
	}
	if _, err := os.Stat(p.Workspace); err != nil {
		return fmt.Errorf("workspace: %w", err)
	}
	cfg := landlock.Config{
		HandledAccessFS: landlock.V7.HandledAccessFS,
		Scoped:          landlock.V7.Scoped,
	}.BestEffort().EnableLoggingForSubprocesses()
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWDirs(p.Workspace).WithRefer(),
		landlock.RWFiles(devFiles...).IgnoreIfMissing(),
	}
	if len(p.WritableRoots) > 0 {
		rules = append(rules, landlock.RWDirs(p.WritableRoots...).WithRefer().IgnoreIfMissing())
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}
