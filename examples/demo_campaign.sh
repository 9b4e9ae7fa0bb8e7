#!/usr/bin/env bash
# An offline campaign of three "models" of different reliability and price, then its report.
# The models are the scripted local server (thinkingbox serve-model): each replays the golden calls,
# and the cheaper ones close early now and then (--sloppy). Nothing leaves the machine.
#   examples/demo_campaign.sh [OUT_DIR] [K]
set -euo pipefail
out="${1:-demo}" k="${2:-4}" port=8765
mkdir -p "$out"
pytest domains -n auto -q -p no:randomly --tb-agent golden --tb-results "$out/golden.jsonl" > /dev/null
thinkingbox serve-model --script "$out/golden.jsonl" --port "$port" \
  --sloppy medium=0.03 --sloppy small=0.08 > "$out/server.log" 2>&1 &
server=$!
trap 'kill $server' EXIT
sleep 2
for model in large medium small; do
  cat > "$out/$model.yaml" <<YAML
endpoint: {base_url: "http://127.0.0.1:$port/v1", api_key_env: null}
agent: {model: $model}
prices:
  large: {input: 2.50, cached_input: 1.25, output: 10.00}
  medium: {input: 0.40, cached_input: 0.10, output: 1.60}
  small: {input: 0.10, cached_input: 0.025, output: 0.40}
YAML
  pytest domains -n auto -q -p no:randomly --tb-config "$out/$model.yaml" --tb-repeat "$k" \
    --tb-results "$out/$model.jsonl" > /dev/null || true  # failed attempts are the point
done
thinkingbox report "$out"/large.jsonl "$out"/medium.jsonl "$out"/small.jsonl --html "$out/report.html"
