#!/usr/bin/env python3
"""Benchmark of llmptx-runner: overhead per bundle and run-to-run spread.

  runner_overhead.py [--runner PATH] [--repeats N] [--json FILE]

(on a Python with the llmptx package, docs/python.md: the runner is found as
every script finds a tool of the build, llmptx.tools, unless --runner names
one)

Measures, with the bundles of test/Inputs/runtime:
  1. `llmptx-runner --probe`: loading and initialising the driver.
  2. A one-entry bundle (vadd, N=1, one candidate, --no-timing): the fixed
     cost of a bundle (probe, one worker process, context, module loads).
  3. The same candidate on 16 small shapes: the cost of each further entry.
  4. The vectorized vadd against the NVPTX reference at N = 2^25, timed
     REPEATS times in separate runner invocations: the median speedup of
     each invocation, and how much they differ.
Needs a GPU; prints a table and optionally writes the numbers as JSON.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from llmptx.tools import find_tool

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
INPUTS = os.path.join(ROOT, "test", "Inputs", "runtime")


def make_bundle(template, folder, name, **fields):
    path = os.path.join(folder, name)
    command = [sys.executable, os.path.join(INPUTS, "mkbundle.py"),
               os.path.join(INPUTS, template), "-o", path]
    for key, value in fields.items():
        command += ["--set", key + "=" + json.dumps(value)]
    subprocess.run(command, check=True)
    return path


def timed(command):
    start = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (result.returncode, " ".join(command),
                                          result.stdout))
    return seconds, result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runner", help="the llmptx-runner to time (a path "
                        "or a command on PATH)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    runner = find_tool("llmptx-runner", explicit=args.runner)
    numbers = {}
    with tempfile.TemporaryDirectory() as folder:
        scalar = [{"name": "scalar", "entry": "vadd",
                   "ptx": "@file:vadd-scalar.ptx"}]
        one = make_bundle("vadd-corpus.bundle.in", folder, "one.json",
                          shapes=[{"N": 1}], candidates=scalar)
        many = make_bundle("vadd-corpus.bundle.in", folder, "many.json",
                           shapes=[{"N": n} for n in range(1, 17)],
                           candidates=scalar)
        timing = make_bundle(
            "vadd-timing.bundle.in", folder, "timing.json",
            shapes=[{"N": 1}, {"N": 1 << 25}],
            candidates=[{"name": "v4", "entry": "vadd",
                         "ptx": "@file:vadd-v4.ptx",
                         "launch": {"grid": ["ceildiv(N, 2048)", 1, 1],
                                    "block": [256, 1, 1]}}],
            timing={"shape": -1, "min_runs": 50, "max_ms": 1000})

        probe = [timed([runner, "--probe"])[0] for _ in range(args.repeats)]
        single = [timed([runner, "--no-timing", one])[0]
                  for _ in range(args.repeats)]
        sixteen = [timed([runner, "--no-timing", many])[0]
                   for _ in range(args.repeats)]
        speedups, spreads, walls = [], [], []
        for i in range(args.repeats):
            results = os.path.join(folder, "timing-%d.json" % i)
            seconds, _ = timed([runner, timing, "-o", results])
            walls.append(seconds)
            with open(results) as f:
                data = json.load(f)
            t = data["bundles"][0]["candidates"][0]["timing"]
            speedups.append(t["speedup"])
            spreads.append(t["speedup_spread"])
            numbers.setdefault("timed_runs", t["candidate_ms"]["runs"])
            numbers.setdefault("reference_ms_first", t["reference_ms"]["median"])
            numbers.setdefault("candidate_ms_first", t["candidate_ms"]["median"])

    median = statistics.median
    per_entry = (median(sixteen) - median(single)) / 15
    numbers.update({
        "repeats": args.repeats,
        "probe_s": probe, "one_entry_bundle_s": single,
        "sixteen_entry_bundle_s": sixteen,
        "per_extra_entry_s": per_entry,
        "timing_bundle_s": walls,
        "speedups": speedups, "speedup_spreads_p10_p90": spreads,
    })
    print("llmptx-runner overhead (median of %d, seconds of wall time)"
          % args.repeats)
    print("  --probe (load + init the driver)      %.3f" % median(probe))
    print("  bundle with one entry (N=1)           %.3f" % median(single))
    print("  bundle with 16 entries (N=1..16)      %.3f" % median(sixteen))
    print("  each further entry                    %.3f" % per_entry)
    print("  timing bundle (2 shapes, timed 2^25)  %.3f" % median(walls))
    print("vectorized vadd vs NVPTX at N=2^25, %d invocations "
          "(%d timed pairs each):" % (args.repeats, numbers["timed_runs"]))
    for s, (lo, hi) in zip(speedups, spreads):
        print("  speedup %.3fx  (pairs p10 %.3f, p90 %.3f)" % (s, lo, hi))
    spread = (max(speedups) - min(speedups)) / median(speedups)
    numbers["speedup_range_relative"] = spread
    print("  across invocations: min %.3f, median %.3f, max %.3f "
          "(range %.1f%% of the median)"
          % (min(speedups), median(speedups), max(speedups), 100 * spread))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(numbers, f, indent=2)


if __name__ == "__main__":
    main()
