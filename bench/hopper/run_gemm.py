#!/usr/bin/env python3
"""GPU harness for the Hopper TMA + wgmma f16 GEMMs of bench/hopper.

Loads the NVRTC PTX of hgemm_tma (entries hgemm_tma, with setmaxnreg, and
hgemm_tma_plain, without) and of the fallback hgemm_tma_simple with the
driver (cuModuleLoadData through ctypes; no nvcc needed), builds the tensor
maps each launch block asks for with cuTensorMapEncodeTiled, launches with
the project's tensor-map ABI (21 memref values, then the 128-byte maps by
value) on torch's current stream, checks C against
torch.matmul(A.float(), B.float()) (rel 1e-3 or abs 1e-3, inputs in
[-1, 1]) and times it against cuBLAS (torch.matmul on f16) and, when Triton
is there, a Triton matmul, with the L2 flushed between runs.

    python3 bench/hopper/run_gemm.py --ptx bench/hopper/hgemm_tma.ptx

Each kernel entry runs in a child process of its own (fallback first), so a
kernel that faults or hangs cannot take the others' results with it; the
child also times cuBLAS, and a kernel's "% of cuBLAS" is against that
measurement of the same process. --in-process runs everything in one.

The launch block (block, grid expressions, dynamic shared bytes, tensor maps)
is read from the JSON in the header comment of the .cu beside each .ptx,
the same text the pipeline would read; built-in copies are used when the .cu
is absent. An entry with setmaxnreg is launched only when the registers the
JIT gave it leave the CTA's pool large enough for its setmaxnreg.inc
(otherwise it would wait forever); it is reported as skipped.

Exit status: 0 every result correct, 1 a wrong result, a launch error or a
fault, 3 a kernel that did not finish (a hung pipeline).
"""

import argparse
import ctypes
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time

import torch

from launch_block import launch_block_from_source

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------
# The driver through ctypes
# ---------------------------------------------------------------------------
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CUDA_ERROR_NOT_READY = 600

DATA_TYPE = {torch.float16: 6, torch.float32: 7, torch.bfloat16: 9}  # CUtensorMapDataType
SWIZZLE = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
INTERLEAVE = {"none": 0, "16B": 1, "32B": 2}
L2_PROMOTION = {"none": 0, "64B": 1, "128B": 2, "256B": 3}
OOB_FILL = {"none": 0, "nan": 1}


