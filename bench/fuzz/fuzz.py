#!/usr/bin/env python3
"""Fuzz driver: no untrusted input may crash or hang the llmptx tools.

  build/venv/bin/python3 bench/fuzz/fuzz.py [--build build] [--cases 1000] [--seed 1] [--jobs 2]
      [--family expressions,launch,...,fragments] [--keep DIR] [--timeout 20]

Families (each --cases generated inputs, through the real tools, no GPU needed):
  expressions  hostile size expressions (deep parentheses, 100000-term sums, minus
               chains, nested ceildiv/min/max, token soup, huge literals, overflow,
               division by zero) in a valid bundle: `llmptx-runner --plan`
  launch       answers with a hostile ```launch block or pathological PTX (100k-
               character .func name, 0.25 to 2 MB of junk), from the exec provider,
               to `llmptx-opt --llm-lower` (verify=exec, cache off, one repair) on
               @free of test/Target/Inputs/launch/refusals.mlir (a free launch)
  cache        a real cache entry corrupted in place (truncation, flips, deep or
               huge or mistyped fields, re-signed to pass the checksum; FIFO,
               symlinks to /dev/zero, a directory, ...): `llmptx-llm cache verify`,
               `cache ls`, `complete` with replay, then with a live exec provider
  bundles      mutated bundles of test/Inputs/runtime: `llmptx-runner --plan` and
               `llmptx-runner` (exit 2 "no usable GPU" after validation, so no
               bundles case counts as ok on a machine without GPU)
The tools that write files (issue 29), each case a Case: its files, the outputs
its command names, its inputs:
  host_build   `llmptx-host-build` / `python -m llmptx.host_build` on llm-lower's
               vadd and async programs: mutated MLIR (bytes, 200k-deep nesting,
               4 MiB lines, repeated lines, NUL), special files as the program,
               driver or runtime (FIFO, /dev/zero, folder, dangling or looping
               link, not UTF-8, a 16 GiB sparse file, a path below a file), -o
               naming an input by another spelling (./, absolute, hard link,
               symlink, dir/..), --keep naming a user's folder, a file, the
               program, or a folder with a forged .llmptx-host-build marker
               (listing ../notes.txt, /etc/passwd, ..), hostile --object/--cc/
               --tools-dir/--link-arg
  iree         `llmptx-iree` on IREE's twice_dynamic program: harness JSON of the
               wrong shape, values, keys, depth, bytes; --llm-lower strings with
               bad quoting, braces, keys given twice, unknown keys, report= and
               emit-bundles= on the user's files; -o/--report/--work-dir/
               --substitutions naming the input, the harness, a file, a folder of
               the user's (phases/, executables/), a dangling link, a FIFO, each
               other, a forged .llmptx-iree marker; special and mutated inputs;
               hostile flags after --. Most cases pass --iree-compile naming a
               missing file, refused after every other check, so they need no
               IREE; `valid` and `input-mutated` cases, a few of the others and
               half the --llm-lower ones (on an input iree-compile refuses at
               once) run IREE's compiler when the environment has it
  kernels      `llmptx-kernels` on test/IREE/Inputs/scale.set.json: mutated sets,
               names with ../, /, NUL-free control bytes, 100k bytes, kernels
               of one name, -o and report= naming the set (any spelling) or a
               user's file, special sets; with an exec answer (often mutated),
               verify=exec and emit-bundles=DIR holding a user's results.json,
               runner.log, notes.txt, ...
  ptx-fragments `llmptx-ptx fragments` on proof kernels' PTX (docs/suite/answers,
               fragments/proofs) and their bundles: mutated PTX, bundles, CUDA
               sources, a library folder with hostile headers (ptx:
               429496730.0, ...) or special files, FIFO//dev/zero/stdin as FILE
               or --bundle, hostile --chip
  fragments    `python -m llmptx.fragments` check (hostile fragment files,
               special files, --ptx-tool), bundle (kernel names that are paths,
               --out a user's folder, a file, a dangling link, a FIFO) and select

Each run has a timeout (SIGKILL to its process group), RLIMIT_AS 4 GiB, no core
dumps, and is: ok (exit 0), rejected (exit 1 or 2 with a message on stderr),
CRASH (a signal, exit >= 128, stderr with "Stack dump", "LLVM ERROR", "terminate
called", "Assertion", a glibc heap error, ...; from llmptx-opt also "runner failed
(exit status -N or >= 128)"; hanging after such a message is a crash, killed 3 s
later; a tool of the build that a Python tool ran and says "crashed (SIGxxx)")
or HANG (timeout); TRACEBACK is a Python traceback on stderr whatever the exit
status. CLOBBERED is a case after which, outside the paths its command names as
outputs, a file of the canary tree (the user's files of the case, named like
the tools' outputs: main.c, host.mlir, kernels.json, results.json, runner.log,
*.bundle.json, phases/, ... beside and inside the paths the case names) is not
byte-identical, or anything appeared or vanished; a run that ended by itself
must also leave TMPDIR (a folder of the case's own) empty. An input is never an
output, even when an output names it. A case runs its commands in order up to
the first crash, hang or clobber and counts as its worst run; other exits
(3..127, or 1/2 with an empty stderr) count as rejected and are listed as ODD.
llmptx-ptx fragments and llmptx.fragments report on stdout, which is read with
stderr.

Output: `family cases ok rejected crashes hangs tracebacks clobbered` per family, a total line, the
seconds each family's runs took, then per signature (class, family, command, how
it died: the signal, the most telling stderr line with digits as N, the first frame
of a stack dump) its count and,
per generator, a reproducer KEEP/<family>/<signature>/<generator>-<case>/cmd.sh
(the inputs as generated; `sh cmd.sh` replays the commands up to the failing one
with the same environment and limits; stderr.txt is what the run printed). A
SIGSEGV is run once more with a 1 GiB stack: "stack overflow" says it then passes.
KEEP/summary.txt repeats the report. Exit status 1 on any crash, hang, traceback
or clobber, else 0.
Case i of a family is the same for a --seed whatever --cases, --family, --jobs.
"""
import argparse, concurrent.futures, fnmatch, functools, glob, hashlib, json, math, os, random, re
import resource, shlex, shutil, signal, stat, subprocess, sys, threading, time

from llmptx.tools import ToolNotFound, build_bin, find_tool

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNTIME_INPUTS = os.path.join(REPO, "test", "Inputs", "runtime")
TARGET_INPUTS = os.path.join(REPO, "test", "Target", "Inputs")
SPECIFIC_TEXT = ("Assertion", "LLVM ERROR", "terminate called", "malloc(): ", "free(): ", "double free",
                 "corrupted ", "AddressSanitizer", "stack smashing")
CRASH_TEXT = SPECIFIC_TEXT + ("Stack dump", "PLEASE submit a bug report")
SKIP_FRAME = re.compile(r"llvm::sys::|SignalHandler|__restore_rt|^abort|^raise|^gsignal|__pthread|std::terminate|"
                        r"__cxa|__gnu_cxx|__libc|^_start|^\(|^0x")
RUNNER_DIED = re.compile(r"runner failed \(exit status (-\d+|12[89]|1[3-9]\d|2\d\d)[^)]*\)")
MEM_LIMIT, KEEP_PER_GENERATOR = 4 << 30, 2
FAMILIES = ("expressions", "launch", "cache", "bundles", "host_build", "iree", "kernels", "ptx-fragments", "fragments")
RANK = ["ok", "rejected", "odd", "clobbered", "traceback", "hang", "crash"]
# What the commands of the first families may write (the later ones declare theirs case by case).
OUTPUTS = {"expressions": [], "launch": ["report.json", "out.mlir"], "cache": ["cache"], "bundles": ["results.json"]}
TRACEBACK = "Traceback (most recent call last)"
CHILD_CRASHED = re.compile(r"([\w.+-]{1,100}) crashed \((SIG[A-Z]+)")
PRIVATE = (".stderr", ".xdg", ".tmp")
STDOUT_LABELS = ("llmptx.fragments", "llmptx-ptx fragments")  # their findings are on stdout  # the driver's own entries of a case folder
LIVE, STOP = set(), threading.Event()  # process groups of the runs in flight; set on Ctrl-C or SIGTERM

# ------------------------------------------------------------ JSON helpers
class Raw(str):
    """Text put into the JSON verbatim: a value, or a key with its quotes."""

def dump(obj):
    """json.dumps, with Raw values and keys inserted as they are."""
    raws = []
    def walk(v):
        if isinstance(v, Raw):
            raws.append(v)
            return "@@RAW%d@@" % (len(raws) - 1)
        if isinstance(v, dict):
            return {walk(k): walk(x) for k, x in v.items()}
        return [walk(x) for x in v] if isinstance(v, list) else v
    return re.sub(r'"@@RAW(\d+)@@"', lambda m: raws[int(m.group(1))], json.dumps(walk(obj), indent=1))

def paths(v, prefix=()):
    """Every path (a tuple of keys and indices) in a JSON tree."""
    items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
    return [prefix] + [p for k, x in items for p in paths(x, prefix + (k,))]

def get(v, path):
    return functools.reduce(lambda x, k: x[k], path, v)

def put(root, path, value):
    get(root, path[:-1])[path[-1]] = value

def loguniform(rng, hi):
    return max(1, int(10 ** rng.uniform(0, math.log10(hi))))

def deep_json(rng):
    d = loguniform(rng, 100000)
    return rng.choice(["[" * d + "]" * d, "[" * d, '{"a":' * d + "1" + "}" * d, '{"grid":[' * d + "1", "[{" * d])

EXTREME = ["-1", "0", "-0", "0.5", "-2.5", "1e308", "1e999", "-1e999", "1e-400", "4294967296", "2147483648",
           "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
           "18446744073709551615", "18446744073709551616", "1" + "0" * 400, "-" + "9" * 5000]

def random_value(rng):
    return rng.choice([None, True, False, 0, -1, 1.5, "", "x", "N", [], {}, [1, 2], {"x": 1},
                       Raw(rng.choice(EXTREME)), "\u0000\ud7ff\uffff", "a" * loguniform(rng, 1 << 20)])

