#!/usr/bin/env bash
# One-step runs of several openseek binaries, side by side: the scripted
# model (bench/llmscript) asks for one `echo`, then answers. The binaries'
# runs are interleaved (a, b, c, a, b, c, …) so that a busy machine slows
# them alike; for each binary, with --no-sandbox and with the sandbox,
# it prints the medians of
#
#   - wall time of the whole run (bash's $EPOCHREALTIME around it)
#   - CPU time, `perf stat -e task-clock` (children included: bash, git,
#     the sandbox's helper), steadier than wall time on a shared machine
#   - start-up to the first model request (the server notes the arrival)
#
# Usage: bench/onestep.sh RUNS binary...   (e.g. static builds of two
# commits: CGO_ENABLED=0 go build -o /tmp/old ./cmd/openseek)
# Environment: MODES (default "ns sb": --no-sandbox, sandbox on);
# NOPERF=1 times the runs without perf (whose start-up it slows by a few
# milliseconds; the CPU column is then 0). To measure a busy machine as
# the issue did, start two CPU burners first (`yes >/dev/null &` twice).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: bench/onestep.sh RUNS binary..." >&2
  exit 2
fi
if [ "${NOPERF:-0}" != 1 ]; then
  command -v perf >/dev/null || { echo "bench/onestep.sh needs perf (apt-get install linux-perf), or NOPERF=1" >&2; exit 2; }
fi
runs=$1
shift
tmp=$(mktemp -d)
srvs=()
cleanup() {
  for p in "${srvs[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/llmscript" ./bench/llmscript
# A home of its own: no user config, skills or MCP servers.
export HOME=$tmp/home
mkdir -p "$HOME"
modes=${MODES:-ns sb}

bins=()
declare -A url
for b in "$@"; do
  i=${#bins[@]}
  bins+=("$(realpath "$b")")
  for m in $modes; do
    k=$i-$m
    # Spare turns: a request retried under load must not shift the script.
    "$tmp/llmscript" -steps 2 -runs $((runs + 20)) -url-file "$tmp/$k.url" -arrivals "$tmp/$k.arr" &
    srvs+=($!)
    for _ in $(seq 100); do [ -s "$tmp/$k.url" ] && break; sleep 0.05; done
    url[$k]=$(cat "$tmp/$k.url")
  done
done

# one BIN-INDEX MODE: one run; appends "key wall-µs cpu-ms start-µs" to res.
one() {
  local k=$1-$2 flags=() ws t0 t1 cpu st
  [ "$2" = ns ] && flags=(--no-sandbox)
  ws=$(mktemp -d "$tmp/ws.XXXX")
  t0=${EPOCHREALTIME/./}
  if [ "${NOPERF:-0}" = 1 ]; then
    "${bins[$1]}" --api-url "${url[$k]}" --model bench --dir "$ws" "${flags[@]}" run "one step" >/dev/null
    t1=${EPOCHREALTIME/./}
    cpu=0
  else
    perf stat -x, -e task-clock -o "$tmp/perf" "${bins[$1]}" --api-url "${url[$k]}" --model bench --dir "$ws" "${flags[@]}" run "one step" >/dev/null
    t1=${EPOCHREALTIME/./}
    cpu=$(awk -F, '/task-clock/{print $1}' "$tmp/perf")
  fi
  st=$(awk -v t0="$t0" '$1 / 1000 >= t0 {print substr($1, 1, length($1) - 3); exit}' "$tmp/$k.arr")
  echo "$k $((t1 - t0)) $cpu $((st - t0))" >>"$tmp/res"
}

# The first sandboxed run builds the sandbox and marks the machine.
for i in "${!bins[@]}"; do for m in $modes; do one "$i" "$m"; done; done
: >"$tmp/res"
for _ in $(seq "$runs"); do
  for i in "${!bins[@]}"; do for m in $modes; do one "$i" "$m"; done; done
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
for i in "${!bins[@]}"; do
  for m in $modes; do
    k=$i-$m
    printf '%-40s %-12s wall %6.1f ms  CPU %6.1f ms  start-up %6.1f ms\n' "${bins[$i]}" \
      "$([ "$m" = ns ] && echo --no-sandbox || echo sandbox)" \
      "$(awk -v k="$k" '$1 == k {print $2 / 1000}' "$tmp/res" | median)" \
      "$(awk -v k="$k" '$1 == k {print $3}' "$tmp/res" | median)" \
      "$(awk -v k="$k" '$1 == k {print $4 / 1000}' "$tmp/res" | median)"
  done
done
