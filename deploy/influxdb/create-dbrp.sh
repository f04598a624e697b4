#!/bin/sh
# Run once by the influxdb image after its automatic setup (/docker-entrypoint-initdb.d): maps the
# bucket to InfluxQL database "fabricpulse", retention policy "autogen", so Grafana's InfluxQL
# data source (dashboards/provisioning) can query it through /query.
set -eu
influx v1 dbrp create \
  --org "${DOCKER_INFLUXDB_INIT_ORG}" \
  --bucket-id "${DOCKER_INFLUXDB_INIT_BUCKET_ID}" \
  --db fabricpulse \
  --rp autogen \
  --default
