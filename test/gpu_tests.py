#!/usr/bin/env python3
"""Runs the project's `REQUIRES: cuda` lit tests on the GPU machine, which has
neither lit nor FileCheck, and checks their output here.

    # on the GPU machine (from the repository root, build/bin carried):
    python3 test/gpu_tests.py run --build build --out $OUT/gpu-tests TEST...
    # back here, on the folder the run brought back:
    python3 test/gpu_tests.py check --out DIR [--filecheck PATH]

Programs that need LLVM/MLIR tools to build (test/Integration/GPU: built by
llmptx-opt and host_build, run under `%if cuda %{ ... %}`) are split in two:

    # here: run the lines outside `%if cuda`, keeping what they build in KIT
    python3 test/gpu_tests.py prepare --build build --kit KIT TEST...
    # on the GPU machine (KIT carried): run the `%if cuda` lines only
    python3 test/gpu_tests.py run --kit KIT --out $OUT/gpu-tests

`run` executes each test's RUN lines with lit's substitutions (%python,
%inputs, %S, %s, %t, %llmptx_libs, the build's tools first on PATH).
%python is --python: a Python with the llmptx package installed (the tests
run its test doubles, llmptx.testing), by default the build's virtual
environment (BUILD/venv, which ./llmptx.sh makes) when it has the package,
else the Python running this script. Where neither has it, install it
first, e.g. `python3 -m venv --system-site-packages /tmp/venv &&
/tmp/venv/bin/pip install --no-deps -e .` (docs/python.md). A
pipeline that ends in `| FileCheck ARGS` runs without its last stage and
its output is kept; a `FileCheck ARGS < FILE` or `--input-file=FILE` line
keeps FILE. `not CMD` inverts the exit status as lit's `not` does, and
`not --crash` expects a signal. `check` then runs the real FileCheck on
every kept output with the test's own CHECK lines and prints lit-style
PASS/FAIL lines; it exits 1 when any test failed on either side.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_lines(path):
    """The RUN commands of a test file, continuation lines joined and
    `DEFINE: %{name} = value` substitutions applied."""
    commands, pending, defined = [], "", {}
    for line in open(path, encoding="utf-8"):
        definition = re.search(r"\bDEFINE:\s*(%\{[\w.-]+\})\s*=\s*(.*)$",
                               line)
        if definition:
            defined[definition.group(1)] = definition.group(2).strip()
            continue
        match = re.search(r"RUN:\s?(.*)$", line)
        if not match:
            continue
        text = match.group(1).rstrip()
        for name, value in defined.items():
            text = text.replace(name, value)
        if text.endswith("\\"):
            pending += text[:-1] + " "
            continue
        commands.append(pending + text)
        pending = ""
    return commands


def substitute(command, test, temp, build, python):
    folder = os.path.dirname(test)
    for key, value in (
            ("%python", python), ("%inputs", ROOT + "/test/Inputs"),
            ("%llmptx_libs", os.path.abspath(build + "/lib")),
            ("%S", folder), ("%s", test), ("%t", temp)):
        command = command.replace(key, value)
    return command


def split_filecheck(command):
    """(command to run, FileCheck arguments, file FileCheck reads or None)."""
    pipe = re.search(r"\|\s*FileCheck\s+(.*)$", command)
    if pipe:
        return command[:pipe.start()], pipe.group(1), None
    alone = re.match(r"\s*FileCheck\s+(.*)$", command)
    if alone:
        args = alone.group(1)
        redirect = re.search(r"<\s*(\S+)", args)
        if redirect:
            return None, args[:redirect.start()] + args[redirect.end():], \
                redirect.group(1)
        given = re.search(r"--input-file[= ](\S+)", args)
        if given:
            return None, args[:given.start()] + args[given.end():], \
                given.group(1)
    return command, None, None


def run_shell(command, env):
    """Runs `command` with lit's `not` / `not --crash` prefix handling."""
    expect = "success"
    stripped = command.lstrip()
    if stripped.startswith("not --crash "):
        expect, stripped = "crash", stripped[len("not --crash "):]
    elif stripped.startswith("not "):
        expect, stripped = "failure", stripped[len("not "):]
    result = subprocess.run(["/bin/bash", "-o", "pipefail", "-c", stripped],
                            capture_output=True, env=env, timeout=600)
    code = result.returncode
    ok = {"success": code == 0, "failure": code not in (0,) and code > 0,
          "crash": code < 0 or code >= 128}[expect]
    return ok, code, result.stdout, result.stderr


_IF_CUDA = re.compile(r"^\s*%if cuda %\{(.*)%\}\s*$")


def gpu_part(line):
    """The command of a `%if cuda %{ CMD %}` line, or None for other lines."""
    match = _IF_CUDA.match(line)
    return match.group(1).strip() if match else None


def test_name(test):
    return os.path.relpath(test, ROOT + "/test").replace("/", "__")


def tool_env(build):
    env = dict(os.environ)
    env["PATH"] = os.path.abspath(build + "/bin") + ":" + env["PATH"]
    return env


def has_package(python):
    return subprocess.run([python, "-c", "import llmptx.testing"],
                          capture_output=True).returncode == 0


def test_python(args):
    """--python, else BUILD/venv's Python, else this one: the first that has
    the llmptx package; None when none has."""
    if args.python:
        return args.python if has_package(args.python) else None
    for python in (os.path.join(args.build, "venv", "bin", "python3"),
                   sys.executable):
        if os.path.exists(python) and has_package(python):
            return python
    return None


