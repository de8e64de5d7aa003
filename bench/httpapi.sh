#!/bin/sh
# HTTP + SSE figures of `openseek serve --http` (internal/server/httpapi):
# events per second through one session to 1, 10 and 1,000 SSE subscribers,
# server memory per idle subscriber, and the time from a prompt POST to the
# first SSE event (with the engine's own share, measured without HTTP).
set -e
cd "$(dirname "$0")/.."
go test -run '^$' -bench 'FanOut' -benchtime 5000x ./internal/server/httpapi
go test -run '^$' -bench 'IdleSubscriber' -benchtime 3x ./internal/server/httpapi
go test -run '^$' -bench 'FirstEvent' -benchtime 50x ./internal/server/httpapi
