#!/usr/bin/env bash
# Sourced by spark-fleet.sh and test-spark.sh: a Python virtual environment
# with a pinned pyspark (and pytest), outside git, made on first use and
# reused after. Sets SPARK_VENV and the variables spark-submit needs.
#
# pyspark 3.5.x runs on the JDK 17 we have (Spark 3.3+ supports Java 17);
# the pin moves only with a re-test of Scripts/test-spark.sh.
PYSPARK_VERSION=3.5.7
PYTEST_VERSION=9.2.0
SPARK_VENV="${MQA_SPARK_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/mqa/spark-venv-$PYSPARK_VERSION}"

if ! command -v java >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "spark-env: installing a JDK (openjdk-17-jre-headless)" >&2
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
    else
        echo "spark-env: Spark needs Java (JDK 17): install it first" >&2
        exit 1
    fi
fi

if [ ! -f "$SPARK_VENV/.mqa-ready" ]; then
    echo "spark-env: creating $SPARK_VENV (pyspark $PYSPARK_VERSION, once)" >&2
    rm -rf "$SPARK_VENV"
    python3 -m venv "$SPARK_VENV"
    "$SPARK_VENV/bin/pip" install -q --disable-pip-version-check \
        "pyspark==$PYSPARK_VERSION" "pytest==$PYTEST_VERSION"
    touch "$SPARK_VENV/.mqa-ready"  # only a finished install is reused
fi

export PYSPARK_PYTHON="$SPARK_VENV/bin/python"
export PYSPARK_DRIVER_PYTHON="$SPARK_VENV/bin/python"
export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