def byte_mutate(rng, data):
    data, kind = bytearray(data), rng.choice(["flip", "truncate", "insert"])
    if kind == "truncate":
        return bytes(data[:rng.randrange(len(data))]), "byte-truncate"
    for _ in range(loguniform(rng, 64)):
        at = rng.randrange(len(data))
        if kind == "flip":
            data[at] ^= 1 << rng.randrange(8)
        else:
            data[at:at] = rng.choice([b"\x00", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\\u", b'"', b"{", b"["])
    return bytes(data), "byte-" + kind

def ptx_edit(rng, ptx):
    lines, kind = ptx.split("\n"), rng.choice(["truncate", "drop-lines", "repeat-line", "many-params",
                                               "deep-brackets", "junk-line", "long-token"])
    i = rng.randrange(len(lines))
    if kind == "truncate":
        return ptx[:rng.randrange(len(ptx))], "ptx-truncate"
    if kind == "drop-lines":
        lines = [l for l in lines if rng.random() > 0.2]
    elif kind == "repeat-line":
        lines[i:i] = [lines[i]] * loguniform(rng, 100000)
    elif kind == "many-params":
        params = ",\n".join("\t.param .u64 p%d" % k for k in range(loguniform(rng, 100000)))
        return re.sub(r"\(\n\t\.param[^)]*\)", lambda m: "(\n" + params + "\n)", ptx, count=1), "ptx-many-params"
    elif kind == "deep-brackets":
        d = loguniform(rng, 100000)
        lines[i:i] = [rng.choice(["{" * d + "}" * d, "{" * d, "(" * d, "[" * d])]
    elif kind == "junk-line":
        lines[i:i] = ["".join(rng.choice(".%$[]{}();,@!<>0123456789abcxyz \t\"\\") for _ in range(loguniform(rng, 10000)))]
    else:
        lines[i] += rng.choice(["a", "%r", "9", "."]) * loguniform(rng, 1 << 20)
    return "\n".join(lines), "ptx-" + kind

# ------------------------------------------------------------- expressions
def atom(rng):
    return rng.choice(["N", "N", "1", "0", "97", "256", "-1", str(rng.randint(-2**63, 2**63 - 1))])

def random_tree(rng, depth):
    if depth == 0 or rng.random() < 0.3:
        return atom(rng)
    a, b, kind = random_tree(rng, depth - 1), random_tree(rng, depth - 1), rng.randrange(4)
    return ["%s %s %s" % (a, rng.choice("+-*/%"), b), "%s(%s, %s)" % (rng.choice(["ceildiv", "min", "max"]), a, b),
            "-(%s)" % a, "(%s)" % a][kind]

def nested_calls(rng):
    d = loguniform(rng, 100000)
    return "".join(rng.choice(["ceildiv(", "min(", "max("]) for _ in range(d)) + "N" + \
           "".join(", %s)" % atom(rng) for _ in range(d))

TOKENS = ["N", "M", "ceildiv", "min", "max", "foo", "_", "(", ")", "((", "))", ",", "+", "-", "*", "/", "%", " ",
          "0", "1", "97", "9223372036854775807", "0x10", "1e3", "1.5", "\t", "\u00e9", "\u0000", "$", "ceildiv(",
          "min(N,", "--", "**", "//"]

EXPRESSION_GENERATORS = {
    "deep-parens": lambda r: (lambda d: "(" * d + atom(r) + ")" * d)(loguniform(r, 100000)),
    "unbalanced-parens": lambda r: (lambda d: "(" * d + "N" + ")" * max(0, d + r.randint(-3, 3)))(loguniform(r, 100000)),
    "flat-sum": lambda r: r.choice("+++-*/%").join(atom(r) if r.random() < 0.1 else "N" for _ in range(loguniform(r, 100000))),
    "unary-minus": lambda r: r.choice(["-", "- ", "-(", "+"]) * loguniform(r, 100000) + atom(r),
    "nested-calls": nested_calls,
    "token-soup": lambda r: "".join(r.choice(TOKENS) for _ in range(loguniform(r, 20000))),
    "huge-literal": lambda r: r.choice(["", "-", "N + ", "N * "]) + r.choice("123456789") +
                              "".join(r.choice("0123456789") for _ in range(loguniform(r, 100000))),
    "overflow": lambda r: r.choice([
        "9223372036854775807 + 1", "-9223372036854775807 - 2", "-9223372036854775808 / -1", "-9223372036854775808 % -1",
        "ceildiv(-9223372036854775808, -1)", "ceildiv(9223372036854775807, -1)", "-(-9223372036854775807 - 1)",
        "9223372036854775807 * 2", "min(N, 9223372036854775808)", "ceildiv(N * 9223372036854775807, 256)",
        "*".join(["N"] * loguniform(r, 1000)), "*".join(["65536"] * r.randint(2, 10)), "%s * %s" % (atom(r), atom(r))]),
    "division-by-zero": lambda r: r.choice(["N / 0", "N % 0", "ceildiv(N, 0)", "N / (N - N)", "N % (N - N)",
                                            "ceildiv(N, N - 97)", "0 / 0", "min(1 / 0, 1)", "max(N, N % 0)"]),
    "random-tree": lambda r: random_tree(r, r.randint(1, 10)),
}

def gen_expressions(rng, d, ctx):
    gen = rng.choice(sorted(EXPRESSION_GENERATORS))
    expr = EXPRESSION_GENERATORS[gen](rng)
    if gen == "huge-literal" and expr[0] in "-123456789" and rng.random() < 0.3:
        expr = Raw(expr)  # a JSON number rather than a string
    b = json.loads(json.dumps(ctx["bundles"]["vadd-spin.bundle.in"]))
    if rng.random() < 0.3:
        b["shapes"].append({"N": rng.choice([2**31, 2**32 + 1, 2**62, 2**63 - 1, 1000003])})
    where, i = rng.choice(["grid", "block", "shared", "shape", "offset", "strides", "flops", "candidate"]), rng.randrange(3)
    if where in ("grid", "block"):
        b["launch"][where][i] = expr
    elif where == "shared":
        b["launch"]["dynamic_shared_bytes"] = expr
    elif where == "flops":
        b["timing"] = {"flops": expr}
    elif where == "candidate":
        b["candidates"][1]["launch"] = {"grid": [expr, 1, 1], "block": [256, 1, 1]}
    else:
        b["buffers"][i][where] = expr if where == "offset" else [expr]
    write(d, "bundle.json", dump(b))
    return gen, [("runner --plan", [ctx["runner"], "--plan", "bundle.json"], {})]

# ------------------------------------------------------------------ launch
def launch_text(rng, gen):
    grid = ["ceildiv(N, 256)", 1, 1]
    if gen == "valid":
        bx = rng.choice([32, 64, 128, 256])
        return json.dumps({"block": [bx, 1, 1], "grid": ["ceildiv(N, %d)" % bx, 1, "1"]})
    if gen == "deep-nesting":
        deep = deep_json(rng)
        return rng.choice([deep, '{"block": %s, "grid": [1, 1, 1]}' % deep, '{"block": [256, 1, 1], "grid": [%s, 1, 1]}' % deep])
    if gen in ("huge-number", "bad-dims", "wrong-type"):
        values = {"huge-number": EXTREME, "bad-dims": ["0", "-1", "-256", "1025", "2048", "65", "2147483648", "4294967297"],
                  "wrong-type": ['"256"', "null", "true", "[256]", "{}", "1.5", '""', '"N"', "[]"]}[gen]
        block = [Raw(rng.choice(values)) if rng.random() < 0.5 else v for v in [256, 1, 1]]
        grd = [Raw(rng.choice(values)) if rng.random() < 0.5 else v for v in grid]
        if rng.random() < 0.3:  # the wrong number of dimensions
            rng.choice([block, grd])[rng.randint(0, 3):] = [Raw(rng.choice(values))] * rng.choice([0, 1, 2, 1000])
        return dump(rng.choice([{"block": block, "grid": grd}] * 4 + [Raw(rng.choice(values))]))
    if gen == "grid-expression":
        expr = EXPRESSION_GENERATORS[rng.choice(sorted(EXPRESSION_GENERATORS))](rng)
        return dump({"block": [256, 1, 1], "grid": [expr, rng.choice([1, expr]), 1]})
    if gen == "keys":
        obj = {"block": [256, 1, 1], "grid": grid}
        obj[rng.choice([Raw('"block"'), Raw('"grid"'), "smem", "", "\u0000", "x" * 100000])] = random_value(rng)
        return dump(rng.choice([obj, {}, [obj], "launch", 0]))
    text = json.dumps({"block": [256, 1, 1], "grid": grid})  # truncated
    return text[:rng.randrange(len(text))]

def gen_launch(rng, d, ctx):
    gen = rng.choice(["valid", "deep-nesting", "huge-number", "bad-dims", "wrong-type", "grid-expression",
                      "keys", "truncated", "fences", "huge-func-name", "junk-2mb", "ptx-edit"])
    ptx, prose, launch = ctx["free-ptx"], "Here is the kernel.\n\n", launch_text(rng, "valid")
    if gen == "fences":
        block = "```launch\n%s\n```\n" % launch_text(rng, rng.choice(["valid", "truncated", "wrong-type"]))
        tail = rng.choice([block * loguniform(rng, 10000), "```launch\n" + launch, "```launch\n```\n",
                           "```launch\n" + " " * (2 << 20) + "```\n", "````launch\n{}\n````\n",
                           "```launch " + "x" * 100000 + "\n{}\n```\n", "```\n" * loguniform(rng, 100000)])
        answer = prose + (block if rng.random() < 0.3 else "") + "```ptx\n" + ptx + "```\n\n" + tail
    else:
        if gen == "huge-func-name":
            name = "f" * rng.choice([100000, 100000, 1 << 20])
            ptx = ptx.replace(".visible .entry", ".func %s()\n{\n\tret;\n}\n\n.visible .entry" % name, 1)
            if rng.random() < 0.5:
                ptx = ptx.replace("ret;\n\n}", "call %s, ();\n\tret;\n\n}" % name)
        elif gen == "junk-2mb":
            junk = "".join(rng.choice("abc{}()[];,.%$` \n\t\"\\") for _ in range(1 << 12)) * rng.choice([64, 200, 512])
            where = rng.randrange(3)
            prose, ptx = (junk if where == 0 else prose), (ptx + junk + "\n" if where == 1 else ptx)
            launch = junk if where == 2 else launch
        elif gen == "ptx-edit":
            ptx, gen = ptx_edit(rng, ptx)
        elif gen != "valid":
            launch = launch_text(rng, gen)
        answer = prose + "```ptx\n" + ptx + "```\n\n```launch\n" + launch + "\n```\n"
    write(d, "answer.txt", answer)
    write(d, "module.mlir", ctx["module"])
    env = {"LLMPTX_EXEC_COMMAND": "cat answer.txt", "LLMPTX_RUNNER": shlex.quote(ctx["runner"]), "LLMPTX_CACHE": "off"}
    return gen, [("llmptx-opt --llm-lower", [ctx["opt"], "module.mlir", "--llm-lower=provider=exec model=fuzz cache=off "
                  "verify=exec repairs=1 report=report.json", "-o", "out.mlir"], env)]

# ------------------------------------------------------------------- cache
def canonical(v):  # what the checksum and the key are computed over (lib/LLM/Cache.cpp)
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()

def special_file(rng, path, data):
    kind, shard = rng.choice(["fifo", "dev-zero", "dev-urandom", "self-loop", "dangling", "directory", "empty",
                              "shard-is-file", "v1-is-file"]), os.path.dirname(path)
    os.unlink(path)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind in ("dev-zero", "dev-urandom", "self-loop", "dangling"):
        os.symlink({"dev-zero": "/dev/zero", "dev-urandom": "/dev/urandom", "self-loop": os.path.basename(path),
                    "dangling": "missing.json"}[kind], path)
    elif kind == "directory":
        os.mkdir(path)
        write(path, "x.json", data.decode())
    elif kind == "empty":
        write(shard, os.path.basename(path), "")
    else:
        gone = shard if kind == "shard-is-file" else os.path.dirname(shard)
        shutil.rmtree(gone)
        write(os.path.dirname(gone), os.path.basename(gone), data.decode())
    return "special-file-" + kind

def gen_cache(rng, d, ctx):
    for name in ("msgs.json", "answer.txt", "cache"):
        (shutil.copytree if name == "cache" else shutil.copy)(os.path.join(ctx["cache-src"], name), os.path.join(d, name))
    path = target = glob.glob(os.path.join(d, "cache", "v1", "*", "*.json"))[0]
    with open(path, "rb") as f:
        data = f.read()
    entry = json.loads(data)
    gen = rng.choice(["truncate", "byte-flip", "deep-field", "huge-string", "wrong-type", "extreme-number",
                      "delete-field", "unknown-field", "special-file", "other-name", "extra-files", "huge-file"])
    if gen == "truncate":
        data = data[:rng.randrange(len(data))]
    elif gen == "byte-flip":
        data, gen = byte_mutate(rng, data)
    elif gen == "special-file":
        gen, data = special_file(rng, path, data), None
    elif gen == "other-name":
        os.unlink(path)
        name = rng.choice(["0" * 64, "f" * 63, "G" * 64, "x" * 250, ".tmp-" + entry["key"][:8] + "-AAAAAAAAAAAA", ""])
        target = os.path.join(os.path.dirname(path), name + ".json")
    elif gen == "extra-files":
        for k in range(loguniform(rng, 2000)):
            write(os.path.dirname(path), rng.choice(["%064x.json" % rng.getrandbits(256), ".tmp-%d" % k, "n%d.txt" % k]),
                  rng.choice(["", "{", data.decode()[:rng.randrange(len(data))], data.decode()]))
    elif gen == "huge-file":
        data = b" " * rng.choice([1 << 20, 16 << 20, 64 << 20]) + data if rng.random() < 0.5 else data + b"x" * (16 << 20)
    else:  # edit the JSON, then usually re-sign it so that the checksum passes
        checksum = entry.pop("checksum")  # kept, stale, unless re-signed
        where = [p for p in paths(entry) if p]
        if gen == "extreme-number":
            where = [p for p in where if type(get(entry, p)) in (int, float)] or where
        p = rng.choice(where)
        if gen == "deep-field":
            put(entry, p, Raw(deep_json(rng)))
        elif gen == "huge-string":
            put(entry, p, rng.choice(["x" * rng.choice([1 << 16, 1 << 20, 8 << 20]), Raw('"\\ud800\\udfff\\ud800"'),
                                      Raw('"' + "\\u0000" * 100000 + '"')]))
        elif gen in ("wrong-type", "extreme-number"):
            put(entry, p, random_value(rng) if gen == "wrong-type" else
                Raw(rng.choice(EXTREME)) if rng.random() < 0.5 else rng.choice([2**64, -2**63, 1e308, -0.0, 2**100]))
        elif gen == "delete-field":
            del get(entry, p[:-1])[p[-1]]
        else:
            p = rng.choice([q for q in paths(entry) if isinstance(get(entry, q), dict)])
            get(entry, p)[rng.choice(["x", "", "checksum2", Raw('"key"')])] = random_value(rng)
        if rng.random() < 0.7 and dump(entry) == json.dumps(entry, indent=1):  # no Raw text: Python can sign it
            if p and p[0] == "request" and rng.random() < 0.5 and isinstance(entry.get("request"), dict):
                entry["key"] = hashlib.sha256(canonical(entry["request"])).hexdigest()  # renamed to its new key
                os.unlink(path)
                target = os.path.join(d, "cache", "v1", entry["key"][:2], entry["key"] + ".json")
                os.makedirs(os.path.dirname(target), exist_ok=True)
                gen += "-rekeyed"
            checksum = "sha256:" + hashlib.sha256(canonical(entry)).hexdigest()
            gen += "-resigned"
        data = dump(dict(entry, checksum=checksum)).encode()
    if data is not None:
        with open(target, "wb") as f:
            f.write(data)
    llm, common = ctx["llm"], ["--model", "m", "--messages", "msgs.json", "--cache-dir", "cache"]
    return gen, [("llmptx-llm cache verify", [llm, "cache", "verify", "--cache-dir", "cache"], {}),
                 ("llmptx-llm cache ls", [llm, "cache", "ls", "--cache-dir", "cache"], {}),
                 ("llmptx-llm complete replay", [llm, "complete", "--provider", "replay"] + common, {}),
                 ("llmptx-llm complete exec", [llm, "complete", "--provider", "exec", "--exec-command", "cat answer.txt"]
                  + common, {})]

# ----------------------------------------------------------------- bundles
def gen_bundles(rng, d, ctx):
    name = rng.choice(sorted(ctx["bundles"]))
    b = json.loads(json.dumps(ctx["bundles"][name]))
    gen = rng.choice(["delete-field", "retype", "duplicate-field", "deep-nesting", "huge-array", "extreme-number",
                      "tolerance", "unknown-field", "init", "params", "shapes", "ptx-edit", "bytes"])
    every = [p for p in paths(b) if p]
    p = rng.choice(every)
    if gen == "delete-field":
        del get(b, p[:-1])[p[-1]]
    elif gen == "retype":
        put(b, p, random_value(rng))
    elif gen == "duplicate-field":
        q = rng.choice([q for q in every if isinstance(get(b, q[:-1]), dict)])
        get(b, q[:-1])[Raw(json.dumps(q[-1]))] = rng.choice([get(b, q), random_value(rng)])
    elif gen == "deep-nesting":
        put(b, p, Raw(deep_json(rng)))
    elif gen == "huge-array":
        q = rng.choice([("shapes",), ("candidates",), ("params",), ("buffers",), ("sizes",), ("launch", "grid"), p])
        item = get(b, q)[0] if isinstance(get(b, q), list) and get(b, q) else rng.choice([1, "N", {"N": 1}])
        n = loguniform(rng, 100000 if len(json.dumps(item)) < 100 else 2000)
        put(b, q, Raw("[" + ",".join([json.dumps(item)] * n) + "]"))
    elif gen == "extreme-number":
        put(b, rng.choice([q for q in every if type(get(b, q)) in (int, float)]), Raw(rng.choice(EXTREME)))
    elif gen == "tolerance":
        rng.choice([x for x in b["buffers"] if x.get("role") in ("output", "inout")])["tolerance"] = {
            k: Raw(rng.choice(EXTREME + ['"x"', "null", "true", "[]"]))
            for k in rng.sample(["ulp", "rel", "abs", "signed_zero", "bogus"], rng.randint(1, 4))}
    elif gen == "unknown-field":
        q = rng.choice([q for q in paths(b) if isinstance(get(b, q), dict)])
        get(b, q)[rng.choice(["ofset", "x" * 100000, "", "\u0000", "comment", "metadata"])] = random_value(rng)
    elif gen == "init":
        buf = rng.choice(b["buffers"])
        buf["init"] = rng.choice([
            {"kind": "copy", "from": buf["name"]}, {"kind": "copy", "from": "nope"}, {"kind": "?"},
            {"kind": "uniform", "lo": 4, "hi": -4, "special": True}, {"kind": "randint", "lo": Raw("-1e999"), "hi": Raw("1e999")},
            {"kind": "constant", "value": rng.choice(["nan", "-inf", "x", Raw("1e400"), None])},
            {"kind": "iota", "start": Raw(rng.choice(EXTREME)), "step": Raw(rng.choice(EXTREME))}])
    elif gen == "params":
        rng.choice(b["params"]).update(rng.choice([
            {"buffer": "nope"}, {"dim": rng.choice([-1, 99, 2**63])}, {"role": "scalar", "type": "u8", "value": "300"},
            {"role": "scalar", "type": rng.choice(["f16", "i64", "u64", "bf16"]),
             "value": rng.choice(["nan", "-0", "1e400", Raw(rng.choice(EXTREME))])},
            {"type": rng.choice(["i32", "i1", "x"])}, {"role": "bare_ptr"}]))
    elif gen == "shapes":
        size = b["sizes"][0]
        b["shapes"] = [{size: Raw(rng.choice(EXTREME))}] if rng.random() < 0.5 else \
            [{k: rng.choice([0, 2**62, 2**63 - 1]) for k in b["sizes"]}] + [{size: 1, "extra": 1}, {}][:rng.randint(0, 2)]
    elif gen == "ptx-edit":
        kernel = rng.choice([b["reference"]] + b["candidates"])
        kernel["ptx"], gen = ptx_edit(rng, kernel["ptx"])
    text = dump(b).encode()
    if gen == "bytes":
        text, gen = byte_mutate(rng, text)
    with open(os.path.join(d, "bundle.json"), "wb") as f:
        f.write(text)
    return gen, [
        ("runner --plan", [ctx["runner"], "--plan", "bundle.json"], {}),
        ("runner", [ctx["runner"], "bundle.json", "-o", "results.json"], {})]

# ------------------------------------------------- the tools that write files
# Families of the tools around the compiler (host_build, llmptx-iree,
# llmptx-kernels, llmptx-ptx fragments, llmptx.fragments). Each case is a
# Case: the files it made (all of them the user's: the canary tree), the
# paths the commands name as outputs (the only places anything may change),
# and its inputs (never changed, even when an output names them).
CANARY_TREE = ["main.c", "host.mlir", "host.ll", "host.o", "kernels.json", "decisions.json", "results.json",
               "runner.log", "report.json", "notes.txt", "user.bundle.json", "kernels.scale.bundle.json",
               "toy.scale.bundle.json", "victim.scale.bundle.json", "options.set.json", "dumped.vmfb",
               "phases/notes.txt", "phases/module.executable-targets.mlir", "executables/notes.txt"]
SPECIAL_KINDS = ["fifo", "dev-zero", "dev-urandom", "dev-null", "folder", "missing", "dangling", "self-loop", "empty",
                 "not-utf8", "huge-sparse", "below-file"]

class Case:
    """The files of one case, what its commands may write and what they read."""

    def __init__(self, rng, d, ctx):
        self.rng, self.d, self.ctx = rng, d, ctx
        self.outputs, self.inputs = [], []

    def path(self, rel):
        return os.path.join(self.d, rel)

    def file(self, rel, data):
        """A regular file of the user's."""
        os.makedirs(os.path.dirname(self.path(rel)) or self.d, exist_ok=True)
        with open(self.path(rel), "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        return rel

    def copy(self, src, rel):
        return self.file(rel, open(src, "rb").read())

    def rel(self, p):
        return os.path.normpath(os.path.relpath(p, self.d) if os.path.isabs(p) else p)

    def out(self, *rels):
        """Paths the commands name as outputs (a folder covers what is in it; a
        pattern 'DIR/*.bundle.json' the matching names in DIR)."""
        self.outputs += [self.rel(r) for r in rels if r and r != "-"]
        return rels[0] if rels else None

    def inp(self, *rels):
        self.inputs += [self.rel(r) for r in rels if r and r != "-"]
        return rels[0] if rels else None

    def canary(self, folder="."):
        """The user's files named like the tools' outputs, in `folder` (where no
        file of that name is, and not at a path the commands name as output)."""
        for rel in CANARY_TREE:
            target = os.path.normpath(os.path.join(folder, rel))
            parent = self.path(os.path.dirname(target) or ".")
            if os.path.lexists(self.path(target)) or self.covered(target) or \
                    os.path.lexists(parent) and (os.path.islink(parent) or not os.path.isdir(parent)):
                continue
            self.file(target, "canary %s %x\n" % (target, self.rng.getrandbits(32)))
        return folder

    def covered(self, rel):
        """Whether `rel` is a declared output or lies in one (never an input)."""
        rel = os.path.normpath(rel)
        if rel in self.inputs:
            return False
        for out in self.outputs:
            if "*" in out:
                if os.path.dirname(rel) == os.path.dirname(out) and fnmatch.fnmatch(os.path.basename(rel), os.path.basename(out)):
                    return True
            elif rel == out or rel.startswith(out + "/") or out == ".":
                return True
        return False

    def parent_of_output(self, rel):
        """Whether `rel` is a folder on the way to a declared output (made for it)."""
        return any(out.startswith(os.path.normpath(rel) + "/") for out in self.outputs)

    def special(self, rel, kind=None):
        """`rel` made a hostile kind of file; returns (the path to name, kind)."""
        kind = kind or self.rng.choice(SPECIAL_KINDS)
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if kind == "fifo":
            os.mkfifo(p)
        elif kind in ("dev-zero", "dev-urandom", "dev-null", "dangling", "self-loop"):
            os.symlink({"dev-zero": "/dev/zero", "dev-urandom": "/dev/urandom", "dev-null": "/dev/null",
                        "dangling": "nowhere-%d" % self.rng.randrange(1000), "self-loop": os.path.basename(p)}[kind], p)
        elif kind == "folder":
            self.canary(rel)
        elif kind == "empty":
            self.file(rel, b"")
        elif kind == "not-utf8":
            self.file(rel, b"module {\n} // \xff\xfe\xc3(\xed\xa0\x80\n")
        elif kind == "huge-sparse":
            with open(p, "wb") as f:
                f.truncate(rng_size(self.rng))
        elif kind == "below-file":
            self.file(rel, "a file\n")
            return rel + "/below", kind
        return rel, kind

    def alias(self, rel):
        """Another spelling of the path `rel`: itself, ./rel, its absolute path,
        a hard link or a symlink to it, or rel through a folder and '..'."""
        kind = self.rng.choice(["same", "dot", "absolute", "hard-link", "symlink", "dotdot", "symlink-chain"])
        name = "alias-%d" % self.rng.randrange(1 << 20)
        if kind == "dot":
            return "./" + rel
        if kind == "absolute":
            return self.path(rel)
        if kind == "hard-link" and os.path.isfile(self.path(rel)) and not os.path.islink(self.path(rel)):
            os.link(self.path(rel), self.path(name))
            return name
        if kind in ("symlink", "symlink-chain", "hard-link"):
            os.symlink(os.path.relpath(self.path(rel), self.d), self.path(name))
            if kind == "symlink-chain":
                os.symlink(name, self.path(name + "-2"))
                return name + "-2"
            return name
        if kind == "dotdot":
            os.makedirs(self.path("sub"), exist_ok=True)
            return "sub/../" + rel
        return rel

COMPILED_REPEATS = 2000

def rng_size(rng):
    return rng.choice([257 << 20, 300 << 20, 16 << 30])

def mutate_text(rng, text, repeats=100000):
    """A hostile edit of a text input: bytes flipped or cut, deep nesting,
    long lines, non-UTF-8, NUL, a line repeated up to `repeats` times (a
    family whose tools compile what they read bounds it: 41000 copies of a
    gpu.memcpy are a 32 s llc -O2 run, a real compile rather than a hang)."""
    kind = rng.choice(["bytes", "deep", "long-line", "repeat", "nul", "cut-lines", "junk"])
    if kind == "bytes":
        data, _ = byte_mutate(rng, text.encode())
        return data, "bytes"
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    if kind == "deep":
        d = loguniform(rng, 200000)
        lines[i:i] = [rng.choice(["{" * d + "}" * d, "(" * d, "[" * d + "]" * d, "<" * d, "#a<" * d, '"' + "\\" * d])]
    elif kind == "long-line":
        lines[i] += rng.choice(["a", "%", "@x", "\t", "["]) * loguniform(rng, 4 << 20)
    elif kind == "repeat":
        lines[i:i] = [lines[i]] * loguniform(rng, repeats)
    elif kind == "nul":
        lines[i] = lines[i][:len(lines[i]) // 2] + "\0" + lines[i][len(lines[i]) // 2:]
    elif kind == "cut-lines":
        lines = [l for l in lines if rng.random() > 0.2]
    else:
        lines[i:i] = ["".join(rng.choice("{}()[]<>@%#$:;,.=\"'\\ \tabcxyz019") for _ in range(loguniform(rng, 10000)))]
    return "\n".join(lines).encode("utf-8", "surrogatepass"), kind

def hostile_name(rng):
    return rng.choice(["../x", "../../victim", "a/b", "/abs", "", ".", "..", "\u00e9t\u00e9", "x" * loguniform(rng, 100000),
                       ".hidden", "-o", "--help", "a b", "a\nb", "a\\b", "con", "x" * 96, "x" * 97, "~", "$HOME", "*",
                       "scale", "rowsum_i32", "scale\u0001x"])

def python_tool(ctx, module, script):
    """The console script when the environment has it, else python -m; both run
    the same main()."""
    path = os.path.join(os.path.dirname(sys.executable), script)
    return [path] if os.path.exists(path) and random.random() < 0.5 else [sys.executable, "-m", module]

def tool_env(ctx):
    return {"PATH": os.path.dirname(ctx["opt"]) + os.pathsep + os.path.dirname(sys.executable) + os.pathsep +
            os.environ.get("PATH", "")}

# -------------------------------------------------------------- host_build
def gen_host_build(rng, d, ctx):
    c = Case(rng, d, ctx)
    program = ctx.get("host-own") if ctx.get("host-own") and rng.random() < 0.3 else None
    prog = c.inp(c.file("prog.mlir", program or ctx["host-vadd"]))
    driver = None if program else c.inp(c.copy(ctx["host-driver"], "driver.c"))
    runtime = ctx["runtime"]
    gen = rng.choice(["valid", "output-is-input", "keep-user-folder", "keep-collides", "keep-forged-marker",
                      "output-special", "input-special", "input-mutated", "driver-special", "arguments",
                      "runtime-special", "keep-reused"])
    output, keep, extra = "prog", None, []
    if gen in ("output-is-input", "runtime-special") or rng.random() < 0.2:
        runtime = c.inp(c.copy(ctx["runtime"], "rt/" + RUNTIME_SO))
    if gen == "valid":
        output = rng.choice(["prog", "bin/prog", "prog.mlir.exe", "a b/prog"])
        if rng.random() < 0.5:
            keep = rng.choice(["keep", "k/e/e/p"])
        if rng.random() < 0.5:
            extra += ["--object", str(rng.choice([0, 1, 2, 99]))]
    elif gen == "output-is-input":
        output = c.alias(rng.choice([x for x in [prog, driver, runtime] if x and x != ctx["runtime"]]))
    elif gen == "keep-user-folder":
        keep = c.canary(rng.choice(["keep", ".", "rt", "phases"]))
    elif gen == "keep-collides":
        kind = rng.choice(["program", "driver", "user-file", "output", "special", "input-in-own-folder"])
        if kind == "special":
            keep, special = c.special("keep", rng.choice(["fifo", "dangling", "self-loop", "dev-zero", "below-file",
                                                          "dev-null", "empty"]))
            kind += "-" + special
        elif kind == "input-in-own-folder":  # the program is host.mlir of a --keep folder of the tool's own
            c.file("keep/" + HOST_MARKER, HOST_MARKER_HEADER + "\nhost.mlir\nmain.c\nhost.ll\n")
            prog = c.inp(c.file("keep/host.mlir", program or ctx["host-vadd"]))
            keep = "keep"
            extra += ["--object", "1"]
        else:
            keep = {"program": prog, "driver": driver or prog, "user-file": "main.c", "output": output}[kind]
        gen += "-" + kind
    elif gen == "keep-forged-marker":
        keep = "keep"
        os.makedirs(c.path("keep"))
        listed = rng.sample(["host.mlir", "main.c", "../notes.txt", "/etc/passwd", "..", ".", "", "prog",
                             "x" * 300, "a/b", ".llmptx-host-build", "host.o\0x", "notes.txt"], rng.randint(1, 6))
        header = rng.choice([HOST_MARKER_HEADER, HOST_MARKER_HEADER.upper(), "", HOST_MARKER_HEADER + " \t"])
        marker = header + "\n" + "\n".join(listed) + "\n"
        if rng.random() < 0.2:
            c.special("keep/" + HOST_MARKER, rng.choice(["fifo", "dev-zero", "folder", "dangling", "not-utf8"]))
        else:
            c.file("keep/" + HOST_MARKER, marker)
        for name in listed:  # entries of the user's, named in the forged list: the tool may take them
            if file_name_component_ok(name) and name != HOST_MARKER and rng.random() < 0.5:
                c.file("keep/" + name, "user's %s\n" % name)
        if header == HOST_MARKER_HEADER and os.path.isfile(c.path("keep/" + HOST_MARKER)):
            c.out("keep")  # every entry of it is listed: the folder is the tool's own
    elif gen == "keep-reused":
        keep = "keep"
        os.makedirs(c.path("keep"))
        c.file("keep/" + HOST_MARKER, HOST_MARKER_HEADER + "\nhost.mlir\nhost.ll\nprog\n")
        c.file("keep/host.ll", "; an earlier run's\n")
        if rng.random() < 0.5:
            c.file("keep/todo.txt", "mine\n")  # not the tool's: the folder is refused, nothing in it changes
        else:
            c.out("keep")  # the tool's own folder
    elif gen == "output-special":
        output, kind = c.special("out/prog", rng.choice(["fifo", "folder", "dangling", "self-loop", "below-file",
                                                         "dev-null", "empty"]))
        if kind == "folder":  # a folder of the user's: nothing may appear in it
            output = rng.choice([output, output + "/"])
        gen += "-" + kind
    elif gen == "input-special":
        prog, kind = c.special("in/prog.mlir")
        c.inp(prog)
        gen += "-" + kind
    elif gen == "input-mutated":
        data, kind = mutate_text(rng, program or ctx["host-vadd"], COMPILED_REPEATS)
        c.inp(c.file("prog.mlir", data))
        gen += "-" + kind
        if rng.random() < 0.3:
            extra += ["--object", str(rng.choice([0, 1, 5, 2**31, 2**64]))]
    elif gen == "driver-special":
        driver, kind = c.special("in/driver.c", rng.choice(SPECIAL_KINDS + ["garbage", "cxx", "output"]))
        if kind == "garbage":
            c.file(driver, mutate_text(rng, open(ctx["host-driver"]).read())[0])
        elif kind == "cxx":
            driver = c.copy(ctx["host-driver"], "in/driver.cpp")
        elif kind == "output":
            driver = output = c.copy(ctx["host-driver"], "in/driver2.c")
        c.inp(driver)
        gen += "-" + kind
    elif gen == "runtime-special":
        os.unlink(c.path(runtime))
        runtime, kind = c.special(runtime, rng.choice(SPECIAL_KINDS + ["garbage"]))
        if kind == "garbage":
            c.file(runtime, os.urandom(rng.choice([0, 100, 100000])))
        c.inp(runtime)
        gen += "-" + kind
    else:  # arguments
        extra += rng.choice([["--object", rng.choice(["-1", "x", "1e3", "99999999999999999999", ""])],
                             ["--tools-dir", c.special("tools", rng.choice(["folder", "fifo", "missing", "dev-zero",
                                                                            "empty"]))[0]],
                             ["--cc", rng.choice(["no-such-cc", "/dev/null", "false", "notes.txt"])],
                             ["--link-arg", rng.choice(["-Wl,--no-such-flag", "-lnosuchlib", ""])],
                             ["--bare-pointers"], ["--nosuch"], ["-o"], ["--keep"], ["--driver", ""]])
    if keep is not None and gen == "valid":
        c.out(keep)
    if output and c.rel(output) not in c.inputs:
        c.out(output)
    if output and c.rel(os.path.join(os.path.dirname(output), RUNTIME_SO)) not in c.inputs:
        c.out(os.path.join(os.path.dirname(output), RUNTIME_SO))
    c.canary()
    argv = python_tool(ctx, "llmptx.host_build", "llmptx-host-build") + [prog, "-o", output, "--runtime", runtime]
    argv += ["--driver", driver] if driver is not None else []
    argv += ["--keep", keep] if keep is not None else []
    return gen, [("host_build", argv + extra, tool_env(ctx))], c

RUNTIME_SO = "libllmptx_gpu_runtime.so"
HOST_MARKER = ".llmptx-host-build"
HOST_MARKER_HEADER = "llmptx-host-build made this folder; it may replace or remove the entries listed below, and nothing else"
IREE_MARKER = ".llmptx-iree"
IREE_MARKER_HEADER = "llmptx-iree made this folder; it may replace or remove the entries listed below, and nothing else"

def file_name_component_ok(name):
    return bool(re.match(r"^[A-Za-z0-9_+-][A-Za-z0-9_.+-]{0,95}$", name))

# ------------------------------------------------------------------- iree
def lower_string(rng):
    """A hostile --llm-lower: options with bad quoting, braces, keys given
    twice, unknown keys, odd values, long text."""
    pieces = ["chip=sm_80", "chip=sm_90", "chip=sm_90a", "chip=sm_999", "chip=", "chip", "verify=none", "verify=exec",
              "verify=bogus", "samples=1", "samples=-1", "samples=99999999999999999999", "repairs=0", "cache=off",
              "provider=exec", "provider=nosuch", "exec-command='cat answer.txt'", "exec-command=\"cat answer.txt\"",
              "exec-command='cat", "exec-command=\"", "strict=true", "strict=maybe", "report=report.json",
              "report=in.mlir", "report=notes.txt", "report=phases", "emit-bundles=bundles", "emit-bundles=phases",
              "emit-bundles=main.c", "select=llm", "{", "}", "{chip=sm_80}", "'", '"', "=", "==", "chip==sm_80",
              "chip='sm_80", "chip={sm_80", "runner=false", "x" * loguniform(rng, 100000), "\u00e9=1", "chip=sm_80\n",
              "features=+ptx80", "model=" + "m" * 1000]
    return " ".join(rng.choice(pieces) for _ in range(rng.randint(0, 6)))

def harness_text(rng, base):
    gen = rng.choice(["shape", "value", "deep", "bytes", "keys", "valid"])
    h = json.loads(base)
    disp = h["dispatches"]["twice_dispatch_0"]
    if gen == "shape":
        h = rng.choice([[1, 2], "harness", 5, None, {"dispatches": [disp]}, {"dispatches": {"twice_dispatch_0": "fast"}},
                        {"dispatches": {"twice_dispatch_0": [1]}}, {"tolerance": []}, {"dispatches": 5}, {}])
    elif gen == "value":
        key = rng.choice(["grid", "constants", "bindings", "tolerance"])
        disp[key] = rng.choice([5, "a", ["a"], [Raw(rng.choice(EXTREME))] * rng.randint(0, 4), None, {}, [1.5, 1, 1],
                                [True, 1, 1], {"ulp": -1}, {"rel": "x"}, {"abs": Raw("1e999")}, [[1]], [1] * 100000])
    elif gen == "deep":
        return deep_json(rng).encode(), "harness-deep"
    elif gen == "keys":
        target = rng.choice([h, disp, h["dispatches"]])
        target[rng.choice(["dispatch", "", "\u0000", "x" * 100000, "__proto__", Raw('"grid"')])] = random_value(rng)
    text = dump(h).encode()
    if gen == "bytes":
        text, _ = byte_mutate(rng, text)
    return text, "harness-" + gen

def gen_iree(rng, d, ctx):
    c = Case(rng, d, ctx)
    inp = c.inp(c.copy(ctx["iree-input"], "in.mlir"))
    harness = None
    gen = rng.choice(["harness", "llm-lower", "paths", "work-dir", "substitutions", "input-special",
                      "input-mutated", "valid", "extra-flags"])
    # Cases stop at the checks before iree-compile (--iree-compile names a missing
    # file, which is refused after every other check) unless they are to
    # reach IREE and IREE is installed.
    full = ctx["iree"] and (gen in ("valid", "input-mutated") or rng.random() < 0.08)
    output, report, work, subs, lower, extra = "out.vmfb", None, None, None, None, []
    if gen in ("harness", "valid") or rng.random() < 0.3:
        harness = "h.json"
        if gen == "harness":
            data, gen = harness_text(rng, open(ctx["iree-harness"]).read())
            c.file(harness, data)
        else:
            c.copy(ctx["iree-harness"], harness)
        c.inp(harness)
    if gen == "llm-lower":
        lower = lower_string(rng)
        if rng.random() < 0.5:
            full = ctx["iree"]
            c.file("in.mlir", "func.func @f( {\n")  # iree-compile refuses it at once, after the option checks
    elif gen == "paths":
        which = rng.choice(["-o", "--report"])
        target = c.alias(rng.choice([inp] + ([harness] if harness else []) + ["main.c", "results.json"]))
        if rng.random() < 0.3:
            target, _ = c.special("p/x", rng.choice(["folder", "dangling", "fifo", "below-file", "dev-null", "self-loop"]))
        output, report = (target, report) if which == "-o" else (output, target)
        if rng.random() < 0.2:
            output, report = "same.json", "same.json"
    elif gen in ("work-dir", "substitutions"):
        kind = rng.choice(["user-folder", "file", "input", "dangling", "forged-marker", "own", "fifo", "below-file",
                           "same-as-other", "dot"])
        folder = "w"
        if kind == "user-folder":
            c.canary(folder)
        elif kind == "file":
            folder = "main.c"
        elif kind == "input":
            folder = c.alias(inp)
        elif kind == "dot":
            folder = "."
        elif kind in ("dangling", "fifo", "below-file"):
            folder, _ = c.special(folder, kind)
        elif kind == "forged-marker":
            os.makedirs(c.path(folder))
            listed = rng.sample(["phases", "executables", "kernels.json", "../notes.txt", "..", "", "main.c", "x" * 200,
                                 "in.mlir"], rng.randint(1, 5))
            c.file(folder + "/" + IREE_MARKER, IREE_MARKER_HEADER + "\n" + "\n".join(listed) + "\n")
            for name in listed:
                if file_name_component_ok(name) and rng.random() < 0.6:
                    c.canary(folder + "/" + name) if name in ("phases", "executables") else \
                        c.file(folder + "/" + name, "user's %s\n" % name)
            c.out(folder)  # every entry of it is listed: the folder is the tool's own
        elif kind == "own":
            os.makedirs(c.path(folder))
            c.file(folder + "/" + IREE_MARKER, IREE_MARKER_HEADER + "\nphases\nkernels.json\n")
            c.canary(folder + "/phases")
            c.out(folder)
        if kind == "same-as-other":
            work = subs = "w"
        elif gen == "work-dir":
            work = folder
        else:
            subs = folder
        gen += "-" + kind
    elif gen == "input-special":
        inp, kind = c.special("in2.mlir")
        c.inp(inp)
        gen += "-" + kind
    elif gen == "input-mutated":
        data, kind = mutate_text(rng, open(ctx["iree-input"]).read(), COMPILED_REPEATS)
        c.file("in.mlir", data)
        gen += "-" + kind
    elif gen == "extra-flags":
        extra = ["--"] + rng.choice([["-o", inp], ["-o", "main.c"], ["--no-such-flag"], ["--iree-hal-target-device="],
                                     ["x" * 100000], [inp]])
    elif gen == "valid" and rng.random() < 0.5:
        work = "w"
    if lower is None and rng.random() < 0.3:
        lower = rng.choice(["chip=sm_80", "chip=sm_80 verify=none", "cache=off"])
    # What the run may write: -o, OUT.iree.vmfb, --report, the substitution
    # folder and --work-dir, each only where the case did not make it the user's.
    def fresh(rel):
        return rel and not os.path.lexists(c.path(rel))
    stem = os.path.splitext(output)[0]
    for rel in [output, stem + ".iree" + (os.path.splitext(output)[1] or ".vmfb"), report]:
        if rel and os.path.normpath(rel) not in c.inputs:
            c.out(rel)
    for rel in [subs or stem + ".substitutions", work]:
        if fresh(rel):
            c.out(rel)
    if lower and "report=report.json" in lower:
        c.out("report.json")
    c.canary()
    argv = python_tool(ctx, "llmptx.iree", "llmptx-iree") + [inp, "-o", output]
    for flag, value in (("--harness", harness), ("--report", report), ("--work-dir", work), ("--substitutions", subs)):
        argv += [flag, value] if value is not None else []
    argv += ["--llm-lower=" + lower] if lower is not None else []
    argv += ["--tools-dir", os.path.dirname(ctx["kernels"])]
    if not full:
        argv += ["--iree-compile", "no-iree-compile"]
    env = dict(tool_env(ctx), LLMPTX_PROVIDER="")
    return gen, [("llmptx-iree", argv + extra, env)], c

# ---------------------------------------------------------------- kernels
def gen_kernels(rng, d, ctx):
    c = Case(rng, d, ctx)
    base = json.loads(open(ctx["kernel-set"]).read())
    s = json.loads(json.dumps(base))
    gen = rng.choice(["set-shape", "names", "duplicates", "output", "special", "answers", "report"])
    output, lower, bundles = "out.json", ["cache=off"], None
    if gen == "set-shape":
        sub = rng.choice(["delete-field", "retype", "deep-nesting", "huge-array", "extreme-number", "unknown-field",
                          "bytes"])
        every = [p for p in paths(s) if p]
        p = rng.choice(every)
        if sub == "delete-field":
            del get(s, p[:-1])[p[-1]]
        elif sub == "retype":
            put(s, p, random_value(rng))
        elif sub == "deep-nesting":
            put(s, p, Raw(deep_json(rng)))
        elif sub == "huge-array":
            q = rng.choice([("kernels",), ("kernels", 0, "args"), p])
            item = get(s, q)[0] if isinstance(get(s, q), list) and get(s, q) else 1
            put(s, q, Raw("[" + ",".join([json.dumps(item)] * loguniform(rng, 20000)) + "]"))
        elif sub == "extreme-number":
            nums = [q for q in every if type(get(s, q)) in (int, float)]
            if nums:
                put(s, rng.choice(nums), Raw(rng.choice(EXTREME)))
        else:
            q = rng.choice([q for q in paths(s) if isinstance(get(s, q), dict)])
            get(s, q)[rng.choice(["x", "", "\u0000", "name2"])] = random_value(rng)
        text = dump(s).encode()
        if sub == "bytes":
            text, _ = byte_mutate(rng, text)
        c.file("set.json", text)
        gen += "-" + sub
    else:
        if gen in ("names", "duplicates"):
            bundles = rng.choice(["a/b/bundles", "bundles"])
            if gen == "names":
                if rng.random() < 0.5:
                    s["name"] = hostile_name(rng)
                else:
                    s["kernels"][0]["name"] = hostile_name(rng)
            else:
                k = s["kernels"][0]
                s["kernels"] += [json.loads(json.dumps(k)) for _ in range(rng.choice([1, 2, 100]))]
                if rng.random() < 0.5:
                    s["kernels"][-1]["name"] = rng.choice(["scale", "Scale", "scale ", "sc\u0430le"])
        c.file("set.json", dump(s))
    c.inp("set.json")
    if gen == "output":
        output = c.alias("set.json") if rng.random() < 0.6 else \
            c.special("o/out.json", rng.choice(["folder", "fifo", "dangling", "below-file", "dev-null", "self-loop"]))[0]
    elif gen == "report":
        target = rng.choice([c.alias("set.json"), "notes.txt", "main.c", "phases", "r/report.json"])
        if target == "r/report.json" and rng.random() < 0.5:
            target, _ = c.special(target, rng.choice(["fifo", "dangling", "folder", "dev-zero", "below-file"]))
        lower.append("report=" + target)
    elif gen == "special":
        os.unlink(c.path("set.json"))
        c.special("set.json")
    if gen in ("answers", "names", "duplicates") or rng.random() < 0.2:
        bundles = bundles or "bundles"
        c.canary(bundles)  # a user's results.json, runner.log, notes.txt ... beside the bundles
        answer = open(ctx["kernel-answer"]).read()
        if gen == "answers" and rng.random() < 0.7:
            answer = mutate_text(rng, answer)[0].decode("utf-8", "replace")
        c.file("answer.txt", answer)
        lower += ["provider=exec", "exec-command='cat answer.txt'", "verify=exec", "repairs=0",
                  "emit-bundles=" + bundles]
        c.out(bundles + "/*.bundle.json")
    if rng.random() < 0.2:
        lower.append(lower_string(rng))
    # report= and emit-bundles= name outputs too: a report where nothing is
    # (a user's file there is kept), bundles in their folder.
    for option in " ".join(lower).split():
        key, _, value = option.partition("=")
        if key == "report" and value and not os.path.exists(c.path(value)):  # a dangling link is replaced
            c.out(value)
        elif key == "emit-bundles" and value:
            c.out(value + "/*.bundle.json")
    c.out(output)
    c.canary()
    argv = [ctx["kernels"], "set.json", "-o", output, "--llm-lower=" + " ".join(lower)]
    env = {"LLMPTX_RUNNER": shlex.quote(ctx["runner"])}
    return gen, [("llmptx-kernels", argv, env)], c

# ------------------------------------------------------- ptx-fragments
def fragment_header_edit(rng, text):
    """A fragment file with hostile headers."""
    lines = text.split("\n")
    kind = rng.choice(["ptx", "chips", "requires", "unknown", "twice", "long", "no-lines", "mutate", "proof", "language"])
    heads = [i for i, l in enumerate(lines) if l.startswith("//!")]
    value = {"ptx": ["429496730.0", "x", "", "-1", "7.", "99999999999999999999.0", "7.0.0", "1e3", "0.0", "8.4 "],
             "chips": ["sm_", "sm_99999999999999999999", "", ",,,", "sm_90," * 10000, "\u00e9"],
             "requires": ["align 0", "align -1", "block 0", "align 99999999999999999999", "warps,warps", "block x"],
             "proof": ["../../etc/passwd", "/dev/zero", "", "rowsum_i32", "nosuch", "x" * 1000, "docs/suite/answers/sgemm"],
             "language": ["cuda", "ptx", "c", ""]}
    if kind in value:
        line = "//! %s: %s" % (kind, rng.choice(value[kind]))
        at = next((i for i in heads if lines[i].startswith("//! %s:" % kind)), None)
        if at is None:
            lines.insert(0, line)
        else:
            lines[at] = line
    elif kind == "unknown":
        lines.insert(0, "//! %s: x" % rng.choice(["nosuch", "", ":", "ptx ", "x" * 10000]))
    elif kind == "twice" and heads:
        lines.insert(0, lines[rng.choice(heads)])
    elif kind == "long":
        lines.insert(0, "//! does: " + "x" * loguniform(rng, 4 << 20))
    elif kind == "no-lines":
        lines = [l for l in lines if l.startswith("//!")]
    elif kind == "mutate":
        return mutate_text(rng, text)[0], "fragment-" + kind
    return "\n".join(lines).encode("utf-8", "surrogatepass"), "fragment-" + kind

def gen_ptx_fragments(rng, d, ctx):
    c = Case(rng, d, ctx)
    kernel = rng.choice(sorted(ctx["fragment-proofs"]))
    ptx, bundle_src = ctx["fragment-proofs"][kernel]
    gen = rng.choice(["ptx", "bundle", "file-special", "bundle-special", "library", "library-special", "chip", "cuda"])
    path, bundle, library, chip = "k.ptx", "k.bundle.json", None, None
    c.file(path, ptx)
    c.copy(bundle_src, bundle)
    if gen == "ptx":
        text, gen = ptx_edit(rng, ptx)
        c.file(path, text)
    elif gen == "cuda":
        path = "k.cu"
        c.file(path, mutate_text(rng, ctx["cuda-fragment-lines"])[0] if rng.random() < 0.5 else ctx["cuda-fragment-lines"])
        chip = rng.choice(["sm_90", "sm_90a", "sm_80", None])
    elif gen == "bundle":
        b = json.load(open(bundle_src))
        every = [p for p in paths(b) if p]
        p = rng.choice(every)
        sub = rng.choice(["delete", "retype", "deep", "bytes", "launch"])
        if sub == "delete":
            del get(b, p[:-1])[p[-1]]
        elif sub == "retype":
            put(b, p, random_value(rng))
        elif sub == "deep":
            put(b, p, Raw(deep_json(rng)))
        elif sub == "launch":
            b["launch"] = rng.choice([{"block": [Raw(rng.choice(EXTREME)), 1, 1]}, {"block": "x"}, [], {"grid": {}}])
        text = dump(b).encode()
        if sub == "bytes":
            text, _ = byte_mutate(rng, text)
        c.file(bundle, text)
        gen += "-" + sub
    elif gen == "file-special":
        path, kind = c.special("in/k.ptx", rng.choice(SPECIAL_KINDS + ["stdin"]))
        if kind == "stdin":
            path = "-"
        gen += "-" + kind
    elif gen == "bundle-special":
        bundle, kind = c.special("in/k.bundle.json")
        gen += "-" + kind
    elif gen in ("library", "library-special"):
        library = "frags"
        for src in ctx["fragment-files"]:
            c.copy(src, os.path.join(library, os.path.basename(src)))
        victim = rng.choice(ctx["fragment-files"])
        target = os.path.join(library, os.path.basename(victim))
        if gen == "library":
            text, sub = fragment_header_edit(rng, open(victim).read())
            c.file(target, text)
        else:
            os.unlink(c.path(target))
            target, sub = c.special(rng.choice([target, os.path.join(library, "extra.ptx"), os.path.join(library, "x.cu")]))
            if rng.random() < 0.2:
                library, sub = c.special("frags2", rng.choice(["fifo", "dangling", "dev-zero", "empty", "below-file"]))
        gen += "-" + sub
    else:
        chip = rng.choice(["", "sm_", "sm_999999999999999999999", "sm_90a", "sm_10", "../x", "x" * 100000, "sm_-1"])
    argv = [ctx["ptx"], "fragments"]
    argv += ["--fragments", library] if library else []
    argv += ["--bundle", bundle] if rng.random() < 0.8 or gen.startswith("bundle") else []
    argv += ["--chip", chip] if chip is not None else []
    argv += ["--json"] if rng.random() < 0.3 else []
    c.inp(path, bundle)
    c.canary()
    return gen, [("llmptx-ptx fragments", argv + [path], {})], c

# ------------------------------------------------------------- fragments
def gen_fragments(rng, d, ctx):
    c = Case(rng, d, ctx)
    gen = rng.choice(["check", "check", "check-special", "bundle-name", "bundle-out", "bundle-valid", "select",
                      "ptx-tool"])
    tool = python_tool(ctx, "llmptx.fragments", "llmptx-fragments")
    if gen in ("check", "check-special", "ptx-tool"):
        names = []
        for _ in range(rng.randint(1, 3)):
            src = rng.choice(ctx["fragment-files"])
            name = "f%d/%s" % (len(names), os.path.basename(src))
            if gen == "check-special" and rng.random() < 0.6:
                name, kind = c.special(name)
                gen = "check-special-" + kind
            else:
                text, sub = fragment_header_edit(rng, open(src).read()) if rng.random() < 0.8 else (open(src, "rb").read(), "fragment-as-is")
                c.file(name, text)
                gen = "check-" + sub if gen == "check" else gen
            names.append(c.inp(name))
        extra = []
        if gen == "ptx-tool":
            extra = ["--ptx-tool", rng.choice(["no-such-tool", "main.c", "/dev/zero", "phases", ctx["ptx"]])]
        elif rng.random() < 0.5:
            extra = ["--ptx-tool", ctx["ptx"]]
        argv = tool + ["check"] + names + extra
    elif gen == "select":
        argv = tool + ["select", "--chip", rng.choice(["sm_90", "", "x" * 10000, "sm_80"])] + \
            [rng.choice(["sum", "", "x" * 100000, "*", "..", "-"]) for _ in range(rng.randint(1, 3))]
    else:
        kernel, out = "rowsum_i32", "bo"
        if gen == "bundle-name":
            kernel = hostile_name(rng)
        elif gen == "bundle-out":
            kind = rng.choice(["user-folder", "file", "dangling", "fifo", "below-file", "dot", "self-loop"])
            if kind == "user-folder":
                c.canary(out)
                c.file(out + "/rowsum_i32.bundle.json", "a user's bundle of that name\n")
                c.out(out + "/rowsum_i32.bundle.json")  # what bundle writes, by its documented name
            elif kind == "file":
                out = "main.c"
            elif kind == "dot":
                out = "."
                c.out("rowsum_i32.bundle.json")
            else:
                out, _ = c.special(out, kind)
            gen += "-" + kind
        if gen == "bundle-valid" or gen == "bundle-name":
            os.makedirs(c.path(out), exist_ok=True)
            c.out(out)
        argv = tool + ["bundle", kernel, "--out", out, "--opt", ctx["opt"]]
        if rng.random() < 0.2:
            argv += ["--chip", rng.choice(["sm_80", "", "x' y", "sm_90 report=main.c", "sm_90a"])]
    c.canary()
    return gen, [("llmptx.fragments", argv, tool_env(ctx))], c

GENERATORS = {"expressions": gen_expressions, "launch": gen_launch, "cache": gen_cache, "bundles": gen_bundles,
              "host_build": gen_host_build, "iree": gen_iree, "kernels": gen_kernels, "ptx-fragments": gen_ptx_fragments,
              "fragments": gen_fragments}

def generate(family, rng, d, ctx):
    """(generator, commands, Case) of one case: the first families' outputs are
    fixed, their canary tree is the standard one at the top of the folder."""
    made = GENERATORS[family](rng, d, ctx)
    if len(made) == 3:
        return made
    case = Case(random.Random(0), d, ctx)
    case.out(*OUTPUTS[family])
    case.canary()
    return made[0], made[1], case


# --------------------------------------------------------------- running
def write(d, name, text):
    with open(os.path.join(d, name), "w", encoding="utf-8") as f:
        f.write(text)

def run(argv, d, extra, timeout, stack=None, mem=MEM_LIMIT, merge=False):
    """(exit status, hung, stderr) of one run in d, under the limits; `merge`
    takes stdout with stderr (a tool that reports its findings there)."""
    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if stack:
            resource.setrlimit(resource.RLIMIT_STACK, (stack, stack))
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLMPTX_") and not k.endswith("_API_KEY")}
    env.update(HOME=d, XDG_CACHE_HOME=os.path.join(d, ".xdg"), TMPDIR=os.path.join(d, ".tmp"), LC_ALL="C", **extra)
    os.makedirs(env["TMPDIR"], exist_ok=True)
    err_path = os.path.join(d, ".stderr")
    with open(err_path, "wb") as err:
        for attempt in range(60):  # a tool being rebuilt under us cannot be started for a moment
            try:
                p = subprocess.Popen(argv, cwd=d, env=env, stdin=subprocess.DEVNULL, stdout=err if merge else subprocess.DEVNULL,
                                     stderr=err, preexec_fn=limits, start_new_session=True)
                LIVE.add(p.pid)
                break
            except OSError:
                if attempt == 59:
                    raise
                time.sleep(1)
        deadline, crashed_at = time.monotonic() + timeout, None
        while True:
            try:
                rc, hung = p.wait(0.2), False
                break
            except subprocess.TimeoutExpired:
                now = time.monotonic()
                if crashed_at is None and os.fstat(err.fileno()).st_size and crash_text_in(err_path):
                    crashed_at = now  # a crash handler that deadlocks must not cost the whole timeout
                if now > deadline or STOP.is_set() or (crashed_at is not None and now > crashed_at + 3):
                    os.killpg(p.pid, signal.SIGKILL)
                    rc, hung = p.wait(), True
                    break
        LIVE.discard(p.pid)
    with open(err_path, "rb") as f:
        head = f.read(1 << 16)
        f.seek(max(len(head), os.path.getsize(err_path) - (1 << 16)))
        text = (head + f.read()).decode("utf-8", "replace")
    os.unlink(err_path)
    return rc, hung, text

def snapshot(d):
    """What a case folder holds: relative path -> kind and content (a digest;
    head, tail, size and mtime for a file over 8 MiB); FIFOs and devices are
    never opened, links never followed."""
    found = {}
    def walk(folder, rel):
        try:
            entries = list(os.scandir(folder))
        except OSError as e:
            found[rel or "."] = ("unreadable folder", e.errno)
            return
        for entry in entries:
            path = os.path.join(rel, entry.name) if rel else entry.name
            if not rel and entry.name in PRIVATE:
                continue
            st = os.lstat(entry.path)
            if stat.S_ISLNK(st.st_mode):
                found[path] = ("link", os.readlink(entry.path))
            elif stat.S_ISDIR(st.st_mode):
                found[path] = ("folder",)
                walk(entry.path, path)
            elif stat.S_ISREG(st.st_mode):
                digest = hashlib.sha256()
                with open(entry.path, "rb") as f:
                    if st.st_size <= 8 << 20:
                        digest.update(f.read())
                        found[path] = ("file", digest.hexdigest())
                        continue
                    digest.update(f.read(1 << 20))
                    f.seek(st.st_size - (1 << 20))
                    digest.update(f.read())
                found[path] = ("file", digest.hexdigest(), st.st_size, st.st_mtime_ns)
            else:
                found[path] = ("special", stat.S_IFMT(st.st_mode), st.st_ino)
    walk(d, "")
    return found

def clobbered(case, before, after):
    """What changed outside the case's declared outputs: the user's files
    changed or gone, entries that appeared; [] when nothing did."""
    changed = []
    for path, was in sorted(before.items()):
        if case.covered(path):
            continue
        now = after.get(path)
        if now is None:
            changed.append("removed %s" % path)
        elif now != was:
            changed.append("%s %s" % ("replaced" if now[0] != was[0] else "changed", path))
    for path in sorted(set(after) - set(before)):
        if not case.covered(path) and not (after[path] == ("folder",) and case.parent_of_output(path)):
            changed.append("made %s" % path)
    return changed

def crash_text_in(path):
    with open(path, "rb") as f:
        return any(t.encode() in f.read(1 << 18) for t in CRASH_TEXT)

def signame(rc):
    return signal.Signals(-rc).name if -rc in signal.valid_signals() else "signal %d" % -rc

def top_frame(lines):
    """The first frame of an LLVM stack dump that is not the crash machinery, without
    template and call arguments: 'nlohmann::detail::serializer::dump'."""
    for line in lines:
        m = re.match(r"\s*#\d+ 0x[0-9a-f]+ (.*?)(?: \(/\S*\))?$", line)
        if m and not SKIP_FRAME.search(m.group(1)):
            name = m.group(1)
            for pattern in (r"<[^<>]*>", r"\([^()]*\)"):
                while re.search(pattern, name):
                    name = re.sub(pattern, "", name)
            return name.strip()[:100]
    return None

def classify(label, rc, hung, err):
    """(class, how it died) with class one of RANK."""
    cls, how = classify_exit(label, rc, hung, err)
    if cls in ("ok", "rejected", "odd"):
        child = "crashed (SIG" in err and CHILD_CRASHED.search(err)
        if child:  # a tool of the build the Python tool ran, killed by a signal
            return "crash", "%s crashed (%s)" % (os.path.basename(child.group(1)), child.group(2))
        if TRACEBACK in err:
            last = [l for l in err[err.index(TRACEBACK):].splitlines() if l and not l.startswith(" ")][-1]
            return "traceback", re.sub(r"0x[0-9a-fA-F]+|\d+", "N", last.strip())[:160]
    return cls, how

def classify_exit(label, rc, hung, err):
    lines = err.splitlines()
    text = next((l for l in lines if any(t in l for t in SPECIFIC_TEXT)), None)
    if text is None and label.startswith("llmptx-opt"):
        text = next((m.group(0) for m in map(RUNNER_DIED.search, lines) if m), None)
    if text is None and not any(t in err for t in CRASH_TEXT):
        if hung:
            return "hang", "HANG"
        if rc == 0 or (rc in (1, 2) and err.strip()):
            return ("ok" if rc == 0 else "rejected"), ""
        if 0 < rc < 128:
            return "odd", "exit %d%s" % (rc, "" if err.strip() else " without a message")
    frame = top_frame(lines)
    how = ": ".join(p for p in [signame(rc) if rc < 0 and not hung else "exit %d" % rc if rc >= 128 else "",
                                re.sub(r"0x[0-9a-fA-F]+|\d+", "N", text.strip())[:120] if text else ""] if p)
    return "crash", " ".join(p for p in [how, "in " + frame if frame else "", "(then hung)" if hung else ""] if p)

class Fuzzer:
    def __init__(self, args, ctx):
        self.args, self.ctx, self.lock = args, ctx, threading.Lock()
        self.work = os.path.join(args.keep, ".work")
        self.signatures = {}  # (family, class, command, how) -> {generator: [count, reproducer dirs]}

    def case(self, family, index, seed):
        """Generates one case from its seed, runs it; returns (class, seconds)."""
        d, start, worst = os.path.join(self.work, "%s-%d" % (family, index)), time.monotonic(), "ok"
        os.makedirs(d)
        try:
            gen, commands, files = generate(family, random.Random(seed), d, self.ctx)
            before = snapshot(d)
            for n, (label, argv, extra) in enumerate(commands):
                rc, hung, err = run(argv, d, extra, self.args.timeout, merge=label in STDOUT_LABELS)
                if STOP.is_set():
                    raise RuntimeError("interrupted")
                cls, how = classify(label, rc, hung, err)
                if cls in ("crash", "hang", "odd", "traceback"):
                    if how.startswith("SIGSEGV"):  # unbounded recursion? once more with a 1 GiB stack
                        if classify(label, *run(argv, d, extra, self.args.timeout, 1 << 30, 16 << 30,
                                                label in STDOUT_LABELS))[0] in ("ok", "rejected"):
                            how += " (stack overflow: passes with a 1 GiB stack)"
                    self.record(family, index, seed, gen, commands[:n + 1], label, cls, how, err)
                worst = max(worst, cls, key=RANK.index)
                # The user's files: only the declared outputs may have changed;
                # and a run that ended by itself left nothing in TMPDIR.
                changed = clobbered(files, before, snapshot(d))
                if not hung and rc >= 0 and rc < 128:
                    changed += ["left %s in TMPDIR" % e for e in sorted(os.listdir(os.path.join(d, ".tmp")))[:1]]
                if changed:
                    how = "%s (%d)" % (re.sub(r"\d+", "N", changed[0]), len(changed))
                    self.record(family, index, seed, gen, commands[:n + 1], label, "clobbered", how,
                                err + "\n".join(["", "fuzz.py: outside the declared outputs:"] + changed))
                    worst = max(worst, "clobbered", key=RANK.index)
                    break
                if cls in ("crash", "hang"):
                    break
            return worst, time.monotonic() - start
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def record(self, family, index, seed, gen, commands, label, cls, how, err):
        key = (family, cls.upper(), label, how)
        with self.lock:
            entry = self.signatures.setdefault(key, {}).setdefault(gen, [0, []])
            entry[0] += 1
            if len(entry[1]) >= KEEP_PER_GENERATOR:
                return
            slug = re.sub(r"[^A-Za-z0-9]+", "-", " ".join(key[1:]))[:100].strip("-")
            d = os.path.join(self.args.keep, family, slug, "%s-%d" % (re.sub(r"[^A-Za-z0-9]+", "-", gen), index))
            entry[1].append(d)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        generate(family, random.Random(seed), d, self.ctx)  # the inputs again, as no run has touched them
        lines = ["#!/bin/sh", "# fuzz.py: family %s, case %d (seed %d), generator %s" % (family, index, seed, gen),
                 "# fails at: %s: %s" % (label, how), 'cd "$(dirname "$0")"', "ulimit -v %d; ulimit -c 0" % (MEM_LIMIT >> 10),
                 "for v in $(env | sed -n 's/^\\(LLMPTX_[A-Za-z0-9_]*\\)=.*/\\1/p'); do unset $v; done"]
        for lab, argv, extra in commands:
            env = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in sorted(extra.items()))
            lines.append('# %s\nmkdir -p .tmp; env HOME="$PWD" XDG_CACHE_HOME="$PWD/.xdg" TMPDIR="$PWD/.tmp" %s %s; echo "exit $?"'
                         % (lab, env, " ".join(shlex.quote(a) for a in argv)))
        write(d, "cmd.sh", "\n".join(lines) + "\n")
        write(d, "stderr.txt", err if len(err) < 40000 else err[:20000] + "\n[...]\n" + err[-20000:])

def setup(args):
    """The tools, the base bundles, the launch answer's PTX and a pristine cache entry."""
    try:  # the build's tools, found as every script finds them (llmptx.tools)
        ctx = {t: os.path.abspath(find_tool("llmptx-" + t, build_bin(args.build)))
               for t in ("runner", "opt", "llm", "kernels", "ptx")}
    except ToolNotFound as error:
        sys.exit("fuzz.py: %s" % error)
    def resolve(v):  # as test/Inputs/runtime/mkbundle.py does
        if isinstance(v, (dict, list)):
            return {k: resolve(x) for k, x in v.items()} if isinstance(v, dict) else [resolve(x) for x in v]
        if isinstance(v, str) and v.startswith("@file:"):
            with open(os.path.join(RUNTIME_INPUTS, v[6:])) as f:
                return f.read()
        return v
    ctx["bundles"] = {}
    for path in sorted(glob.glob(os.path.join(RUNTIME_INPUTS, "*.bundle.in"))):
        with open(path) as f:
            ctx["bundles"][os.path.basename(path)] = resolve(json.load(f))
    with open(os.path.join(TARGET_INPUTS, "answers", "launch-errors", "free.r0.txt")) as f:
        ctx["free-ptx"] = re.search(r"```ptx\n(.*?)```", f.read(), re.S).group(1)
    with open(os.path.join(TARGET_INPUTS, "launch", "refusals.mlir")) as f:  # keep @free, whose launch is free
        mlir = re.sub(r"\n    gpu\.func @(?!free\()[\s\S]*?\n    }(?=\n)", "", f.read())
    ctx["module"] = re.sub(r"\n    gpu\.launch_func @kernels::@(?!free )[\s\S]*?args\([^)]*\)", "", mlir)
    if ctx["module"].count("gpu.func") != 1 or ctx["module"].count("gpu.launch_func") != 1:
        sys.exit("fuzz.py: could not cut @free out of test/Target/Inputs/launch/refusals.mlir")
    setup_tools(args, ctx)
    src = ctx["cache-src"] = os.path.join(args.keep, ".work", "cache-src")
    os.makedirs(src)
    write(src, "msgs.json", '[{"role": "user", "content": "Write k."}]\n')
    write(src, "answer.txt", "```ptx\n.visible .entry k()\n{\n\tret;\n}\n```\n")
    rc, _, err = run([ctx["llm"], "complete", "--provider", "exec", "--model", "m", "--exec-command", "cat answer.txt",
                      "--messages", "msgs.json", "--cache-dir", "cache"], src, {}, args.timeout)
    if rc != 0 or len(glob.glob(os.path.join(src, "cache", "v1", "*", "*.json"))) != 1:
        sys.exit("fuzz.py: could not write the pristine cache entry (exit %d): %s" % (rc, err[-2000:]))
    return ctx

def setup_tools(args, ctx):
    """The inputs of the families of the tools that write files: host programs
    as llm-lower makes them, IREE's program and harness, a kernel set and an
    answer, proof kernels' PTX and bundles, the fragment library."""
    ctx["runtime"] = os.path.normpath(os.path.join(os.path.dirname(os.path.realpath(ctx["opt"])), os.pardir, "lib",
                                                   RUNTIME_SO))
    if not os.path.isfile(ctx["runtime"]):
        sys.exit("fuzz.py: no %s next to the build's bin/" % RUNTIME_SO)
    host = os.path.join(REPO, "test", "Inputs", "host")
    work = os.path.join(args.keep, ".work", "host-src")
    os.makedirs(work)
    for key, program in (("host-vadd", "vadd_program.mlir"), ("host-own", "async_program.mlir")):
        rc, _, err = run([ctx["opt"], os.path.join(host, program), "--llm-lower", "-o", "out.mlir"], work,
                         {"LLMPTX_PROVIDER": ""}, args.timeout)
        if rc != 0:
            sys.exit("fuzz.py: llm-lower of %s failed: %s" % (program, err[-2000:]))
        with open(os.path.join(work, "out.mlir")) as f:
            ctx[key] = f.read()
    ctx["host-driver"] = os.path.join(host, "vadd_driver.c")
    iree_compile = os.path.join(os.path.dirname(sys.executable), "iree-compile")
    try:
        import iree.compiler  # noqa: F401  (llmptx-iree's own import)
        ctx["iree"] = os.path.exists(iree_compile)
    except ImportError:
        ctx["iree"] = False
    ctx["iree-input"] = os.path.join(REPO, "test", "Inputs", "iree", "twice_dynamic.mlir")
    ctx["iree-harness"] = os.path.join(REPO, "test", "Inputs", "iree", "twice_dynamic.harness.json")
    ctx["kernel-set"] = os.path.join(REPO, "test", "IREE", "Inputs", "scale.set.json")
    ctx["kernel-answer"] = os.path.join(REPO, "test", "IREE", "Inputs", "answers", "scale.txt")
    ctx["fragment-proofs"], ctx["cuda-fragment-lines"] = {}, None
    for answer in sorted(glob.glob(os.path.join(REPO, "docs", "suite", "answers", "*.txt")) +
                         glob.glob(os.path.join(REPO, "fragments", "proofs", "*.txt"))):
        kernel = os.path.basename(answer)[:-4]
        with open(answer) as f:
            text = f.read()
        ptx = re.search(r"```ptx\n(.*?)```", text, re.S)
        cuda = re.search(r"```cuda\n(.*?)^```", text, re.S | re.M)
        bundle = [b for b in (os.path.join(REPO, "docs", "suite", "bundles", kernel + ".bundle.json"),
                              os.path.join(REPO, "fragments", "proofs", kernel + ".bundle.json")) if os.path.isfile(b)]
        if ptx and bundle:
            ctx["fragment-proofs"][kernel] = (ptx.group(1), bundle[0])
        if cuda and ctx["cuda-fragment-lines"] is None:
            ctx["cuda-fragment-lines"] = cuda.group(1)
    ctx["fragment-files"] = sorted(glob.glob(os.path.join(REPO, "fragments", "*.ptx")) +
                                   glob.glob(os.path.join(REPO, "fragments", "*.cu")))
    if not ctx["fragment-proofs"] or not ctx["fragment-files"] or ctx["cuda-fragment-lines"] is None:
        sys.exit("fuzz.py: no proof kernels, fragments or CUDA answer in the checkout")

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", help="the build directory (default: the tools on PATH, else build/bin of the checkout)")
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--family", default=",".join(FAMILIES))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", default="/tmp/llmptx-fuzz")
    parser.add_argument("--timeout", type=float, default=20)
    args = parser.parse_args()
    families = [f for f in args.family.split(",") if f]
    if not families or any(f not in FAMILIES for f in families):
        parser.error("--family: a comma-separated list of " + ", ".join(FAMILIES))
    args.keep = os.path.abspath(args.keep)
    marker = os.path.join(args.keep, ".llmptx-fuzz")
    if os.path.isdir(args.keep) and os.listdir(args.keep) and not os.path.exists(marker):
        sys.exit("fuzz.py: %s is not empty and was not written by fuzz.py; give another --keep" % args.keep)
    for stale in FAMILIES + (".work", "summary.txt"):  # what an earlier run wrote there
        path = os.path.join(args.keep, stale)
        shutil.rmtree(path) if os.path.isdir(path) else os.path.exists(path) and os.unlink(path)
    os.makedirs(args.keep, exist_ok=True)
    write(args.keep, ".llmptx-fuzz", "written by bench/fuzz/fuzz.py\n")
    fuzzer = Fuzzer(args, setup(args))
    master = random.Random(args.seed)  # case i of a family is the same whatever --cases and --family say
    family_rngs = {f: random.Random(master.getrandbits(64)) for f in FAMILIES}
    jobs = [(f, i, family_rngs[f].getrandbits(63)) for f in families for i in range(args.cases)]
    counts = {f: dict.fromkeys(RANK + ["cases", "seconds", "error"], 0) for f in families}
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)
    try:
        futures = {pool.submit(fuzzer.case, *job): job for job in jobs}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            family, index, _ = futures[future]
            try:
                cls, seconds = future.result()
            except Exception as e:  # a bug of this driver, not of the tools
                print("fuzz.py: driver error in %s case %d: %r" % (family, index, e), file=sys.stderr)
                cls, seconds = "error", 0
            counts[family].update({"cases": counts[family]["cases"] + 1, cls: counts[family][cls] + 1,
                                   "seconds": counts[family]["seconds"] + seconds})
            if done % 200 == 0:
                print("fuzz.py: %d/%d cases" % (done, len(jobs)), file=sys.stderr, flush=True)
    except BaseException:  # Ctrl-C or SIGTERM: cancel the rest, kill the runs in flight
        STOP.set()
        pool.shutdown(wait=False, cancel_futures=True)
        for pgid in list(LIVE):
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        raise
    pool.shutdown()
    shutil.rmtree(fuzzer.work, ignore_errors=True)
    rows = [[f, c["cases"], c["ok"], c["rejected"] + c["odd"], c["crash"], c["hang"], c["traceback"], c["clobbered"]]
            for f, c in counts.items()]
    total = ["total"] + [sum(r[i] for r in rows) for i in range(1, 8)]
    report = ["%-13s %6s %6s %9s %8s %6s %11s %10s" % tuple(r) for r in
              [("family", "cases", "ok", "rejected", "crashes", "hangs", "tracebacks", "clobbered")] + rows + [total]]
    report.append("seconds of runs (over all jobs): " + ", ".join("%s %.0f" % (f, counts[f]["seconds"]) for f in families))
    errors = sum(counts[f]["error"] for f in families)
    report += ["driver errors (cases not run, see stderr): %d" % errors] if errors else []
    for (family, cls, label, how), gens in sorted(fuzzer.signatures.items()):
        report.append("\n%s %s: %s: %s x%d" % (cls, family, label, how, sum(g[0] for g in gens.values())))
        report += ["    %s x%d: %s" % (gen, n, os.path.join(dirs[0], "cmd.sh")) for gen, (n, dirs) in sorted(gens.items())]
    text = "\n".join(report) + "\n"
    sys.stdout.write(text)
    write(args.keep, "summary.txt", text)
    return 1 if any(total[4:]) else 0

if __name__ == "__main__":
    sys.exit(main())
