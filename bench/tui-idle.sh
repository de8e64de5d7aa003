#!/usr/bin/env bash
# CPU time the terminal UI spends while nothing happens: the binary runs in
# a tmux pane (100x30) on an empty session, and after SETTLE seconds the
# user + system time of its process and its children (the sandbox's
# helper) is read from /proc/PID/stat (fields 14
# and 15, clock ticks) at the start and the end of IDLE seconds, and the
# time its threads ran from /proc/PID/task/*/schedstat (nanoseconds, finer
# than the ticks; threads that came and went between are missed). Nothing is
# typed and no model is asked (the API URL is never reached).
#
# Usage: bench/tui-idle.sh [path/to/openseek] [extra flags…]
#        (default: build ./cmd/openseek)
# Environment: IDLE (default 30), SETTLE (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
idle=${IDLE:-30}
settle=${SETTLE:-3}
bin=${1:-}
shift || true
tmp=$(mktemp -d)
sock="openseek-idle-$$"
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
if [ -z "$bin" ]; then
  bin="$tmp/openseek"
  CGO_ENABLED=0 go build -o "$bin" ./cmd/openseek
fi
mkdir -p "$tmp/ws" "$tmp/home"
tmux -L "$sock" new-session -d -x 100 -y 30 \
  "cd '$tmp/ws' && exec env -i HOME='$tmp/home' TERM=xterm-256color PATH='$PATH' '$bin' --api-url http://127.0.0.1:9/v1 --model idle-model $* tui"
sleep "$settle"
pid=$(tmux -L "$sock" display -p '#{pane_pid}') # exec: the pane's process is the UI
[ -d "/proc/$pid" ] || { echo "the UI is not running"; tmux -L "$sock" capture-pane -p; exit 1; }
# The UI and its children (the sandbox's helper) as one.
tree() { local p=$1; echo "$p"; for c in $(pgrep -P "$p"); do tree "$c"; done; }
pids=$(tree "$pid")
ticks() { for p in $pids; do awk '{print $14 + $15}' "/proc/$p/stat"; done | awk '{s += $1} END {print s}'; }
ran() { for p in $pids; do cat /proc/"$p"/task/*/schedstat; done | awk '{s += $1} END {printf "%d", s}'; }
wakes() { for p in $pids; do cat /proc/"$p"/task/*/status; done | awk '/^(voluntary|nonvoluntary)_ctxt_switches/ {s += $2} END {print s}'; }
hz=$(getconf CLK_TCK)
a=$(ticks); na=$(ran); wa=$(wakes)
sleep "$idle"
b=$(ticks); nb=$(ran); wb=$(wakes)
echo "idle ${idle}s: $(( (b - a) * 1000 / hz )) ms CPU (user+system, stat) · $(( (nb - na) / 1000000 )) ms run (schedstat) · $(( wb - wa )) context switches · pids $(echo $pids)"
