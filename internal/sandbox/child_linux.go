package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// exitSetupFailed is the child's status when the sandbox could not be set
// up; the command did not run.
const exitSetupFailed = 126

// Main turns this process into a sandboxed command when it was started by
// [Policy.Wrap]; otherwise it returns at once. A binary calls it by
// importing internal/sandbox/reexec, which runs it during package
// initialisation (or first thing in main()); tests whose packages run
// sandboxed commands call it in TestMain.
// In a sandbox child it never returns: it applies the policy and execs the
// real command, or reports why it could not and exits 126.
func Main() {
	mainCalled.Store(true)
	data, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
	os.Unsetenv(childEnv)
	// This process is the init of a PID namespace: a signal it does not
	// catch would be ignored, not kill it. Catch the usual ones from the
	// start so one that arrives during setup ends it before the command.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	if err := runChild(data, os.Args[1:], sigs); err != nil {
		reportHelper(helperFailed, err.Error())
		fmt.Fprintf(os.Stderr, "openseek sandbox: %v; the command was not run\n", err)
		os.Exit(exitSetupFailed)
	}
}

// runChild applies the policy in data and runs argv as the only child of
// this process, which is the init of a new PID namespace: when the
// command ends, this process exits with its status and the kernel kills
// whatever the command left behind (`cmd &`, `setsid cmd &`, nohup).
// It returns only on failure.
func runChild(data string, argv []string, sigs <-chan os.Signal) error {
	var pl payload
	if err := json.Unmarshal([]byte(data), &pl); err != nil {
		return fmt.Errorf("decode policy: %w", err)
	}
	if pl.Helper {
		helperMode = true
	} else if len(argv) == 0 || pl.Path == "" {
		return errors.New("no command to run")
	}
	pol, err := pl.Policy.validate()
	if err != nil {
		return err
	}
	// Capabilities, no_new_privs and the seccomp filter belong to a
	// thread; the command is started from this one, so it inherits them.
	runtime.LockOSThread() // never unlocked
	if _, err := os.Stat(pol.Workspace); err != nil {
		return fmt.Errorf("workspace: %w", err)
	}
	// A helper makes the private caches when its first command needs
	// them, unless their parent exists already: until a command runs, the
	// workspace stays as it was (no .openseek for a --no-session run).
	cacheLater := pl.Helper && pol.CacheDir != "" && !pol.ReadOnlyWorkspace && !exists(filepath.Dir(pol.CacheDir))
	if pol.CacheDir != "" && !pol.ReadOnlyWorkspace && !cacheLater {
		if err := os.MkdirAll(pol.CacheDir, 0o700); err != nil {
			return fmt.Errorf("private caches: %w", err)
		}
	}
	readOnly := readOnlyPaths(pol)
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	protected, err := protect(readOnly)
	if err != nil {
		return err
	}
	if err := writableWorkspace(pol, protected); err != nil {
		return err
	}
	if !cacheLater {
		if pol, err = privateCaches(pol); err != nil {
			return err
		}
	}
	// Before privateTmp, whose copy of a workspace in /tmp carries them.
	secrets, err := maskSecrets(pol, pl.Helper)
	if err != nil {
		return err
	}
	if err := privateProc(); err != nil {
		return err
	}
	if !pol.Network {
		if err := privateTmp(pol); err != nil {
			return err
		}
		if err := privateRuntimeDirs(pol); err != nil {
			return err
		}
	}
	// The working directory was entered before the read-only mounts
	// existed; enter it again by name so relative paths go through them.
	if wd, err := os.Getwd(); err == nil {
		if err := os.Chdir(wd); err != nil {
			return fmt.Errorf("re-enter working directory: %w", err)
		}
	}
	proxyFD := -1
	if pol.Proxied {
		if proxyFD, err = proxyListener(); err != nil {
			return err
		}
		if !pl.Helper {
			// The pair stays open in this process, the command's init:
			// its end tells the proxy to close the listener.
			sendMessage(pl.ProxyFD, "proxy", "", []int{proxyFD})
			unix.Close(proxyFD)
		}
	}
	if pl.Helper {
		return serveHelper(pol, pl.Seccomp, readOnly, protected, cacheLater, proxyFD, secrets)
	}
	if err := restrictWrites(pol); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	// This process is PID 1 of the command's namespace and runs as its
	// user. Not dumpable, the command cannot read its memory, maps or
	// environment through /proc/1 (capabilities are dropped per thread,
	// so whether the thread-group leader still holds some, which alone
	// kept the command out, depends on which thread this is).
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("set not dumpable: %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := loadSeccomp(pl.Seccomp); err != nil {
		return err
	}
	return supervise(pl.Path, argv, cacheEnv(os.Environ(), pol.CacheDir), sigs)
}

