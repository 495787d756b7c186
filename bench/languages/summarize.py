#!/usr/bin/env python3
"""The tables of docs/benchmarks.md ("Candidate languages") from a study
folder that bench/languages/study.sh made (or its archive unpacked).

    python3 bench/languages/summarize.py STUDY_DIR [--json FILE]

Per language: first answers that compiled (NVRTC for CUDA, then lint, the
ABI check and ptxas), candidates that passed execution, the answers' length,
model calls that gave no code, and per kernel what select=auto chose with
its speedup over the NVPTX reference (the runner's median at the harness's
timing shape; 1.00x where the reference stayed selected).
"""

import argparse
import glob
import json
import math
import os
import re
import statistics
import sys

LANGUAGES = ("ptx", "cuda", "auto")
# Attempt statuses of a model call that gave no code (the report's
# spelling, lib/Pipeline/Candidate.cpp).
NO_CODE = ("provider-error", "no-ptx")


def answer_lengths(study):
    """Bytes of every first answer in the study's answer cache (a request of
    two messages), by the language of its code block."""
    lengths = {"ptx": [], "cuda": []}
    for path in glob.glob(os.path.join(study, "cache", "v1", "*", "*.json")):
        entry = json.load(open(path))
        if len(entry.get("request", {}).get("messages", [])) != 2:
            continue
        language = "cuda" if "```cuda" in entry["completion"] else "ptx"
        lengths[language].append(len(entry["completion"].encode("utf-8")))
    return lengths


def speedup_of(kernel):
    if kernel.get("selected") != "llm":
        return 1.0
    match = re.search(r"([0-9.]+)x the reference", kernel.get("reason", ""))
    return float(match.group(1)) if match else None


def summarize(study):
    rows, per_kernel = {}, {}
    for language in LANGUAGES:
        reports = sorted(glob.glob(os.path.join(study, language, "out",
                                                "*.report.json")))
        if not reports:
            continue
        first = first_ok = passed = samples = no_code = 0
        speedups, by_language = [], {"ptx": 0, "cuda": 0}
        for path in reports:
            for kernel in json.load(open(path))["kernels"]:
                for attempt in kernel.get("attempts", []):
                    if attempt.get("optimization_round", 0) != 0:
                        continue
                    if attempt.get("status") in NO_CODE:
                        no_code += 1
                    if attempt.get("round", 0) == 0:
                        first += 1
                        first_ok += attempt.get("status") == "compiled"
                candidates = kernel.get("candidates", [])
                samples += len(candidates)
                passed += sum(c.get("exec_verdict") == "pass"
                              for c in candidates)
                speedup = speedup_of(kernel)
                chosen = next((c for c in candidates
                               if c["name"] == kernel.get("candidate")), None)
                if chosen and kernel.get("selected") == "llm":
                    by_language[chosen.get("language", "ptx")] += 1
                per_kernel.setdefault(kernel["name"], {})[language] = (
                    "%s %.2fx" % (kernel.get("candidate", "-")
                                  if kernel.get("selected") == "llm"
                                  else "NVPTX", speedup or float("nan")))
                if speedup:
                    speedups.append(speedup)
        lengths = (answer_lengths(study)[language]
                   if language != "auto" else [])
        rows[language] = {
            "kernels": len(reports), "first_answers": first,
            "first_compiled": first_ok, "candidates_passed": passed,
            "samples": samples, "no_code": no_code,
            "answer_bytes_median": (statistics.median(lengths)
                                    if lengths else None),
            "geomean_speedup": math.exp(sum(map(math.log, speedups))
                                        / len(speedups)) if speedups else None,
            "selected_from": by_language}
    return rows, per_kernel


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study")
    parser.add_argument("--json")
    args = parser.parse_args()
    if not os.path.isdir(args.study):
        print("error: %s: not a study folder" % args.study, file=sys.stderr)
        return 2
    rows, per_kernel = summarize(args.study)
    print("| language | first answers compiled | candidates passed | "
          "median answer (bytes) | calls without code | selected from | "
          "geomean speedup over NVPTX |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for language, r in rows.items():
        median = r["answer_bytes_median"]
        print("| %s | %d / %d | %d / %d | %s | %d | %s | %.2fx |" % (
            language, r["first_compiled"], r["first_answers"],
            r["candidates_passed"], r["samples"],
            "%d" % median if median is not None else "(theirs)",
            r["no_code"],
            ", ".join("%s %d" % kv for kv in r["selected_from"].items()),
            r["geomean_speedup"] or float("nan")))
    print()
    print("| kernel | " + " | ".join(rows) + " |")
    print("| --- |" + " --- |" * len(rows))
    for name in sorted(per_kernel):
        print("| %s | %s |" % (name, " | ".join(
            per_kernel[name].get(language, "-") for language in rows)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"languages": rows, "kernels": per_kernel}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