class Driver:
    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")
        L = self.lib
        c_int, c_uint, c_void_p = ctypes.c_int, ctypes.c_uint, ctypes.c_void_p
        u64p = ctypes.POINTER(ctypes.c_uint64)
        u32p = ctypes.POINTER(ctypes.c_uint32)
        L.cuInit.argtypes = [c_uint]
        L.cuCtxGetCurrent.argtypes = [ctypes.POINTER(c_void_p)]
        L.cuCtxSetCurrent.argtypes = [c_void_p]
        L.cuDeviceGet.argtypes = [ctypes.POINTER(c_int), c_int]
        L.cuDevicePrimaryCtxRetain.argtypes = [ctypes.POINTER(c_void_p), c_int]
        L.cuModuleLoadData.argtypes = [ctypes.POINTER(c_void_p), c_void_p]
        L.cuModuleGetFunction.argtypes = [ctypes.POINTER(c_void_p), c_void_p, ctypes.c_char_p]
        L.cuFuncSetAttribute.argtypes = [c_void_p, c_int, c_int]
        L.cuFuncGetAttribute.argtypes = [ctypes.POINTER(c_int), c_int, c_void_p]
        L.cuGetErrorString.argtypes = [c_int, ctypes.POINTER(ctypes.c_char_p)]
        L.cuStreamQuery.argtypes = [c_void_p]
        L.cuTensorMapEncodeTiled.argtypes = [
            c_void_p, c_int, ctypes.c_uint32, c_void_p, u64p, u64p, u32p, u32p,
            c_int, c_int, c_int, c_int]
        L.cuLaunchKernel.argtypes = [
            c_void_p, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint,
            c_void_p, ctypes.POINTER(c_void_p), ctypes.POINTER(c_void_p)]
        for name in ("cuInit", "cuCtxGetCurrent", "cuCtxSetCurrent", "cuDeviceGet",
                     "cuDevicePrimaryCtxRetain", "cuModuleLoadData", "cuModuleGetFunction",
                     "cuFuncSetAttribute", "cuFuncGetAttribute", "cuGetErrorString",
                     "cuStreamQuery", "cuTensorMapEncodeTiled", "cuLaunchKernel"):
            getattr(L, name).restype = c_int

    def error(self, code):
        text = ctypes.c_char_p()
        self.lib.cuGetErrorString(code, ctypes.byref(text))
        return f"{code} ({text.value.decode() if text.value else 'unknown'})"

    def check(self, code, what):
        if code != 0:
            raise RuntimeError(f"{what}: CUDA driver error {self.error(code)}")

    def ensure_context(self):
        """torch's (primary) context current on this thread."""
        torch.cuda.init()
        torch.zeros(1, device="cuda")  # makes torch's context current
        self.check(self.lib.cuInit(0), "cuInit")
        ctx = ctypes.c_void_p()
        self.check(self.lib.cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
        if not ctx.value:
            dev = ctypes.c_int()
            self.check(self.lib.cuDeviceGet(ctypes.byref(dev), torch.cuda.current_device()),
                       "cuDeviceGet")
            self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev.value),
                       "cuDevicePrimaryCtxRetain")
            self.check(self.lib.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")


DRV = None

# ---------------------------------------------------------------------------
# Launch blocks
# ---------------------------------------------------------------------------
_MAPS = [
    {"name": "tmA", "arg": 0, "box": [128, 64], "swizzle": "128B", "interleave": "none",
     "l2_promotion": "256B", "oob_fill": "none"},
    {"name": "tmB", "arg": 1, "box": [64, 64], "swizzle": "128B", "interleave": "none",
     "l2_promotion": "256B", "oob_fill": "none"},
]
BUILTIN_LAUNCH = {
    "hgemm_tma": {"block": [384, 1, 1],
                  "grid": ["min(132, ceildiv(M, 128) * ceildiv(N, 256))", "1", "1"],
                  "dynamic_shared_bytes": 197760, "tensor_maps": _MAPS},
    "hgemm_tma_plain": {"block": [384, 1, 1],
                        "grid": ["min(132, ceildiv(M, 128) * ceildiv(N, 256))", "1", "1"],
                        "dynamic_shared_bytes": 197760, "tensor_maps": _MAPS},
    "hgemm_tma_simple": {"block": [128, 1, 1],
                         "grid": ["ceildiv(N, 128)", "ceildiv(M, 128)", "1"],
                         "dynamic_shared_bytes": 99392, "tensor_maps": _MAPS},
}


def eval_expr(expr, sizes):
    """The verifier's expression language: integers, sizes, + - * / %,
    ceildiv, min, max (floor division)."""
    if isinstance(expr, int):
        return expr
    py = re.sub(r"(?<![/])/(?!/)", "//", expr)
    env = {"ceildiv": lambda a, b: -(-a // b), "min": min, "max": max, "__builtins__": {}}
    env.update(sizes)
    return int(eval(py, env))  # noqa: S307 (our own launch block)


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------
def ptx_entries(ptx_path):
    """{entry name: its PTX text} of a module."""
    with open(ptx_path) as f:
        text = f.read()
    starts = [(m.start(), m.group(1)) for m in re.finditer(r"\.visible\s+\.entry\s+(\w+)\s*\(", text)]
    out = {}
    for i, (pos, name) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        out[name] = text[pos:end]
    return out


_MODULES = {}


class Kernel:
    def __init__(self, ptx_path, entry, grid_cap=None):
        self.ptx_path = ptx_path
        self.name = entry
        self.body = ptx_entries(ptx_path)[entry]
        cu = os.path.splitext(ptx_path)[0] + ".cu"
        self.launch = launch_block_from_source(cu) if os.path.exists(cu) else None
        self.launch_source = cu if self.launch else "built-in"
        if self.launch is None:
            self.launch = BUILTIN_LAUNCH[self.name]
        if grid_cap is not None:
            # replace the 132 of a persistent grid by the cap asked for
            self.launch = dict(self.launch)
            self.launch["grid"] = [g.replace("min(132,", f"min({grid_cap},")
                                   if isinstance(g, str) else g for g in self.launch["grid"]]
        if ptx_path not in _MODULES:
            with open(ptx_path, "rb") as f:
                image = f.read()
            buf = ctypes.create_string_buffer(image + b"\0")
            module = ctypes.c_void_p()
            DRV.check(DRV.lib.cuModuleLoadData(ctypes.byref(module), buf),
                      f"cuModuleLoadData({ptx_path})")
            _MODULES[ptx_path] = module
        self.module = _MODULES[ptx_path]
        self.func = ctypes.c_void_p()
        DRV.check(DRV.lib.cuModuleGetFunction(ctypes.byref(self.func), self.module,
                                              self.name.encode()), "cuModuleGetFunction")
        self.smem = int(self.launch.get("dynamic_shared_bytes", 0))
        if self.smem > 48 * 1024:
            DRV.check(DRV.lib.cuFuncSetAttribute(
                self.func, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, self.smem),
                "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)")
        regs = ctypes.c_int()
        DRV.lib.cuFuncGetAttribute(ctypes.byref(regs), 4, self.func)  # NUM_REGS
        self.regs = regs.value

    def register_pool_problem(self):
        """None, or why setmaxnreg.inc would wait forever: warpgroup 0 runs
        setmaxnreg.dec P, the others setmaxnreg.inc C; the CTA's pool is the
        launch's allocation, threads x (registers rounded up to 8)."""
        dec = re.findall(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+(\d+)", self.body)
        inc = re.findall(r"setmaxnreg\.inc\.sync\.aligned\.u32\s+(\d+)", self.body)
        if not inc:
            return None
        threads = self.launch["block"][0] * self.launch["block"][1] * self.launch["block"][2]
        per_thread = -(-self.regs // 8) * 8
        pool = threads * per_thread
        p = int(dec[0]) if dec else per_thread
        c = max(int(x) for x in inc)
        need = 128 * p + (threads - 128) * c
        if need > pool or c < per_thread:
            return (f"the JIT gave {self.regs} registers per thread (pool {threads} x {per_thread} = "
                    f"{pool}); setmaxnreg dec {p} / inc {c} needs 128 x {p} + {threads - 128} x {c} "
                    f"= {need}, and inc must not be below the entry's count")
        return None

    # -- the ABI ----------------------------------------------------------
    @staticmethod
    def memref_values(t):
        """(allocated, aligned, offset, size0, size1, stride0, stride1) of a
        2-D view: the storage's base as allocated, the view's first element
        as aligned with offset 0 (the pipeline's runner passes the same
        pointer twice for identity layouts)."""
        base = t.untyped_storage().data_ptr()
        elem = t.element_size()
        off_bytes = t.data_ptr() - base
        assert off_bytes % elem == 0
        return [ctypes.c_uint64(base), ctypes.c_uint64(base),
                ctypes.c_int64(off_bytes // elem),
                ctypes.c_int64(t.shape[0]), ctypes.c_int64(t.shape[1]),
                ctypes.c_int64(t.stride(0)), ctypes.c_int64(t.stride(1))]

    @staticmethod
    def encode_map(t, spec):
        """cuTensorMapEncodeTiled over a 2-D memref: aligned + offset, dims
        innermost first, row stride in bytes, box innermost first."""
        assert t.dim() == 2 and t.stride(1) == 1, "innermost stride must be 1"
        raw = ctypes.create_string_buffer(128 + 64)
        addr = (ctypes.addressof(raw) + 63) & ~63
        dims = (ctypes.c_uint64 * 2)(t.shape[1], t.shape[0])
        strides = (ctypes.c_uint64 * 1)(t.stride(0) * t.element_size())
        box = (ctypes.c_uint32 * 2)(spec["box"][1], spec["box"][0])
        estr = (ctypes.c_uint32 * 2)(1, 1)
        code = DRV.lib.cuTensorMapEncodeTiled(
            ctypes.c_void_p(addr), DATA_TYPE[t.dtype], 2, ctypes.c_void_p(t.data_ptr()),
            dims, strides, box, estr, INTERLEAVE[spec.get("interleave", "none")],
            SWIZZLE[spec.get("swizzle", "none")], L2_PROMOTION[spec.get("l2_promotion", "none")],
            OOB_FILL[spec.get("oob_fill", "none")])
        DRV.check(code, f"cuTensorMapEncodeTiled({spec['name']}: shape {tuple(t.shape)}, "
                        f"strides {t.stride()}, box {spec['box']})")
        return raw, addr

    def prepare(self, a, b, c):
        """The kernel parameters for C = A x B (kept alive in the result)."""
        values = self.memref_values(a) + self.memref_values(b) + self.memref_values(c)
        args = [a, b, c]
        maps = [self.encode_map(args[spec["arg"]], spec) for spec in self.launch["tensor_maps"]]
        ptrs = [ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in values]
        ptrs += [ctypes.c_void_p(addr) for _, addr in maps]
        params = (ctypes.c_void_p * len(ptrs))(*ptrs)
        sizes = {"M": a.shape[0], "K": a.shape[1], "N": b.shape[1]}
        grid = [eval_expr(g if isinstance(g, int) else str(g), sizes) for g in self.launch["grid"]]
        block = self.launch["block"]
        return {"values": values, "maps": maps, "params": params, "grid": grid, "block": block}

    def launch_prepared(self, prep, stream=None):
        stream = torch.cuda.current_stream().cuda_stream if stream is None else stream
        g, b = prep["grid"], prep["block"]
        code = DRV.lib.cuLaunchKernel(self.func, g[0], g[1], g[2], b[0], b[1], b[2], self.smem,
                                      ctypes.c_void_p(stream), prep["params"], None)
        DRV.check(code, f"cuLaunchKernel({self.name}, grid {g}, block {b}, smem {self.smem})")


def wait_or_die(what, timeout_s=120.0):
    """Synchronize torch's current stream, giving up on a hung kernel."""
    stream = torch.cuda.current_stream().cuda_stream
    start = time.time()
    while True:
        code = DRV.lib.cuStreamQuery(ctypes.c_void_p(stream))
        if code == 0:
            return
        if code != CUDA_ERROR_NOT_READY:
            raise RuntimeError(f"{what}: CUDA error {DRV.error(code)}")
        if time.time() - start > timeout_s:
            print(f"FATAL: {what} did not finish within {timeout_s:.0f} s (a hung pipeline)",
                  flush=True)
            os._exit(3)
        time.sleep(0.001)


# ---------------------------------------------------------------------------
# Correctness
# ---------------------------------------------------------------------------
def make_inputs(M, N, K, gen, layout="dense"):
    """A, B in [-1, 1] f16; C f32 filled with NaN (so unwritten elements
    show). layout 'strided' makes views with offsets and padded rows."""
    dev = "cuda"
    if layout == "dense":
        a = (torch.rand(M, K, generator=gen, device=dev) * 2 - 1).half()
        b = (torch.rand(K, N, generator=gen, device=dev) * 2 - 1).half()
        c = torch.full((M, N), float("nan"), device=dev, dtype=torch.float32)
        return a, b, c
    # views: A columns 64.. of an (M, K + 128) buffer, B rows 8.. of a
    # (K + 8, N + 64) buffer, C rows 1.. of an (M + 1, N + 8) buffer
    abuf = (torch.rand(M, K + 128, generator=gen, device=dev) * 2 - 1).half()
    bbuf = (torch.rand(K + 8, N + 64, generator=gen, device=dev) * 2 - 1).half()
    cbuf = torch.full((M + 1, N + 8), float("nan"), device=dev, dtype=torch.float32)
    return abuf[:, 64:64 + K], bbuf[8:, :N], cbuf[1:, :N]


def check_result(c, ref, tol_rel=1e-3, tol_abs=1e-3):
    err = (c - ref).abs()
    bad = ~((err <= tol_abs) | (err <= tol_rel * ref.abs()))
    bad |= ~torch.isfinite(c)
    nbad = int(bad.sum().item())
    finite_err = torch.where(torch.isfinite(err), err, torch.zeros_like(err))
    info = {"bad": nbad, "total": c.numel(), "max_abs_err": float(finite_err.max().item()),
            "nonfinite": int((~torch.isfinite(c)).sum().item())}
    if nbad:
        idx = bad.nonzero()
        r, col = int(idx[0, 0]), int(idx[0, 1])
        info["first_bad"] = (r, col, float(c[r, col].item()), float(ref[r, col].item()))
        # where the wrong elements are, by 64 x 64 block of C (diagnosis)
        M, N = c.shape
        rb = torch.div(idx[:, 0], 64, rounding_mode="floor")
        cb = torch.div(idx[:, 1], 64, rounding_mode="floor")
        info["bad_row_blocks"] = sorted(set(rb.tolist()))[:16]
        info["bad_col_blocks"] = sorted(set(cb.tolist()))[:16]
        info["bad_cols_mod_64"] = sorted(set((idx[:, 1] % 64).tolist()))[:16]
        info["bad_rows_mod_64"] = sorted(set((idx[:, 0] % 64).tolist()))[:16]
    return info


def run_check(kernel, M, N, K, gen, layout="dense"):
    a, b, c = make_inputs(M, N, K, gen, layout)
    prep = kernel.prepare(a, b, c)
    kernel.launch_prepared(prep)
    wait_or_die(f"{kernel.name} {M}x{N}x{K}")
    ref = torch.matmul(a.float(), b.float())
    return check_result(c, ref), prep


# ---------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------
def time_fn(fn, reps, warmup, flush):
    for _ in range(warmup):
        fn()
    wait_or_die("warm-up")
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        flush.zero_()  # 256 MB written: the L2 (50-60 MB) holds none of A, B, C
        starts[i].record()
        fn()
        ends[i].record()
    wait_or_die("timed runs")
    ms = [s.elapsed_time(e) for s, e in zip(starts, ends)]
    return statistics.median(ms), min(ms), max(ms)


def triton_matmul_fn():
    """A Triton matmul (the tutorial's kernel with Hopper configs), f16 out."""
    import triton
    import triton.language as tl

    configs = [
        triton.Config({"BM": 128, "BN": 256, "BK": 64, "GM": 8}, num_stages=3, num_warps=8),
        triton.Config({"BM": 128, "BN": 256, "BK": 64, "GM": 8}, num_stages=4, num_warps=8),
        triton.Config({"BM": 256, "BN": 128, "BK": 64, "GM": 8}, num_stages=3, num_warps=8),
        triton.Config({"BM": 128, "BN": 128, "BK": 64, "GM": 8}, num_stages=4, num_warps=4),
    ]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def mm(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GM: tl.constexpr):
        pid = tl.program_id(0)
        npm = tl.cdiv(M, BM)
        npn = tl.cdiv(N, BN)
        per_group = GM * npn
        gid = pid // per_group
        first = gid * GM
        gsize = min(npm - first, GM)
        pm = first + ((pid % per_group) % gsize)
        pn = (pid % per_group) // gsize
        rm = (pm * BM + tl.arange(0, BM)) % M
        rn = (pn * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        ap = a_ptr + rm[:, None] * sam + rk[None, :] * sak
        bp = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = tl.load(ap, mask=rk[None, :] < K - k * BK, other=0.0)
            b = tl.load(bp, mask=rk[:, None] < K - k * BK, other=0.0)
            acc = tl.dot(a, b, acc)
            ap += BK * sak
            bp += BK * sbk
        cm = pm * BM + tl.arange(0, BM)
        cn = pn * BN + tl.arange(0, BN)
        cp = c_ptr + cm[:, None] * scm + cn[None, :] * scn
        tl.store(cp, acc.to(tl.float16), mask=(cm[:, None] < M) & (cn[None, :] < N))

    def run(a, b, c):
        M, K = a.shape
        N = b.shape[1]
        grid = lambda meta: (triton.cdiv(M, meta["BM"]) * triton.cdiv(N, meta["BN"]),)  # noqa: E731
        mm[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                 c.stride(0), c.stride(1))
    return run


# ---------------------------------------------------------------------------
# (M, N, K, layout, required): a wrong required shape skips the kernel's
# timing; any wrong shape makes the exit status 1.
SHAPES = [(128, 128, 64, "dense", True), (256, 512, 128, "dense", True),
          (1024, 1024, 1024, "dense", True), (4096, 4096, 4096, "dense", True),
          (512, 768, 320, "dense", True), (2048, 1536, 4096, "dense", True),
          (384, 640, 256, "strided", True),
          (64, 64, 32, "dense", False), (192, 320, 160, "dense", False),
          (320, 192, 512, "dense", False), (200, 264, 72, "dense", False),
          (1000, 1000, 1000, "dense", False)]


def setup(args):
    global DRV
    if DRV is None:
        DRV = Driver()
        DRV.ensure_context()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    return torch.cuda.get_device_properties(0)


def gflops_row(n, name, med, lo, hi, ref_ms):
    flops = 2.0 * n * n * n
    return (n, name, f"{med:.3f}", f"{lo:.3f}-{hi:.3f}", f"{flops / (med * 1e-3) / 1e12:.1f}",
            f"{100.0 * ref_ms / med:.1f}%" if ref_ms else "")


def run_entry(args, ptx, entry, sizes):
    """Check and time one kernel entry in this process. Returns a dict."""
    setup(args)
    res = {"entry": entry, "ptx": ptx, "correct": None, "skipped": None, "checks": [],
           "timings": {}, "cublas": {}}
    k = Kernel(ptx, entry, args.grid_cap)
    res["registers"] = k.regs
    print(f"{entry}: {ptx}, {k.regs} registers (driver JIT), launch block from "
          f"{k.launch_source}: block {k.launch['block']}, grid {k.launch['grid']}, "
          f"{k.smem} dynamic shared bytes", flush=True)
    problem = k.register_pool_problem()
    if problem:
        res["skipped"] = problem
        print(f"  {entry}: SKIPPED, not launched: {problem}", flush=True)
        return res
    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    correct, required_ok = True, True
    for (M, N, K, layout, required) in SHAPES:
        try:
            info, prep = run_check(k, M, N, K, gen, layout)
        except RuntimeError as e:
            print(f"  {entry} {M}x{N}x{K} {layout}: ERROR {e}", flush=True)
            res["checks"].append({"shape": [M, N, K], "layout": layout, "error": str(e)})
            correct = False
            required_ok &= not required
            if "cuTensorMapEncodeTiled" not in str(e):
                break  # a fault leaves the context unusable
            continue
        verdict = "ok" if info["bad"] == 0 else "WRONG"
        line = (f"  {entry:17s} M={M:5d} N={N:5d} K={K:5d} {layout:7s} grid {prep['grid']}: "
                f"{verdict}, max |err| {info['max_abs_err']:.3g}")
        if info["bad"]:
            correct = False
            required_ok &= not required
            line += (f", {info['bad']}/{info['total']} wrong ({info['nonfinite']} not finite)"
                     f", first (row, col, got, want) {info['first_bad']}"
                     f", rows%64 {info['bad_rows_mod_64']}, cols%64 {info['bad_cols_mod_64']}"
                     f", row blocks {info['bad_row_blocks']}, col blocks {info['bad_col_blocks']}")
        print(line + ("" if required else " (edge shape)"), flush=True)
        res["checks"].append({"shape": [M, N, K], "layout": layout, "bad": info["bad"],
                              "max_abs_err": info["max_abs_err"]})
    res["correct"] = correct
    if args.check_only or not required_ok:
        return res

    flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.float32, device="cuda")
    for n in sizes:
        M = N = K = n
        a = (torch.rand(M, K, generator=gen, device="cuda") * 2 - 1).half()
        b = (torch.rand(K, N, generator=gen, device="cuda") * 2 - 1).half()
        c16 = torch.empty(M, N, dtype=torch.float16, device="cuda")
        res["cublas"][n] = time_fn(lambda: torch.matmul(a, b, out=c16), args.reps, args.warmup,
                                   flush)
        c = torch.empty(M, N, dtype=torch.float32, device="cuda")
        prep = k.prepare(a, b, c)
        t = time_fn(lambda: k.launch_prepared(prep), args.reps, args.warmup, flush)
        info = check_result(c, torch.matmul(a.float(), b.float()))
        if info["bad"]:
            res["correct"] = False
            print(f"  {entry} {n}^3 (timed run): WRONG, {info['bad']} elements", flush=True)
        res["timings"][n] = t
        print(f"  {entry} {n}^3: {t[0]:.3f} ms ({2.0 * n ** 3 / (t[0] * 1e-3) / 1e12:.1f} TFLOP/s), "
              f"cuBLAS {res['cublas'][n][0]:.3f} ms in the same process "
              f"({100.0 * res['cublas'][n][0] / t[0]:.1f}%)", flush=True)
        a = b = c = c16 = prep = None
        torch.cuda.empty_cache()
    return res


def child_main(args, sizes):
    try:
        res = run_entry(args, args.ptx, args.entry, sizes)
    except RuntimeError as e:
        print(f"  {args.entry}: ERROR {e}", flush=True)
        res = {"entry": args.entry, "ptx": args.ptx, "correct": False, "error": str(e),
               "timings": {}, "cublas": {}}
    print("RESULT_JSON " + json.dumps(res), flush=True)
    return 0


def run_child(args, ptx, entry, sizes):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--ptx", ptx, "--entry", entry,
           "--sizes", ",".join(str(n) for n in sizes), "--reps", str(args.reps),
           "--warmup", str(args.warmup), "--seed", str(args.seed)]
    if args.grid_cap is not None:
        cmd += ["--grid-cap", str(args.grid_cap)]
    if args.check_only:
        cmd.append("--check-only")
    found = []

    def pump(stream):
        for line in stream:
            if line.startswith("RESULT_JSON "):
                found.append(json.loads(line[len("RESULT_JSON "):]))
            else:
                print(line, end="", flush=True)

    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    reader = threading.Thread(target=pump, args=(proc.stdout,), daemon=True)
    reader.start()
    try:
        rc = proc.wait(timeout=args.child_timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        rc = 3
    reader.join(timeout=10)
    res = found[-1] if found else None
    if res is None:
        res = {"entry": entry, "ptx": ptx, "correct": False, "timings": {}, "cublas": {},
               "error": f"child exited with status {rc} without a result"
                        + (" (hung: did not finish)" if rc == 3 else " (a fault?)"),
               "hung": rc == 3}
        print(f"  {entry}: {res['error']}", flush=True)
    # JSON turned the size keys into strings
    for key in ("timings", "cublas"):
        res[key] = {int(n): v for n, v in res.get(key, {}).items()}
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptx", default=os.path.join(HERE, "hgemm_tma.ptx"),
                    help="the fast kernel's PTX (default bench/hopper/hgemm_tma.ptx); all its "
                         "entries run")
    ap.add_argument("--simple-ptx", default=None,
                    help="the fallback's PTX (default: hgemm_tma_simple.ptx beside --ptx; "
                         "'none' to skip)")
    ap.add_argument("--entries", default=None,
                    help="comma list of entries to run (default: every entry of both PTX files)")
    ap.add_argument("--sizes", default="4096,8192", help="timing sizes (M = N = K), comma list")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--grid-cap", type=int, default=None,
                    help="persistent grid cap instead of the launch block's 132")
    ap.add_argument("--no-triton", action="store_true")
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--in-process", action="store_true",
                    help="run every entry in this process (no child processes)")
    ap.add_argument("--child-timeout", type=float, default=900.0)
    ap.add_argument("--json", default=None, help="write the results to this file")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--entry", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",") if x]

    if args.child:
        return child_main(args, sizes)

    props = setup(args)
    print(f"device: {props.name}, {props.multi_processor_count} SMs, "
          f"cc {props.major}.{props.minor}, torch {torch.__version__}, "
          f"CUDA {torch.version.cuda}", flush=True)
    if args.grid_cap is None and props.multi_processor_count < 132:
        # the launch block's persistent grid assumes 132 SMs (H100 SXM, H200);
        # on a smaller part 132 blocks of one block per SM would run in two waves
        args.grid_cap = props.multi_processor_count
        print(f"note: {props.multi_processor_count} SMs: persistent grid capped at "
              f"{args.grid_cap} instead of the launch block's 132", flush=True)

    simple = args.simple_ptx
    if simple is None:
        simple = os.path.join(os.path.dirname(os.path.abspath(args.ptx)), "hgemm_tma_simple.ptx")
    jobs = []  # (ptx, entry), the fallback first, then entries without setmaxnreg
    for path in ([] if simple == "none" or not os.path.exists(simple) else [simple]) + [args.ptx]:
        ents = ptx_entries(path)
        for name in sorted(ents, key=lambda e: ("setmaxnreg" in ents[e], e)):
            if args.entries is None or name in args.entries.split(","):
                jobs.append((path, name))

    results = []
    for path, entry in jobs:
        if args.in_process:
            try:
                res = run_entry(args, path, entry, sizes)
            except RuntimeError as e:
                print(f"  {entry}: ERROR {e}", flush=True)
                res = {"entry": entry, "ptx": path, "correct": False, "error": str(e),
                       "timings": {}, "cublas": {}}
        else:
            res = run_child(args, path, entry, sizes)
        results.append(res)

    failed = any(r.get("correct") is False for r in results)
    hung = any(r.get("hung") for r in results)
    if args.check_only:
        summarize_verdicts(results)
        return 3 if hung else (1 if failed else 0)

    # Baselines in this process
    flush = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.float32, device="cuda")
    triton_run = None
    if not args.no_triton:
        try:
            triton_run = triton_matmul_fn()
        except Exception as e:  # noqa: BLE001
            print(f"(no Triton: {e})")
    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    rows = []
    for n in sizes:
        a = (torch.rand(n, n, generator=gen, device="cuda") * 2 - 1).half()
        b = (torch.rand(n, n, generator=gen, device="cuda") * 2 - 1).half()
        c16 = torch.empty(n, n, dtype=torch.float16, device="cuda")
        cub = time_fn(lambda: torch.matmul(a, b, out=c16), args.reps, args.warmup, flush)
        rows.append(gflops_row(n, "cuBLAS: torch.matmul f16 (f16 out)", *cub, cub[0]))
        if triton_run is not None:
            try:
                triton_run(a, b, c16)  # autotune
                wait_or_die("triton")
                tri = time_fn(lambda: triton_run(a, b, c16), args.reps, args.warmup, flush)
                rows.append(gflops_row(n, "Triton matmul (f16 out)", *tri, cub[0]))
            except Exception as e:  # noqa: BLE001
                print(f"(Triton failed at {n}: {e})")
        for r in results:
            t = r["timings"].get(n)
            if t is None:
                why = r.get("skipped") or r.get("error") or ("wrong results" if r.get("correct") is False
                                                              else "not timed")
                rows.append((n, f"{r['entry']} (f32 out): {why[:60]}", "", "", "", ""))
                continue
            own = r["cublas"].get(n)
            rows.append(gflops_row(n, f"{r['entry']} (f32 out)", *t, own[0] if own else cub[0]))
        a = b = c16 = None
        torch.cuda.empty_cache()

    print()
    print(f"Timing: median of {args.reps} runs after {args.warmup} warm-up, L2 flushed "
          f"(256 MB written) before each, CUDA events; {props.name}. A kernel's % is against "
          f"cuBLAS timed in the kernel's own process just before it; the cuBLAS and Triton "
          f"rows are this process's.")
    head = ("M=N=K", "kernel", "ms (median)", "ms (min-max)", "TFLOP/s", "% of cuBLAS")
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(6)]
    fmt = " | ".join("{:%s%d}" % ("<" if i == 1 else ">", w) for i, w in enumerate(widths))
    print(fmt.format(*head))
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(fmt.format(*[str(x) for x in r]))
    print()
    summarize_verdicts(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": props.name, "results": results, "table": rows}, f, indent=1)
    return 3 if hung else (1 if failed else 0)


def summarize_verdicts(results):
    for r in results:
        if r.get("skipped"):
            v = "skipped (" + r["skipped"] + ")"
        elif r.get("correct"):
            v = "correct on every shape"
        else:
            v = "WRONG or failed" + (f": {r['error']}" if r.get("error") else "")
        print(f"verdict {r['entry']}: {v}")


if __name__ == "__main__":
    sys.exit(main())
