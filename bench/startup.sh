#!/usr/bin/env bash
# Start-up and memory figures of the openseek binary, against the scripted
# model server (bench/llmscript) over loopback HTTP:
#
#   - binary size and the package-init total (GODEBUG=inittrace=1), median
#   - the floor: start-up to the request, and peak RSS, of bench/floor, a
#     Go program that only posts the request (process start, Go runtime,
#     net/http, a loopback round trip)
#   - mean wall time of `openseek --help`
#   - start-up to the first model request of `openseek run`: the time is
#     taken just before exec (bash's $EPOCHREALTIME, no fork) and the server
#     notes when the request's headers arrive; median of RUNS runs, with
#     --no-sandbox and with the sandbox (the first run builds it and marks
#     the machine, ~/.openseek/run/sandbox-ok, so the others ask the model
#     while it is built); and the CPU time (user + system,
#     children included) of that one-request run, steadier under load
#   - peak RSS and wall time of a 20-step run (20 model requests, 19 shell
#     commands), median of RSS_RUNS runs, with --no-sandbox and the sandbox;
#     beside it the largest anonymous (private: heap, stacks) and file-backed
#     (the binary's pages) resident sizes seen, sampled every 5 ms. The
#     file-backed part depends on how the kernel caches the binary: where
#     the page cache holds it in large folios (ext4 on recent kernels) every
#     touched 2 MiB block of code is mapped whole, so it follows the binary's
#     size more than the code a run executes.
#
# Usage: bench/startup.sh [path/to/openseek]   (default: build ./cmd/openseek with CGO_ENABLED=0)
# Environment: RUNS (default 20), RSS_RUNS (default 3), TAGS (build tags of
# the binary it builds, e.g. TAGS=headless).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-20}
rss_runs=${RSS_RUNS:-3}
tmp=$(mktemp -d)
srv=
cleanup() {
  if [ -n "$srv" ]; then kill "$srv" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

if [ $# -ge 1 ]; then
  bin=$(realpath "$1")
else
  bin=$tmp/openseek
  # As the README installs it: static (no cgo), so no dynamic loader and
  # no libc to map at every start.
  CGO_ENABLED=0 go build ${TAGS:+-tags "$TAGS"} -o "$bin" ./cmd/openseek
fi
go build -o "$tmp/llmscript" ./bench/llmscript
# A home of its own: no user config, skills or MCP servers.
export HOME=$tmp/home
mkdir -p "$HOME"

# sample PID: the largest RssAnon and RssFile of process PID, in KB, until
# it exits.
sample() {
  local a=0 f=0 k v _ tick
  # A pipe nobody writes to: read -t on it sleeps without starting a process.
  exec {tick}<> <(:)
  while [ -r "/proc/$1/status" ]; do
    while read -r k v _; do
      case $k in
        RssAnon:) [ "$v" -gt "$a" ] && a=$v ;;
        RssFile:) [ "$v" -gt "$f" ] && f=$v ;;
      esac
    done <"/proc/$1/status" 2>/dev/null || true
    read -r -t 0.005 -u "$tick" _ || true
  done
  exec {tick}<&-
  echo "$a $f"
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR == 0) exit 1; print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
now_us() { local t=$EPOCHREALTIME; echo "${t/./}"; }

# serve STEPS RUNS: starts llmscript; sets url and arrivals.
serve() {
  if [ -n "$srv" ]; then kill "$srv" 2>/dev/null || true; wait "$srv" 2>/dev/null || true; fi
  local url_file=$tmp/url
  arrivals=$tmp/arrivals
  rm -f "$url_file" "$arrivals"
  "$tmp/llmscript" -steps "$1" -runs "$2" -url-file "$url_file" -arrivals "$arrivals" &
  srv=$!
  for _ in $(seq 100); do [ -s "$url_file" ] && break; sleep 0.05; done
  url=$(cat "$url_file")
}

echo "== binary: $(stat -c %s "$bin") bytes"

echo "== package init (GODEBUG=inittrace=1 openseek --help), $runs runs"
for _ in $(seq "$runs"); do
  GODEBUG=inittrace=1 "$bin" --help 2>&1 >/dev/null | awk '/^init /{ms += $5; b += $8} END {printf "%.2f %d\n", ms, b}'