def prepare(args):
    """Runs every line outside `%if cuda` here (lit's FileCheck on PATH),
    with %t inside the kit, and records the tests for `run --kit`."""
    kit = os.path.abspath(args.kit)
    os.makedirs(kit, exist_ok=True)
    env = tool_env(args.build)
    env["PATH"] = os.path.dirname(args.filecheck) + ":" + env["PATH"]
    tests, failed = [], 0
    for test in map(os.path.abspath, args.tests):
        temp = os.path.join(kit, test_name(test) + ".tmp")
        for index, line in enumerate(run_lines(test)):
            if gpu_part(line) is not None:
                continue
            command = substitute(line, test, temp, args.build,
                                 args.python).replace(
                "FileCheck ", os.path.basename(args.filecheck) + " ")
            ok, code, _, err = run_shell(command, env)
            if not ok:
                print("ERROR: %s: RUN line %d exited %d\n%s" % (
                    test, index, code, err.decode(errors="replace")[-2000:]))
                failed += 1
                break
        else:
            tests.append(os.path.relpath(test, ROOT))
            print("prepared: %s" % os.path.relpath(test, ROOT))
    json.dump(tests, open(os.path.join(kit, "prepared.json"), "w"), indent=1)
    return 1 if failed else 0


def run(args):
    os.makedirs(args.out, exist_ok=True)
    env = tool_env(args.build)
    if args.kit:
        kit = os.path.abspath(args.kit)
        tests = [os.path.join(ROOT, test) for test in
                 json.load(open(os.path.join(kit, "prepared.json")))]
    else:
        tests = args.tests
    manifest = []
    for test in tests:
        test = os.path.abspath(test)
        name = test_name(test)
        temp = os.path.join(kit if args.kit else os.path.abspath(args.out),
                            name + ".tmp")
        entry = {"test": os.path.relpath(test, ROOT), "checks": [],
                 "error": None}
        for index, line in enumerate(run_lines(test)):
            if args.kit:
                # The kit holds what the other lines built.
                line = gpu_part(line)
                if line is None:
                    continue
            elif gpu_part(line) is not None:
                line = gpu_part(line)
            command, check, source = split_filecheck(
                substitute(line, test, temp, args.build, args.python))
            kept = os.path.join(args.out, "%s.%d.out" % (name, index))
            if command is not None:
                ok, code, out, err = run_shell(command, env)
                if check is not None:
                    open(kept, "wb").write(out)
                if not ok:
                    entry["error"] = "RUN line %d exited %d: %s\n%s" % (
                        index, code, line, err.decode(errors="replace")[-2000:])
                    break
            elif source is not None:
                if not os.path.exists(source):
                    entry["error"] = "RUN line %d: no file %s" % (index, source)
                    break
                shutil.copyfile(source, kept)
            if check is not None:
                entry["checks"].append({"args": check.strip(),
                                        "input": os.path.basename(kept)})
        manifest.append(entry)
        print("%s: %s" % ("ran" if not entry["error"] else "ERROR",
                          entry["test"]))
    json.dump(manifest, open(os.path.join(args.out, "manifest.json"), "w"),
              indent=1)
    return 0


def check(args):
    manifest = json.load(open(os.path.join(args.out, "manifest.json")))
    failed = 0
    for entry in manifest:
        test = os.path.join(ROOT, entry["test"])
        problems = [entry["error"]] if entry["error"] else []
        for item in entry["checks"]:
            words = [w if w != "%s" else test
                     for w in shlex.split(item["args"])]
            result = subprocess.run(
                [args.filecheck] + words + ["--input-file",
                                            os.path.join(args.out,
                                                         item["input"])],
                capture_output=True, text=True)
            if result.returncode != 0:
                problems.append(result.stderr[-3000:])
        failed += bool(problems)
        print("%s: %s" % ("FAIL" if problems else "PASS", entry["test"]))
        for problem in problems:
            print(problem)
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    filecheck = shutil.which("FileCheck-22") or "/usr/lib/llvm-22/bin/FileCheck"
    ran = sub.add_parser("run")
    ran.add_argument("--build", default="build")
    ran.add_argument("--python", help="%%python: a Python with the llmptx "
                     "package (default: BUILD/venv's, else this one)")
    ran.add_argument("--out", required=True)
    ran.add_argument("--kit", help="run the `%%if cuda` lines of the tests "
                     "`prepare` built into this folder")
    ran.add_argument("tests", nargs="*")
    prepared = sub.add_parser("prepare")
    prepared.add_argument("--build", default="build")
    prepared.add_argument("--python", help="%%python, as for run")
    prepared.add_argument("--kit", required=True)
    prepared.add_argument("--filecheck", default=filecheck)
    prepared.add_argument("tests", nargs="+")
    checked = sub.add_parser("check")
    checked.add_argument("--out", required=True)
    checked.add_argument("--filecheck", default=filecheck)
    args = parser.parse_args()
    if args.mode == "run" and bool(args.kit) == bool(args.tests):
        parser.error("run takes either --kit or tests")
    if args.mode in ("run", "prepare"):
        python = test_python(args)
        if python is None:
            parser.error("%s has no llmptx package: install it (docs/python.md) "
                         "or give --python" % (args.python or sys.executable))
        args.python = python
    return {"run": run, "prepare": prepare, "check": check}[args.mode](args)


if __name__ == "__main__":
    sys.exit(main())
