#!/usr/bin/env bash
# Start-up time of `openseek --help` and peak memory of a 20-step run
# against the scripted model server. Usage: bench/startup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)/openseek
go build -o "$bin" ./cmd/openseek
go build -o "$(dirname "$bin")/llmscript" ./bench/llmscript

echo "== openseek --help, 50 runs"
start=$(date +%s%N)
for _ in $(seq 50); do "$bin" --help >/dev/null; done
end=$(date +%s%N)
echo "mean start-up: $(( (end - start) / 50 / 1000 )) µs"
/usr/bin/time -f "peak RSS of --help: %M KB" "$bin" --help >/dev/null

echo "== 20-step run against the scripted server"
ws=$(mktemp -d)
url_file=$(mktemp)
"$(dirname "$bin")/llmscript" -steps 20 -url-file "$url_file" &
srv=$!
trap 'kill $srv 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$url_file" ] && break; sleep 0.05; done
url=$(cat "$url_file")
/usr/bin/time -f "wall %e s, peak RSS of a 20-step run: %M KB" \
  "$bin" --api-url "$url" --model bench --dir "$ws" run "do twenty steps" >/dev/null
