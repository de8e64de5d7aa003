package sandbox

import (
	"fmt"
	"runtime"
)

// Support is what the running kernel offers the sandbox.
type Support struct {
	// Landlock is the Landlock ABI version; 0 means no Landlock.
	Landlock int
	// UserNS, NetNS and MountNS report whether a child process can be
	// started in a new user namespace, and within it in a new network or
	// mount namespace.
	UserNS, NetNS, MountNS bool
}

// Problems returns, in plain words, each reason why p cannot be enforced
// with s; empty means p is enforceable. Each reason is a full sentence
// naming what is missing and what that leaves unprotected.
func (s Support) Problems(p Policy) []string {
	if runtime.GOOS != "linux" {
		return []string{fmt.Sprintf("The OS sandbox needs Linux; this system is %s, so commands cannot be confined.", runtime.GOOS)}
	}
	var out []string
	if _, err := p.validate(); err != nil {
		out = append(out, "The sandbox policy is invalid: "+err.Error()+".")
	}
	if s.Landlock < 1 {
		out = append(out, "The kernel has no Landlock (it needs Linux 5.13 or later with landlock in the lsm= list), so writes cannot be limited to the workspace.")
	}
	if !s.UserNS {
		out = append(out, "The kernel does not allow user namespaces (see /proc/sys/user/max_user_namespaces, kernel.unprivileged_userns_clone or AppArmor's userns restriction), so commands cannot be isolated.")
	} else {
		if !s.MountNS && len(p.ReadOnly) > 0 {
			out = append(out, "Mount namespaces are unavailable, so .git, .openseek and the config files cannot be kept read-only.")
		}
		if !s.NetNS && !p.Network {
			out = append(out, "Network namespaces are unavailable, so network access cannot be turned off.")
		}
	}
	return out
}

// String describes s in a line, for `openseek doctor`.
func (s Support) String() string {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	ll := "no"
	if s.Landlock > 0 {
		ll = fmt.Sprintf("ABI %d", s.Landlock)
	}
	return fmt.Sprintf("landlock: %s, user namespaces: %s, network namespaces: %s, mount namespaces: %s",
		ll, yes(s.UserNS), yes(s.NetNS), yes(s.MountNS))
}
