package runtime

import (
	"context"
	"strings"
	"time"

	"github.com/openseek/openseek/internal/hostgit"
	"github.com/openseek/openseek/internal/session"
)

// goalBaseline is the "[goal baseline]" marker of a goal set now in dir:
// the workspace's HEAD commit and whether it had changes not committed
// (the session directory aside), so that an audit of the goal (the
// review workflow) can look at the work done since. "" when dir is no
// git repository with a commit.
func goalBaseline(dir string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g := hostgit.Git{Dir: dir, Env: []string{"GIT_OPTIONAL_LOCKS=0"}}
	head, _, err := g.Run(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil || strings.TrimSpace(head) == "" {
		return ""
	}
	status, _, err := g.Run(ctx, "status", "--porcelain", "--untracked-files=normal", "--", ".", ":(exclude).openseek")
	if err != nil {
		return ""
	}
	dirty := "false"
	if strings.TrimSpace(status) != "" {
		dirty = "true"
	}
	return session.GoalBaselinePrefix + strings.TrimSpace(head) + " dirty=" + dirty
}