// supervise starts the command from this (locked) thread and reaps every
// process of the namespace until the command itself ends, then exits with
// its status: 128+N for death by signal N, as a shell reports it. A
// signal caught before the command started ends this process instead.
// Afterwards the caller signals the whole process group, which the
// command shares, so caught signals are only kept from killing this
// process before the command.
func supervise(path string, argv, env []string, sigs <-chan os.Signal) error {
	select {
	case s := <-sigs:
		os.Exit(128 + int(s.(syscall.Signal)))
	default:
	}
	go func() {
		for range sigs {
		}
	}()
	proc, err := os.StartProcess(path, argv, &os.ProcAttr{
		Env:   env,
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
	})
	if err != nil {
		return fmt.Errorf("exec %s: %w", path, err)
	}
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("wait for %s: %w", path, err)
		}
		if pid != proc.Pid {
			continue // an orphan of the command, reaped as init must
		}
		switch {
		case ws.Exited():
			os.Exit(ws.ExitStatus())
		case ws.Signaled():
			os.Exit(128 + int(ws.Signal()))
		}
	}
}

// privateProc mounts a /proc of the new PID namespace over the host's, so
// the command sees only its own processes (not the agent's command line
// or environment). A kernel refuses it when parts of the host's /proc are
// hidden by other mounts (as in some containers); then the host's /proc
// stays, read through the same namespace rules as before.
func privateProc() error {
	err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("mount /proc: %w", err)
	}
	return nil
}

// protect bind-mounts each existing path onto itself read-only (the
// caller has made this mount namespace stop sharing mounts with the
// host) and returns those it protected. A mount point cannot be renamed
// or removed, so the path cannot be replaced either.
func protect(paths []string) ([]string, error) {
	var done []string
	for _, p := range paths {
		real, err := filepath.EvalSymlinks(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return done, fmt.Errorf("protect %s: %w", p, err)
		}
		if err := unix.Mount(real, real, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return done, fmt.Errorf("bind %s: %w", p, err)
		}
		if err := readOnly(real); err != nil {
			return done, fmt.Errorf("make %s read-only: %w", p, err)
		}
		done = append(done, p)
	}
	return done, nil
}

// readOnlyPaths are the paths a sandbox of p keeps read-only: the
// protected ones and the host's caches (even where a writable root holds
// them), and in plan mode the workspace itself.
func readOnlyPaths(p Policy) []string {
	paths := append(slices.Clone(p.ReadOnly), p.Caches...)
	if p.ReadOnlyWorkspace {
		paths = append([]string{p.Workspace}, paths...)
	}
	return paths
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
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

// restrictWrites confines this thread and what it starts with Landlock
// (see writeRuleset).
func restrictWrites(p Policy) error {
	fd, flags, err := writeRuleset(p)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	// Only this thread is restricted (which spares a signal round to
	// every thread of the process): the command is started from it and
	// inherits its domain; the other threads never run user code.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}

// writeRuleset is the Landlock ruleset of p: everything readable and
// executable, writes only in the workspace, the writable roots and a few
// device files; no signals to or abstract sockets of processes outside
// the sandbox. The caller closes the descriptor.
func writeRuleset(p Policy) (fd int, flags uint32, err error) {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		return -1, 0, errors.New("the kernel has no Landlock, so writes cannot be limited to the workspace")
	}
	if _, err := os.Stat(p.Workspace); err != nil {
		return -1, 0, fmt.Errorf("workspace: %w", err)
	}
	cfg := landlock.Config{
		HandledAccessFS: landlock.V7.HandledAccessFS,
		Scoped:          landlock.V7.Scoped,
	}.BestEffort().EnableLoggingForSubprocesses()
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles(devFiles...).IgnoreIfMissing(),
	}
	writable := p.WritableRoots
	if p.ReadOnlyWorkspace {
		writable = nil
		for _, r := range p.WritableRoots {
			if slices.Contains(tmpDirs, r) || r == "/dev/shm" || r == filepath.Clean(os.TempDir()) {
				writable = append(writable, r)
			}
		}
	} else {
		rules = append(rules, landlock.RWDirs(p.Workspace).WithRefer())
	}
	if len(writable) > 0 {
		rules = append(rules, landlock.RWDirs(writable...).WithRefer().IgnoreIfMissing())
	}
	fd, flags, err = cfg.NewRulesetFD(rules...)
	if err != nil {
		return -1, 0, fmt.Errorf("landlock: %w", err)
	}
	if fd < 0 {
		return -1, 0, errors.New("landlock: the kernel enforces none of the rules")
	}
	return fd, flags, nil
}

