// Command action is the step of the repository's GitHub Action
// (action.yml): it runs openseek on the pull request and posts the result
// as a comment (package internal/ghaction).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/openseek/openseek/internal/ghaction"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := ghaction.Main(ctx, os.Getenv, os.Environ(), os.Stderr)
	stop()
	os.Exit(code)
}
