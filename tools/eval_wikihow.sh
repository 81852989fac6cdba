#!/usr/bin/env bash
# Regenerates results/wikihow/: the committed evaluation report on the VideoRAG paper's bench.
# Run from the repository root: bash tools/eval_wikihow.sh [OUT]
# Needs ../shared/bench/howto100m-wikihow (or $VIDEORAG_BENCH). ~1 h on 2 cores, most of it the
# first-time transcript embeddings (cached afterwards) and llamacpp generation.
set -euo pipefail
out=${1:-results/wikihow}
videorag eval reproduce --bertscore-model '' --out "$out"
videorag eval retrieval --method all --out "$out"
videorag eval sweep --out "$out"
python -m benchmarks best_ablation --out "$out"
for gen in extractive llamacpp; do
  for method in naive textvideorag oracle; do
    videorag eval generation --method "$method" --generator "$gen" --limit 100 --bertscore-model '' --out "$out"
  done
done
videorag eval generation --method textvideorag --generator llamacpp --limit 100 --judge llamacpp --out "$out/geval"
