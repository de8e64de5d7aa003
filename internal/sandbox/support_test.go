package sandbox

import (
	"os/exec"
	"strings"
	"testing"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

func TestProblems(t *testing.T) {
	full := Support{Landlock: 7, UserNS: true, NetNS: true, MountNS: true}
	pol := DefaultPolicy("/work/ws")
	netOn := pol
	netOn.Network = true
	tests := []struct {
		name string
		s    Support
		p    Policy
		want []string // substrings, one per problem, in order
	}{
		{"everything there", full, pol, nil},
		{"no landlock", Support{UserNS: true, NetNS: true, MountNS: true}, pol,
			[]string{"The kernel has no Landlock (it needs Linux 5.13 or later with landlock in the lsm= list), so writes cannot be limited to the workspace."}},
		{"no user namespaces", Support{Landlock: 3}, pol,
			[]string{"The kernel does not allow user namespaces (see /proc/sys/user/max_user_namespaces, kernel.unprivileged_userns_clone or AppArmor's userns restriction), so commands cannot be isolated."}},
		{"no network namespace, network off", Support{Landlock: 3, UserNS: true, MountNS: true}, pol,
			[]string{"Network namespaces are unavailable, so network access cannot be turned off."}},
		{"no network namespace, network on", Support{Landlock: 3, UserNS: true, MountNS: true}, netOn, nil},
		{"no mount namespace", Support{Landlock: 3, UserNS: true, NetNS: true}, pol,
			[]string{"Mount namespaces are unavailable, so .git, .openseek and the config files cannot be kept read-only."}},
		{"nothing", Support{}, pol, []string{"no Landlock", "user namespaces"}},
		{"relative workspace", full, Policy{Workspace: "ws"}, []string{`The sandbox policy is invalid: sandbox workspace "ws" is not an absolute path.`}},
		{"relative writable root", full, Policy{Workspace: "/ws", WritableRoots: []string{"tmp"}}, []string{`writable path "tmp" is not absolute`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.s.Problems(tt.p)
			if len(got) != len(tt.want) {
				t.Fatalf("Problems = %q, want %d problems like %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to say %q", i, got[i], w)
				}
			}
		})
	}
}

func TestSupportString(t *testing.T) {
	tests := []struct {
		s    Support
		want string
	}{
		{Support{Landlock: 7, UserNS: true, NetNS: true, MountNS: true}, "landlock: ABI 7, user namespaces: yes, network namespaces: yes, mount namespaces: yes"},
		{Support{}, "landlock: no, user namespaces: no, network namespaces: no, mount namespaces: no"},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

// TestDetect compares Detect with what the kernel says through other
// means: the Landlock syscall and util-linux's unshare.
func TestDetect(t *testing.T) {
	s := Detect()
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil {
		abi = 0
	}
	if s.Landlock != abi {
		t.Errorf("Landlock = %d, kernel says %d", s.Landlock, abi)
	}
	unshare := func(args ...string) bool {
		return exec.Command("unshare", append(args, "true")...).Run() == nil
	}
	for _, c := range []struct {
		name string
		got  bool
		args []string
	}{
		{"UserNS", s.UserNS, []string{"--user"}},
		{"NetNS", s.NetNS, []string{"--user", "--net"}},
		{"MountNS", s.MountNS, []string{"--user", "--mount"}},
	} {
		if want := unshare(c.args...); c.got != want {
			t.Errorf("%s = %v, unshare %v says %v", c.name, c.got, c.args, want)
		}
	}
}
