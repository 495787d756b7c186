#!/usr/bin/env python3
#===- check_corpus.py - Lint (and ptxas) over the PTX corpus ---------------===#
#
# Good files (nvptx/, nvcc/, triton/, hand/) must lint with no error and no
# warning. Broken files (broken/) carry markers on the culprit lines:
#   // LINT: <code> <culprit>          an error of <code> on this line whose
#                                      message names <culprit>
#   // LINT-WARNING: <code> <culprit>  the same for a warning
#   // LINT-NOTE: <code>               the error of <code> has a note here
# and every error or warning lint reports must be marked.
# With --ptxas, ptxas must accept every good file and reject every broken
# file that has an error marker, and lint must agree on the lines: each line
# lint calls an error is one ptxas calls an error, and ptxas's first error
# line is among lint's (unless the file says "// PTXAS-DIFFERS: why").
#
# usage: check_corpus.py LLMPTX_PTX CORPUS_DIR [--ptxas PTXAS]
#===------------------------------------------------------------------------===#
import json
import os
import re
import subprocess
import sys

GOOD_DIRS = ["nvptx", "nvcc", "triton", "hand"]
MARK = re.compile(r"//\s*(LINT|LINT-WARNING|LINT-NOTE):\s*(\S+)\s*(\S*)")
PTXAS_LINE = re.compile(r", line (\d+); (error|fatal)")


def lint(tool, path):
    proc = subprocess.run([tool, "lint", "--json", path], capture_output=True,
                          text=True)
    if proc.returncode not in (0, 1):
        raise SystemExit("%s crashed on %s: %s" % (tool, path, proc.stderr))
    return json.loads(proc.stdout)["files"][0]["diagnostics"]


def chip_of(text):
    m = re.search(r"^\s*\.target\s+(sm_\w+)", text, re.M)
    return m.group(1) if m else "sm_90"


def ptxas_errors(ptxas, path, chip):
    proc = subprocess.run([ptxas, "-arch=" + chip, path, "-o", os.devnull],
                          capture_output=True, text=True)
    lines = {int(m.group(1)) for m in PTXAS_LINE.finditer(proc.stderr)}
    return proc.returncode, lines, proc.stderr


def main():
    tool, corpus = sys.argv[1], sys.argv[2]
    ptxas = None
    if "--ptxas" in sys.argv:
        ptxas = sys.argv[sys.argv.index("--ptxas") + 1]
    passed = failed = 0
    agree = compared = 0

    def fail(path, why):
        nonlocal failed
        failed += 1
        print("FAIL %s: %s" % (os.path.relpath(path, corpus), why))

    for d in GOOD_DIRS:
        for name in sorted(os.listdir(os.path.join(corpus, d))):
            if not name.endswith(".ptx"):
                continue
            path = os.path.join(corpus, d, name)
            diags = lint(tool, path)
            if diags:
                fail(path, "expected no diagnostics, got: " +
                     "; ".join("%d: %s [%s]" % (x["line"], x["message"],
                                                x["code"]) for x in diags))
                continue
            if ptxas:
                text = open(path).read()
                rc, _, err = ptxas_errors(ptxas, path, chip_of(text))
                if rc != 0:
                    fail(path, "ptxas rejects a good file: " + err.strip())
                    continue
            passed += 1
            print("PASS %s/%s (clean)" % (d, name))

    broken_dir = os.path.join(corpus, "broken")
    for name in sorted(os.listdir(broken_dir)):
        if not name.endswith(".ptx"):
            continue
        path = os.path.join(broken_dir, name)
        text = open(path).read()
        marks = []
        for lineno, line in enumerate(text.splitlines(), 1):
            for m in MARK.finditer(line):
                marks.append((m.group(1), lineno, m.group(2), m.group(3)))
        diags = lint(tool, path)
        problems = []
        want_errors = {(l, c) for k, l, c, _ in marks if k == "LINT"}
        want_warnings = {(l, c) for k, l, c, _ in marks if k == "LINT-WARNING"}
        for kind, lineno, code, culprit in marks:
            if kind == "LINT-NOTE":
                if not any(x["code"] == code and
                           any(n["line"] == lineno for n in x["notes"])
                           for x in diags):
                    problems.append("no note of %s at line %d" % (code, lineno))
                continue
            sev = "error" if kind == "LINT" else "warning"
            hits = [x for x in diags if x["severity"] == sev and
                    x["line"] == lineno and x["code"] == code]
            if not hits:
                problems.append("no %s %s at line %d" % (sev, code, lineno))
            elif culprit and not any(culprit in x["message"] or
                                     culprit in x["hint"] for x in hits):
                problems.append("%s at line %d does not name %r: %s" %
                                (code, lineno, culprit, hits[0]["message"]))
        for x in diags:
            key = (x["line"], x["code"])
            if x["severity"] == "error" and key not in want_errors:
                problems.append("unexpected error at line %d: %s [%s]" %
                                (x["line"], x["message"], x["code"]))
            if x["severity"] == "warning" and key not in want_warnings:
                problems.append("unexpected warning at line %d: %s [%s]" %
                                (x["line"], x["message"], x["code"]))
        if ptxas:
            rc, plines, err = ptxas_errors(ptxas, path, chip_of(text))
            lint_lines = {x["line"] for x in diags if x["severity"] == "error"}
            if want_errors:
                compared += 1
                if rc == 0:
                    problems.append("ptxas accepts a file lint rejects")
                elif "PTXAS-DIFFERS" in text:
                    agree += 1
                elif not lint_lines <= plines:
                    problems.append("lint flags lines %s, ptxas %s" %
                                    (sorted(lint_lines - plines),
                                     sorted(plines)))
                elif plines and min(plines) not in lint_lines:
                    problems.append("ptxas's first error (line %d) is not "
                                    "flagged by lint" % min(plines))
                else:
                    agree += 1
            elif rc != 0:
                problems.append("ptxas rejects a warnings-only file: " +
                                err.strip())
        if problems:
            fail(path, "; ".join(problems))
        else:
            passed += 1
            print("PASS broken/%s (%s)" % (name, ", ".join(
                sorted({c for _, _, c, _ in marks}))))
    if ptxas:
        print("lint agrees with ptxas on %d of %d broken files" %
              (agree, compared))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
