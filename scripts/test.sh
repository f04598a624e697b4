#!/usr/bin/env bash
# The whole test suite: unit tests, TopologyTestDriver tests and the integration tests against a
# real in-process Kafka broker and a real time-series server. Installs what the tests need first.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
bash scripts/install-test-deps.sh
mvn -B verify "$@"