// privateRuntimeDirs mounts an empty tmpfs over /run, /var/run (when it is
// a directory of its own) and $XDG_RUNTIME_DIR, where the host's UNIX
// sockets live (D-Bus, docker.sock, ssh and gpg agents, systemd), so a
// command without network has no socket to the host there either. A
// directory holding the workspace or a writable root is left alone.
func privateRuntimeDirs(p Policy) error {
	dirs := []string{"/run", "/var/run"}
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) {
		dirs = append(dirs, filepath.Clean(x))
	}
	keep := append([]string{p.Workspace}, p.WritableRoots...)
	var hidden []string
	for _, d := range dirs {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			continue // missing, or a symlink to a directory handled already
		}
		if within(d, keep) || within(d, hidden) {
			continue
		}
		if err := unix.Mount("tmpfs", d, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=16m"); err != nil {
			return fmt.Errorf("hide %s: %w", d, err)
		}
		hidden = append(hidden, d)
	}
	return nil
}

// within reports whether dir is one of roots, inside one, or holds one.
func within(dir string, roots []string) bool {
	for _, r := range roots {
		if r == dir || strings.HasPrefix(r, dir+"/") || strings.HasPrefix(dir, r+"/") {
			return true
		}
	}
	return false
}

// tmpDirs are the shared temporary directories a command without network
// gets a private, empty copy of.
var tmpDirs = []string{"/tmp", "/var/tmp"}

// privateTmp mounts an empty tmpfs over each of tmpDirs, so the host's
// sockets, files and pipes there are out of reach, and brings back the
// workspace, the working directory and the writable roots that lie
// inside one (a clone of their mounts, moved into the new tmpfs at the
// same path). Writes the command makes elsewhere in /tmp vanish with it.
func privateTmp(p Policy) error {
	keep := append([]string{p.Workspace}, p.Caches...)
	if !p.ReadOnlyWorkspace {
		keep = append(keep, p.WritableRoots...)
	}
	if wd, err := os.Getwd(); err == nil {
		keep = append(keep, wd)
	}
	for _, d := range tmpDirs {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			continue
		}
		inside := outermost(d, keep)
		type tree struct {
			fd   int
			path string
		}
		var trees []tree
		for _, k := range inside {
			fd, err := unix.OpenTree(unix.AT_FDCWD, k, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
			if err != nil {
				return fmt.Errorf("keep %s in the private %s: %w", k, d, err)
			}
			trees = append(trees, tree{fd, k})
		}
		if err := unix.Mount("tmpfs", d, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
			return fmt.Errorf("private %s: %w", d, err)
		}
		for _, t := range trees {
			err := os.MkdirAll(t.path, 0o755)
			if err == nil {
				err = unix.MoveMount(t.fd, "", unix.AT_FDCWD, t.path, unix.MOVE_MOUNT_F_EMPTY_PATH)
			}
			unix.Close(t.fd)
			if err != nil {
				return fmt.Errorf("keep %s in the private %s: %w", t.path, d, err)
			}
		}
	}
	return nil
}

