#!/usr/bin/env bash
# The Spark job's test (Spark/tests): makes the pyspark venv when missing
# (Scripts/spark-env.sh), uses the debug mqa that Scripts/test.sh built (or
# builds it), and runs pytest on a small simulated fleet with 3 shards,
# comparing fleet.json and tune.json with one store's.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
source Scripts/spark-env.sh
if [ -z "${MQA_BIN:-}" ]; then
    [ -x .build/debug/mqa ] || { bash Scripts/deps.sh; swift build --product mqa; }
    MQA_BIN="$ROOT/.build/debug/mqa"
fi
export MQA_BIN
"$SPARK_VENV/bin/python" -m pytest -q -p no:cacheprovider Spark/tests "$@"
