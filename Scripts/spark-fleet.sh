#!/usr/bin/env bash
# Runs the Spark fleet job locally (Docs/scale.md):
#   bash Scripts/spark-fleet.sh --logs DIR --out DIR [--shards N] [--grid FILE] [more options of Spark/mqa_spark.py]
# Makes the pyspark virtual environment on first use (Scripts/spark-env.sh),
# builds mqa in release, and spark-submits Spark/mqa_spark.py on local[2].
# SPARK_MASTER overrides the master; the ",4" lets a failed task be retried
# as on a cluster (plain local[2] gives a task one attempt only).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
for arg in "$@"; do
    # Help needs neither Spark nor a build (the options are read before
    # pyspark is imported).
    if [ "$arg" = "-h" ] || [ "$arg" = "--help" ]; then exec python3 "$ROOT/Spark/mqa_spark.py" --help; fi
done
source "$ROOT/Scripts/spark-env.sh"
if [ -z "${MQA_BIN:-}" ]; then
    (cd "$ROOT" && bash Scripts/deps.sh >&2 && swift build -c release --product mqa >&2)
    MQA_BIN="$ROOT/.build/release/mqa"
fi
exec "$SPARK_VENV/bin/spark-submit" \
    --master "${SPARK_MASTER:-local[2,4]}" \
    --driver-memory "${SPARK_DRIVER_MEMORY:-2g}" \
    --driver-java-options "-Dlog4j2.configurationFile=file:$ROOT/Spark/log4j2.properties" \
    --conf spark.ui.enabled=false \
    --conf spark.ui.showConsoleProgress=false \
    --conf spark.python.worker.reuse=true \
    "$ROOT/Spark/mqa_spark.py" --mqa "$MQA_BIN" "$@"
