#!/usr/bin/env bash
# The whole test suite: unit tests, TopologyTestDriver tests and the integration tests against a
# real in-process Kafka broker and a real time-series server. Checks first that no tracked file refers
# to anything outside the repository, then installs what the tests need.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash scripts/check-standalone.sh
bash scripts/install-test-deps.sh
mvn -B verify "$@"