done >"$tmp/init"
echo "median init total: $(awk '{print $1}' "$tmp/init" | median) ms, $(awk '{print $2}' "$tmp/init" | median) bytes allocated"

echo "== openseek --help, 50 runs"
start=$(date +%s%N)
for _ in $(seq 50); do "$bin" --help >/dev/null; done
end=$(date +%s%N)
echo "mean start-up: $(((end - start) / 50 / 1000)) µs"
/usr/bin/time -f "peak RSS of --help: %M KB" "$bin" --help >/dev/null

# The floor: a Go program that only posts one request with net/http.
CGO_ENABLED=0 go build -o "$tmp/floor" ./bench/floor
echo "== floor: start-up to the request of a Go program that only posts it (bench/floor), $runs runs"
serve 1 "$runs"
: >"$tmp/starts"
for i in $(seq "$runs"); do
  t0=$(now_us)
  "$tmp/floor" "$url"
  arrived=$(sed -n "${i}p" "$arrivals")
  echo $((arrived / 1000 - t0)) >>"$tmp/starts"
done
echo "median: $(median <"$tmp/starts") µs (min $(sort -n "$tmp/starts" | head -1), max $(sort -n "$tmp/starts" | tail -1))"
/usr/bin/time -o "$tmp/time" -f "%M" "$tmp/floor" "$url" 2>/dev/null || true
echo "its peak RSS: $(cat "$tmp/time") KB"

for mode in --no-sandbox sandbox; do
  flags=()
  [ "$mode" = --no-sandbox ] && flags=(--no-sandbox)
  echo "== start-up to the first model request, run ${flags[*]:-(sandbox on)}, $runs runs"
  serve 1 "$runs"
  : >"$tmp/starts"
  for i in $(seq "$runs"); do
    ws=$(mktemp -d "$tmp/ws.XXXX")
    t0=$(now_us)
    "$bin" --api-url "$url" --model bench --dir "$ws" "${flags[@]}" run "say done" >/dev/null
    arrived=$(sed -n "${i}p" "$arrivals")
    echo $((arrived / 1000 - t0)) >>"$tmp/starts"
  done
  echo "median: $(median <"$tmp/starts") µs (min $(sort -n "$tmp/starts" | head -1), max $(sort -n "$tmp/starts" | tail -1))"
  # CPU time is steadier than wall time on a shared machine: user + system
  # time of the whole one-request run, git and sandbox children included.
  serve 1 "$runs"
  : >"$tmp/cpu"
  for _ in $(seq "$runs"); do
    ws=$(mktemp -d "$tmp/ws.XXXX")
    /usr/bin/time -o "$tmp/time" -f "%U %S" \
      "$bin" --api-url "$url" --model bench --dir "$ws" "${flags[@]}" run "say done" >/dev/null
    awk '{printf "%d\n", ($1 + $2) * 1000}' "$tmp/time" >>"$tmp/cpu"
  done
  echo "CPU time of a one-request run: median $(median <"$tmp/cpu") ms (min $(sort -n "$tmp/cpu" | head -1))"

  echo "== 20-step run ${flags[*]:-(sandbox on)}, $rss_runs runs"
  serve 20 "$rss_runs"
  : >"$tmp/rss"
  for _ in $(seq "$rss_runs"); do
    ws=$(mktemp -d "$tmp/ws.XXXX")
    /usr/bin/time -o "$tmp/time" -f "%M %e" \
      "$bin" --api-url "$url" --model bench --dir "$ws" "${flags[@]}" run "do twenty steps" >/dev/null &
    timer=$!
    child=
    for _ in $(seq 200); do child=$(pgrep -P "$timer" || true); [ -n "$child" ] && break; sleep 0.001; done
    parts="0 0"
    [ -n "$child" ] && parts=$(sample "$child")
    wait "$timer"
    echo "$(cat "$tmp/time") $parts" >>"$tmp/rss"
  done
  echo "median peak RSS: $(awk '{print $1}' "$tmp/rss" | median) KB (anonymous $(awk '{print $3}' "$tmp/rss" | median) KB, file-backed $(awk '{print $4}' "$tmp/rss" | median) KB), median wall: $(awk '{print $2}' "$tmp/rss" | median) s"
done
