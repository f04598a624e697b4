#!/usr/bin/env bash
# Debian packages the tests use (idempotent; a no-op when they are present).
set -euo pipefail
need=()
command -v java >/dev/null || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || need+=(maven)
# DashboardQueriesIT runs every dashboard query on InfluxDB 1.x's InfluxQL engine
command -v influxd >/dev/null || need+=(influxdb)
# ComposeFileTest validates docker-compose.yml offline with `docker-compose config`
command -v docker-compose >/dev/null || need+=(docker-compose)
# SystemdUnitTest checks the node agent's unit with `systemd-analyze verify`
command -v systemd-analyze >/dev/null || need+=(systemd)
# StatusPageChromiumIT renders the live status page in headless Chromium
command -v chromium >/dev/null || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing packages: ${need[*]} (run as root or install them)" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi
