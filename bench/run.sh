#!/usr/bin/env bash
# Builds the JMH uber jar (bench/target/fabricpulse-bench.jar) and runs the fabricpulse benchmarks
# with settings sized for a 2-core machine (about 4 minutes for all of them). Results go to
# bench/results/<timestamp>.json (JMH JSON, with every iteration's raw score) and .txt (the log).
#
#   bench/run.sh                          # every benchmark
#   bench/run.sh CollectionCycle          # only those whose name matches a regex (JMH syntax)
#   JMH_OPTS="-f 2 -i 10" bench/run.sh    # extra JMH options, after the defaults (later ones win)
#
# Never part of `mvn verify`: no benchmark is a *Test or *IT, and surefire does not look in bench/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

jar="bench/target/fabricpulse-bench.jar"
echo "bench: building $jar ..." >&2
mvn -B -q -DskipTests package -pl bench -am >&2

# relative to the repository root (the forks run there): no machine path in the recorded results
testdata="collectors/testdata"

mkdir -p bench/results
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
out="bench/results/$stamp"

# Fork, warm-up and measurement settings are annotations on each benchmark class: 1 fork, 3 x 1 s
# warm-up and 5 x 1 s measured (RateStageBenchmark: 5 x 2 s each, its per-invocation setup leaves
# fewer timed calls per second). The forks get the testdata path, Avro's trusted package and quiet
# SLF4J logging.
# Other work on the machine disturbs the numbers: the load average before and after goes in the log.
echo "bench: load average before: $(cat /proc/loadavg 2>/dev/null || echo unknown)" | tee "$out.txt"
# shellcheck disable=SC2086
java -jar "$jar" \
  -jvmArgsAppend "-Dfabricpulse.testdata=$testdata -Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.fabricpulse.avro -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -Xss4m" \
  -rf json -rff "$out.json" \
  ${JMH_OPTS:-} "$@" 2>&1 | tee -a "$out.txt"
echo "bench: load average after: $(cat /proc/loadavg 2>/dev/null || echo unknown)" | tee -a "$out.txt"

echo "bench: results in $out.json and $out.txt" >&2