// outermost returns the existing directories of paths strictly inside
// dir, symlinks resolved, leaving out any that lies inside another.
func outermost(dir string, paths []string) []string {
	var in []string
	for _, p := range paths {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || !strings.HasPrefix(real, dir+"/") {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			continue
		}
		in = append(in, real)
	}
	var out []string
	for _, p := range in {
		nested := false
		for _, q := range in {
			if q != p && strings.HasPrefix(p, q+"/") {
				nested = true
				break
			}
		}
		if !nested && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// privateCaches makes p.CacheDir, the command's own language caches,
// writable even though it lies inside the read-only .openseek: a bind
// mount of it onto itself, made after the read-only ones. In plan mode
// the caches go to the private /tmp instead. It returns the policy with
// the cache directory writable.
func privateCaches(p Policy) (Policy, error) {
	if p.CacheDir == "" {
		return p, nil
	}
	if p.ReadOnlyWorkspace {
		p.CacheDir = "/tmp/openseek-cache"
		return p, nil
	}
	if err := bindWritable(p.CacheDir, 0); err != nil {
		return p, fmt.Errorf("private caches: %w", err)
	}
	p.WritableRoots = append(p.WritableRoots, p.CacheDir)
	return p, nil
}

// writableWorkspace keeps the workspace writable when it lies inside a
// protected path, as a fleet task's or a best-of-N run's workspace lies
// inside the read-only ~/.openseek: a bind of it onto itself, made after
// the read-only ones. The read-only binds inside it (its .git and
// .openseek) come along and stay read-only.
func writableWorkspace(p Policy, protected []string) error {
	if p.ReadOnlyWorkspace {
		return nil
	}
	ws, err := filepath.EvalSymlinks(p.Workspace)
	if err != nil {
		return fmt.Errorf("workspace: %w", err)
	}
	for _, q := range protected {
		if real, err := filepath.EvalSymlinks(q); err == nil && strings.HasPrefix(ws, real+"/") {
			if err := bindWritable(ws, unix.MS_REC); err != nil {
				return fmt.Errorf("workspace inside the read-only %s: %w", q, err)
			}
			return nil
		}
	}
	return nil
}

// bindWritable binds path onto itself (rec: unix.MS_REC to bring the
// mounts below it along) and makes that top mount writable; the mounts
// below keep their flags.
func bindWritable(path string, rec uintptr) error {
	// A bind mount starts with its source's flags: read-only here.
	if err := unix.Mount(path, path, "", unix.MS_BIND|rec, ""); err != nil {
		return fmt.Errorf("bind %s: %w", path, err)
	}
	err := unix.MountSetattr(-1, path, 0, &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY})
	if errors.Is(err, unix.ENOSYS) {
		err = unix.Mount("", path, "", unix.MS_BIND|unix.MS_REMOUNT, "")
	}
	if err != nil {
		return fmt.Errorf("make %s writable: %w", path, err)
	}
	return nil
}

// cacheEnv points the language tools at the private caches in dir: Go's
// build and module caches (modules come from the host's module cache
// first, read-only, through a file:// proxy), npm's cache and the XDG
// cache (pip and most others).
func cacheEnv(env []string, dir string) []string {
	return withVars(env, cacheVars(dir))
}

// cacheVars are the variables cacheEnv sets, as sorted NAME=value.
func cacheVars(dir string) []string {
	if dir == "" {
		return nil
	}
	proxy := os.Getenv("GOPROXY")
	if proxy == "" {
		proxy = "https://proxy.golang.org,direct"
	}
	home, _ := os.UserHomeDir()
	if mod := goModCache(home); mod != "" {
		if _, err := os.Stat(filepath.Join(mod, "cache", "download")); err == nil {
			proxy = "file://" + filepath.Join(mod, "cache", "download") + "," + proxy
		}
	}
	set := map[string]string{
		"GOCACHE":          filepath.Join(dir, "go-build"),
		"GOMODCACHE":       filepath.Join(dir, "go-mod"),
		"GOPROXY":          proxy,
		"npm_config_cache": filepath.Join(dir, "npm"),
		"XDG_CACHE_HOME":   filepath.Join(dir, "xdg"),
	}
	out := make([]string, 0, len(set))
	for _, name := range slices.Sorted(maps.Keys(set)) {
		out = append(out, name+"="+set[name])
	}
	return out
}

// withVars is env with vars (NAME=value) replacing any entries of the
// same names.
func withVars(env, vars []string) []string {
	if len(vars) == 0 {
		return env
	}
	names := make(map[string]bool, len(vars))
	for _, kv := range vars {
		name, _, _ := strings.Cut(kv, "=")
		names[name] = true
	}
	out := make([]string, 0, len(env)+len(vars))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !names[name] {
			out = append(out, kv)
		}
	}
	return append(out, vars...)
}
