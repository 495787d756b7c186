#!/usr/bin/env python3
"""Fuzz driver: no untrusted input may crash or hang the llmptx tools.

  build/venv/bin/python3 bench/fuzz/fuzz.py [--build build] [--cases 1000] [--seed 1] [--jobs 2]
      [--family expressions,launch,cache,bundles] [--keep DIR] [--timeout 20]

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

Each run has a timeout (SIGKILL to its process group), RLIMIT_AS 4 GiB, no core
dumps, and is: ok (exit 0), rejected (exit 1 or 2 with a message on stderr),
CRASH (a signal, exit >= 128, stderr with "Stack dump", "LLVM ERROR", "terminate
called", "Assertion", a glibc heap error, ...; from llmptx-opt also "runner failed
(exit status -N or >= 128)"; hanging after such a message is a crash, killed 3 s
later) or HANG (timeout). A case runs its commands in order up to the first crash
or hang and counts as its worst run; other exits (3..127, or 1/2 with an empty
stderr) count as rejected and are listed as ODD.

Output: `family cases ok rejected crashes hangs` per family, a total line, the
seconds each family's runs took, then per signature (class, family, command, how
it died: the signal, the most telling stderr line with digits as N, the first frame
of a stack dump) its count and,
per generator, a reproducer KEEP/<family>/<signature>/<generator>-<case>/cmd.sh
(the inputs as generated; `sh cmd.sh` replays the commands up to the failing one
with the same environment and limits; stderr.txt is what the run printed). A
SIGSEGV is run once more with a 1 GiB stack: "stack overflow" says it then passes.
KEEP/summary.txt repeats the report. Exit status 1 on any crash or hang, else 0.
Case i of a family is the same for a --seed whatever --cases, --family, --jobs.
"""
import argparse, concurrent.futures, functools, glob, hashlib, json, math, os, random, re
import resource, shlex, shutil, signal, subprocess, sys, threading, time

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
FAMILIES = ("expressions", "launch", "cache", "bundles")
RANK = ["ok", "rejected", "odd", "hang", "crash"]
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

GENERATORS = {"expressions": gen_expressions, "launch": gen_launch, "cache": gen_cache, "bundles": gen_bundles}

# --------------------------------------------------------------- running
def write(d, name, text):
    with open(os.path.join(d, name), "w", encoding="utf-8") as f:
        f.write(text)

def run(argv, d, extra, timeout, stack=None, mem=MEM_LIMIT):
    """(exit status, hung, stderr) of one run in d, under the limits."""
    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if stack:
            resource.setrlimit(resource.RLIMIT_STACK, (stack, stack))
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLMPTX_") and not k.endswith("_API_KEY")}
    env.update(HOME=d, XDG_CACHE_HOME=os.path.join(d, ".xdg"), LC_ALL="C", **extra)
    err_path = os.path.join(d, ".stderr")
    with open(err_path, "wb") as err:
        for attempt in range(60):  # a tool being rebuilt under us cannot be started for a moment
            try:
                p = subprocess.Popen(argv, cwd=d, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
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
            gen, commands = GENERATORS[family](random.Random(seed), d, self.ctx)
            for n, (label, argv, extra) in enumerate(commands):
                rc, hung, err = run(argv, d, extra, self.args.timeout)
                if STOP.is_set():
                    raise RuntimeError("interrupted")
                cls, how = classify(label, rc, hung, err)
                if cls in ("crash", "hang", "odd"):
                    if how.startswith("SIGSEGV"):  # unbounded recursion? once more with a 1 GiB stack
                        if classify(label, *run(argv, d, extra, self.args.timeout, 1 << 30, 16 << 30))[0] in ("ok", "rejected"):
                            how += " (stack overflow: passes with a 1 GiB stack)"
                    self.record(family, index, seed, gen, commands[:n + 1], label, cls, how, err)
                worst = max(worst, cls, key=RANK.index)
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
        GENERATORS[family](random.Random(seed), d, self.ctx)  # the inputs again, as no run has touched them
        lines = ["#!/bin/sh", "# fuzz.py: family %s, case %d (seed %d), generator %s" % (family, index, seed, gen),
                 "# fails at: %s: %s" % (label, how), 'cd "$(dirname "$0")"', "ulimit -v %d; ulimit -c 0" % (MEM_LIMIT >> 10),
                 "for v in $(env | sed -n 's/^\\(LLMPTX_[A-Za-z0-9_]*\\)=.*/\\1/p'); do unset $v; done"]
        for lab, argv, extra in commands:
            env = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in sorted(extra.items()))
            lines.append('# %s\nenv HOME="$PWD" XDG_CACHE_HOME="$PWD/.xdg" %s %s; echo "exit $?"'
                         % (lab, env, " ".join(shlex.quote(a) for a in argv)))
        write(d, "cmd.sh", "\n".join(lines) + "\n")
        write(d, "stderr.txt", err if len(err) < 40000 else err[:20000] + "\n[...]\n" + err[-20000:])

def setup(args):
    """The tools, the base bundles, the launch answer's PTX and a pristine cache entry."""
    try:  # the build's tools, found as every script finds them (llmptx.tools)
        ctx = {t: os.path.abspath(find_tool("llmptx-" + t, build_bin(args.build)))
               for t in ("runner", "opt", "llm")}
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
    src = ctx["cache-src"] = os.path.join(args.keep, ".work", "cache-src")
    os.makedirs(src)
    write(src, "msgs.json", '[{"role": "user", "content": "Write k."}]\n')
    write(src, "answer.txt", "```ptx\n.visible .entry k()\n{\n\tret;\n}\n```\n")
    rc, _, err = run([ctx["llm"], "complete", "--provider", "exec", "--model", "m", "--exec-command", "cat answer.txt",
                      "--messages", "msgs.json", "--cache-dir", "cache"], src, {}, args.timeout)
    if rc != 0 or len(glob.glob(os.path.join(src, "cache", "v1", "*", "*.json"))) != 1:
        sys.exit("fuzz.py: could not write the pristine cache entry (exit %d): %s" % (rc, err[-2000:]))
    return ctx

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
    rows = [[f, c["cases"], c["ok"], c["rejected"] + c["odd"], c["crash"], c["hang"]] for f, c in counts.items()]
    total = ["total"] + [sum(r[i] for r in rows) for i in range(1, 6)]
    report = ["%-12s %6s %6s %9s %8s %6s" % tuple(r) for r in
              [("family", "cases", "ok", "rejected", "crashes", "hangs")] + rows + [total]]
    report.append("seconds of runs (over all jobs): " + ", ".join("%s %.0f" % (f, counts[f]["seconds"]) for f in families))
    errors = sum(counts[f]["error"] for f in families)
    report += ["driver errors (cases not run, see stderr): %d" % errors] if errors else []
    for (family, cls, label, how), gens in sorted(fuzzer.signatures.items()):
        report.append("\n%s %s: %s: %s x%d" % (cls, family, label, how, sum(g[0] for g in gens.values())))
        report += ["    %s x%d: %s" % (gen, n, os.path.join(dirs[0], "cmd.sh")) for gen, (n, dirs) in sorted(gens.items())]
    text = "\n".join(report) + "\n"
    sys.stdout.write(text)
    write(args.keep, "summary.txt", text)
    return 1 if total[4] or total[5] else 0

if __name__ == "__main__":
    sys.exit(main())
