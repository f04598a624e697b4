#!/usr/bin/env python3
"""Prints a JMH JSON result file (bench/results/*.json) as the Markdown table BENCHMARKS.md uses:
median of the measured iterations, mean +- 99.9% error, min..max, unit."""
import json
import sys


def fmt(x):
    if x != x:  # NaN: JMH gives no error bound for a single iteration
        return "n/a"
    if abs(x) >= 100:
        return f"{x:,.0f}"
    if abs(x) >= 10:
        return f"{x:,.1f}"
    return f"{x:,.2f}"


def main(path):
    with open(path) as f:
        runs = json.load(f)
    print("| benchmark | params | median | mean ± error (99.9%) | min .. max | unit |")
    print("|---|---|---:|---:|---:|---|")
    for run in runs:
        name = run["benchmark"].removeprefix("io.fabricpulse.bench.")
        params = ", ".join(f"{k}={v}" for k, v in (run.get("params") or {}).items()) or "-"
        m = run["primaryMetric"]
        raw = [x for fork in m["rawData"] for x in fork]
        median = m["scorePercentiles"]["50.0"]
        print(
            f"| {name} | {params} | {fmt(median)} | {fmt(m['score'])} ± {fmt(m['scoreError'])}"
            f" | {fmt(min(raw))} .. {fmt(max(raw))} | {m['scoreUnit']} |"
        )


if __name__ == "__main__":
    main(sys.argv[1])
