#!/usr/bin/env python3
"""Standalone GPU harness for the attention-forward proof kernels.

  python3 bench/hopper/run_attention.py --ptx bench/hopper/attn_fwd.ptx

Loads the PTX of bench/hopper/attn_fwd.cu (TMA + wgmma, three tensor maps;
"wgmma": entries attn_fwd_d64 / attn_fwd_d128, no setmaxnreg; "wgmma_ws":
attn_fwd_ws_d64 / attn_fwd_ws_d128, setmaxnreg, launched only when the JIT's
register count leaves the CTA's register pool large enough) and of the
fallback bench/hopper/attn_fwd_mma.cu ("mma": mma.sync, attn_fwd_mma_d64 /
attn_fwd_mma_d128, no tensor maps) with cuModuleLoadDataEx, builds the tensor
maps with cuTensorMapEncodeTiled, launches with cuLaunchKernel on torch's
current context and stream (ctypes to libcuda.so.1; no nvcc needed), then

 1. checks every kernel against torch.nn.functional.scaled_dot_product_attention
    computed in f32 (math backend) for small and large shapes, causal and not,
    D = 64 and 128, inputs uniform in [-1, 1] (plus a few "peaky" cases with
    Q scaled by 8): |out - ref| <= atol + rtol * |ref| (2e-3, 2e-3), and no
    NaN/Inf;
 2. times (CUDA events, warm-up, median of --reps >= 20) the kernels and torch
    SDPA (flash backend, and torch's default choice) in the same run, at
    S in {1024, 4096, 16384}, D in {64, 128}, causal and not, B*H = 16 * 16384 / S
    by default (16 heads, 16k tokens: BH = 256 at S = 1k; --bh fixes BH);
    prints TFLOP/s (causal counted as half of 4 * BH * S^2 * D, the
    FlashAttention convention) and % of SDPA (flash) per configuration.

Exit status: 0 all checked kernels correct, 1 a wrong result (the table and
the verdict say which kernel), 2 a setup/launch error, 3 a kernel that did
not finish within --timeout seconds (an mbarrier deadlock, most likely).

--abi-only needs neither torch nor a GPU: it packs the launch arguments the
harness would pass and checks them against the .entry parameter lists of the
PTX files (count, size, alignment).
"""

import argparse
import ctypes
import json
import math
import os
import re
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# ----------------------------------------------------------------------------
# Kernel descriptions (mirror the launch/map JSON in the .cu headers)
# ----------------------------------------------------------------------------
SWIZZLE = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
L2PROMO = {"none": 0, "64B": 1, "128B": 2, "256B": 3}
OOBFILL = {"none": 0, "nan": 1}
INTERLEAVE = {"none": 0, "16B": 1, "32B": 2}


def ceildiv(a, b):
    return (a + b - 1) // b


def eval_grid(expr, s, bh):
    """One grid expression of the launch JSON: an integer, "S", "BH" or "ceildiv(X, Y)"."""
    expr = str(expr).strip()
    m = re.fullmatch(r"ceildiv\((.+),(.+)\)", expr)
    if m:
        return ceildiv(eval_grid(m.group(1), s, bh), eval_grid(m.group(2), s, bh))
    if expr == "S":
        return s
    if expr == "BH":
        return bh
    return int(expr)


class KernelSpec:
    """One kernel family (both D) as the launch JSON describes it."""

    def __init__(self, name, launch, entries):
        self.name = name  # "wgmma" / "mma"
        self.entries = entries  # {D: entry name}
        self.launch = {d: launch[e] for d, e in entries.items()}
        self.smem = {d: int(launch[e]["dynamic_shared_bytes"]) for d, e in entries.items()}
        for d, e in entries.items():
            assert int(launch[e]["D"]) == d, e

    def block(self, d):
        return tuple(int(x) for x in self.launch[d]["block"])

    def grid(self, d, s, bh):
        return tuple(eval_grid(x, s, bh) for x in self.launch[d]["grid"])

    def maps(self, d):
        return self.launch[d]["tensor_maps"]


def load_specs(path):
    """The kernel families in the order they run: the fallback first."""
    launch = json.load(open(path))
    return [KernelSpec("mma", launch, {64: "attn_fwd_mma_d64", 128: "attn_fwd_mma_d128"}),
            KernelSpec("wgmma", launch, {64: "attn_fwd_d64", 128: "attn_fwd_d128"}),
            KernelSpec("wgmma_ws", launch, {64: "attn_fwd_ws_d64", 128: "attn_fwd_ws_d128"})]


def setmaxnreg_blocker(spec, d, regs):
    """Why launching this entry could hang (None if it cannot): setmaxnreg.inc
    takes registers from the CTA's pool, which holds only what .dec released."""
    r = spec.launch[d].get("setmaxnreg")
    if not r:
        return None
    alloc = (regs + 7) // 8 * 8
    need = (r["consumer"] - alloc) * r["consumer_threads"]
    freed = (alloc - r["producer"]) * r["producer_threads"]
    if need > freed:
        return (f"the JIT gave {regs} registers at entry: setmaxnreg.inc {r['consumer']} would need "
                f"{need} registers from the CTA pool, setmaxnreg.dec {r['producer']} frees {freed}")
    return None


# ----------------------------------------------------------------------------
# Driver API through ctypes
# ----------------------------------------------------------------------------
c_void_p, c_int, c_uint, c_int64, c_uint32, c_uint64, c_float, c_size_t = (
    ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_int64, ctypes.c_uint32, ctypes.c_uint64,
    ctypes.c_float, ctypes.c_size_t)

_cu = None


def cu():
    global _cu
    if _cu is None:
        lib = ctypes.CDLL("libcuda.so.1")

        def fn(name, argtypes):
            f = getattr(lib, name)
            f.restype = c_int
            f.argtypes = argtypes
            return f

        class Api:
            pass

        a = Api()
        a.cuInit = fn("cuInit", [c_uint])
        a.cuGetErrorString = fn("cuGetErrorString", [c_int, ctypes.POINTER(ctypes.c_char_p)])
        a.cuCtxGetCurrent = fn("cuCtxGetCurrent", [ctypes.POINTER(c_void_p)])
        a.cuCtxSetCurrent = fn("cuCtxSetCurrent", [c_void_p])
        a.cuDeviceGet = fn("cuDeviceGet", [ctypes.POINTER(c_int), c_int])
        a.cuDevicePrimaryCtxRetain = fn("cuDevicePrimaryCtxRetain", [ctypes.POINTER(c_void_p), c_int])
        a.cuModuleLoadDataEx = fn("cuModuleLoadDataEx", [ctypes.POINTER(c_void_p), c_void_p, c_uint,
                                                         ctypes.POINTER(c_int), ctypes.POINTER(c_void_p)])
        a.cuModuleGetFunction = fn("cuModuleGetFunction", [ctypes.POINTER(c_void_p), c_void_p, ctypes.c_char_p])
        a.cuFuncSetAttribute = fn("cuFuncSetAttribute", [c_void_p, c_int, c_int])
        a.cuFuncGetAttribute = fn("cuFuncGetAttribute", [ctypes.POINTER(c_int), c_int, c_void_p])
        a.cuLaunchKernel = fn("cuLaunchKernel", [c_void_p, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint, c_uint,
                                                 c_void_p, ctypes.POINTER(c_void_p), ctypes.POINTER(c_void_p)])
        a.cuTensorMapEncodeTiled = fn("cuTensorMapEncodeTiled", [
            c_void_p, c_int, c_uint32, c_void_p, ctypes.POINTER(c_uint64), ctypes.POINTER(c_uint64),
            ctypes.POINTER(c_uint32), ctypes.POINTER(c_uint32), c_int, c_int, c_int, c_int])
        _cu = a
    return _cu


class CudaError(RuntimeError):
    pass


def check(res, what):
    if res != 0:
        s = ctypes.c_char_p()
        cu().cuGetErrorString(res, ctypes.byref(s))
        raise CudaError(f"{what}: CUDA error {res} ({s.value.decode() if s.value else '?'})")


CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3
CU_FUNC_ATTRIBUTE_NUM_REGS = 4
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 3, 4
CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 5, 6
CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6


def ensure_context(torch):
    """Make torch's (primary) context current on this thread for the driver API."""
    torch.cuda.init()
    dev = torch.cuda.current_device()
    torch.empty(1, device="cuda")
    check(cu().cuInit(0), "cuInit")
    ctx = c_void_p()
    check(cu().cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
    if not ctx.value:
        d = c_int()
        check(cu().cuDeviceGet(ctypes.byref(d), dev), "cuDeviceGet")
        check(cu().cuDevicePrimaryCtxRetain(ctypes.byref(ctx), d), "cuDevicePrimaryCtxRetain")
        check(cu().cuCtxSetCurrent(ctx), "cuCtxSetCurrent")


def load_module(path):
    data = open(path, "rb").read()
    if not data.endswith(b"\0"):
        data += b"\0"
    image = ctypes.create_string_buffer(data, len(data))
    n = 1 << 16
    err, info = ctypes.create_string_buffer(n), ctypes.create_string_buffer(n)
    opts = (c_int * 4)(CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                       CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)
    vals = (c_void_p * 4)(ctypes.cast(err, c_void_p), c_void_p(n), ctypes.cast(info, c_void_p), c_void_p(n))
    mod = c_void_p()
    res = cu().cuModuleLoadDataEx(ctypes.byref(mod), ctypes.cast(image, c_void_p), 4, opts, vals)
    if res != 0:
        sys.stderr.write(f"JIT error log for {path}:\n{err.value.decode(errors='replace')}\n")
        check(res, f"cuModuleLoadDataEx({path})")
    return mod, image  # keep the image alive with the module


class Function:
    def __init__(self, module, entry, smem):
        self.entry = entry
        self.f = c_void_p()
        check(cu().cuModuleGetFunction(ctypes.byref(self.f), module, entry.encode()), f"cuModuleGetFunction({entry})")
        self.smem = smem
        if smem > 48 * 1024:
            check(cu().cuFuncSetAttribute(self.f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
                  f"max dynamic shared memory {smem} for {entry}")
        regs, local = c_int(), c_int()
        check(cu().cuFuncGetAttribute(ctypes.byref(regs), CU_FUNC_ATTRIBUTE_NUM_REGS, self.f), "regs")
        check(cu().cuFuncGetAttribute(ctypes.byref(local), CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, self.f), "local")
        self.regs, self.local = regs.value, local.value


# ----------------------------------------------------------------------------
# Arguments
# ----------------------------------------------------------------------------
class TensorMapArg:
    """128 bytes, 128-byte aligned host copy of a CUtensorMap (the kernel param is .align 64 .b8 [128])."""

    def __init__(self):
        self._raw = ctypes.create_string_buffer(128 + 128)
        self.addr = (ctypes.addressof(self._raw) + 127) & ~127

    size = 128
    align = 64


def memref_args(ptr, shape, strides):
    """The memref ABI of a 3-D memref: allocated, aligned, offset, size0..2, stride0..2 (elements)."""
    return ([c_void_p(ptr), c_void_p(ptr), c_int64(0)] + [c_int64(s) for s in shape] +
            [c_int64(s) for s in strides])


def encode_map(tm, ptr, shape, strides, m):
    """m: one tensor_maps entry of the launch JSON (box in memref order, outer first)."""
    box_outer_first = m["box"]
    bh, s, d = shape
    dims = (c_uint64 * 3)(d, s, bh)                              # innermost first
    gstrides = (c_uint64 * 2)(strides[1] * 2, strides[0] * 2)   # bytes, dims 1 and 2
    box = (c_uint32 * 3)(*reversed(box_outer_first))
    estr = (c_uint32 * 3)(1, 1, 1)
    check(cu().cuTensorMapEncodeTiled(c_void_p(tm.addr), CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, c_void_p(ptr), dims,
                                      gstrides, box, estr, INTERLEAVE[m["interleave"]], SWIZZLE[m["swizzle"]],
                                      L2PROMO[m["l2_promotion"]], OOBFILL[m["oob_fill"]]),
          f"cuTensorMapEncodeTiled(shape={shape}, box={box_outer_first})")


def build_args(spec, ptrs, shape, strides, scale, causal, encode=True):
    """ptrs: q, k, v, o device pointers; shape (BH, S, D); strides in elements (same for all four)."""
    args = []
    for p in ptrs:
        args += memref_args(p, shape, strides)
    args += [c_float(scale), c_int(1 if causal else 0)]
    for m in spec.maps(shape[2]):
        tm = TensorMapArg()
        if encode:
            encode_map(tm, ptrs[int(m["arg"])], shape, strides, m)
        args.append(tm)
    return args


def param_pointers(args):
    arr = (c_void_p * len(args))()
    for i, a in enumerate(args):
        arr[i] = a.addr if isinstance(a, TensorMapArg) else ctypes.addressof(a)
    return arr


def arg_layout(args):
    out = []
    for a in args:
        if isinstance(a, TensorMapArg):
            out.append((128, 64))
        else:
            out.append((ctypes.sizeof(a), ctypes.sizeof(a)))
    return out


def ptx_params(ptx_text, entry):
    """[(size, align)] of an .entry's parameters."""
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\((.*?)\)", ptx_text, re.S)
    if not m:
        raise ValueError(f"entry {entry} not in the PTX")
    sizes = {"u64": 8, "s64": 8, "b64": 8, "f64": 8, "u32": 4, "s32": 4, "b32": 4, "f32": 4, "u16": 2, "b16": 2,
             "u8": 1, "b8": 1}
    out = []
    for p in m.group(1).split(","):
        p = p.strip()
        if not p:
            continue
        a = re.match(r"\.param\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+\S+?(?:\[(\d+)\])?$", p)
        if not a:
            raise ValueError(f"cannot parse parameter '{p}'")
        elem = sizes[a.group(2)]
        n = int(a.group(3)) if a.group(3) else 1
        out.append((elem * n, int(a.group(1)) if a.group(1) else elem))
    return out


def ptx_maxntid(ptx_text, entry):
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\(.*?\)\s*(?:\.maxntid\s+(\d+),\s*(\d+),\s*(\d+))?",
                  ptx_text, re.S)
    return tuple(int(x) for x in m.groups()) if m and m.group(1) else None


def abi_check(spec, ptx_path, d):
    text = open(ptx_path).read()
    maxntid = ptx_maxntid(text, spec.entries[d])
    if maxntid is not None and maxntid != spec.block(d):
        raise ValueError(f"{spec.entries[d]}: .maxntid {maxntid} but the launch JSON's block is {spec.block(d)}")
    want = ptx_params(text, spec.entries[d])
    fake = [0x10000, 0x20000, 0x30000, 0x40000]
    got = arg_layout(build_args(spec, fake, (4, 256, d), (256 * d, d, 1), 0.125, True, encode=False))
    if want != got:
        raise ValueError(f"{spec.entries[d]}: PTX params {want} != harness args {got}")
    return len(want)


# ----------------------------------------------------------------------------
# Attention runner
# ----------------------------------------------------------------------------
class Attn:
    def __init__(self, spec, ptx_path):
        self.spec, self.ptx_path = spec, ptx_path
        self.module, self._image = load_module(ptx_path)
        self.fns = {d: Function(self.module, e, spec.smem[d]) for d, e in spec.entries.items()}

    def prepare(self, torch, q, k, v, o, causal):
        """Returns a zero-argument launcher for o = attention(q, k, v)."""
        bh, s, d = q.shape
        for t in (k, v, o):
            assert t.shape == q.shape and t.stride() == q.stride() and t.dtype == torch.float16
        assert q.stride(2) == 1
        fn = self.fns[d]
        args = build_args(self.spec, [q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr()], (bh, s, d),
                          q.stride(), 1.0 / math.sqrt(d), causal)
        params = param_pointers(args)
        grid = self.spec.grid(d, s, bh)
        block = self.spec.block(d)
        keep = (args, params)

        def launch():
            _ = keep
            stream = torch.cuda.current_stream().cuda_stream
            check(cu().cuLaunchKernel(fn.f, grid[0], grid[1], grid[2], block[0], block[1], block[2], fn.smem,
                                      c_void_p(stream), params, None), f"cuLaunchKernel({fn.entry})")

        return launch


def wait_or_die(torch, timeout, what):
    ev = torch.cuda.Event()
    ev.record()
    t0 = time.time()
    while not ev.query():
        if time.time() - t0 > timeout:
            print(f"\nTIMEOUT: {what} did not finish within {timeout} s (a deadlock?); exiting", flush=True)
            os._exit(3)
        time.sleep(0.0005)


def sdpa_backend_ctx(torch, which):
    """Context manager selecting SDPA backends: 'flash', 'math' or None (torch's choice)."""
    import contextlib
    if which is None:
        return contextlib.nullcontext()
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        b = {"flash": SDPBackend.FLASH_ATTENTION, "math": SDPBackend.MATH}[which]
        return sdpa_kernel([b])
    except ImportError:  # older torch
        return torch.backends.cuda.sdp_kernel(enable_flash=(which == "flash"), enable_math=(which == "math"),
                                              enable_mem_efficient=False)


def reference(torch, q, k, v, causal, heads, row_chunk=1024):
    """f32 SDPA (math backend) for the given heads; returns (len(heads), S, D) f32."""
    import torch.nn.functional as F
    s, d = q.shape[1], q.shape[2]
    out = torch.empty((len(heads), s, d), device=q.device, dtype=torch.float32)
    with sdpa_backend_ctx(torch, "math"):
        for hi, h in enumerate(heads):
            kf, vf = k[h].float()[None], v[h].float()[None]
            for r0 in range(0, s, row_chunk):
                r1 = min(s, r0 + row_chunk)
                qf = q[h, r0:r1].float()[None]
                mask = None
                if causal:
                    rows = torch.arange(r0, r1, device=q.device)[:, None]
                    cols = torch.arange(s, device=q.device)[None, :]
                    mask = cols <= rows  # True = attend
                out[hi, r0:r1] = F.scaled_dot_product_attention(qf, kf, vf, attn_mask=mask,
                                                                scale=1.0 / math.sqrt(d))[0]
    return out


def compare(torch, got, ref, atol, rtol):
    g = got.float()
    finite = torch.isfinite(g)
    err = torch.where(finite, (g - ref).abs(), torch.zeros_like(ref))
    bad = (~finite) | (err > (atol + rtol * ref.abs()))
    nbad = int(bad.sum())
    info = {"max_abs": float(err.max()), "bad": nbad, "nonfinite": int((~finite).sum()), "n": g.numel()}
    if nbad:
        idx = torch.nonzero(bad)[0].tolist()
        info["first_bad"] = {"index": idx, "got": float(g[tuple(idx)]), "ref": float(ref[tuple(idx)])}
        rows = torch.nonzero(bad.any(dim=-1))  # (head, row) pairs with a bad element
        info["bad_rows"] = int(rows.shape[0])
        info["bad_rows_mod128"] = sorted(set((rows[:, 1] % 128).tolist()))[:16]
        info["bad_cols"] = sorted(set(torch.nonzero(bad.any(dim=1))[:, 1].tolist()))[:16]
    return info


def make_inputs(torch, bh, s, d, seed, q_scale=1.0):
    gen = torch.Generator(device="cuda")
    gen.manual_seed(seed)

    def r():
        return torch.rand((bh, s, d), generator=gen, device="cuda", dtype=torch.float32) * 2 - 1
    q = (r() * q_scale).half()
    return q, r().half(), r().half()


def correctness_cases(args):
    cases = []  # (bh, S, D, causal, heads to check (None = all), q_scale)
    small_s = [1, 7, 64, 100, 128, 129, 200, 255, 256, 300, 383, 384, 513]
    if args.quick:
        small_s = [7, 128, 200, 384]
    for d in (64, 128):
        for causal in (False, True):
            for s in small_s:
                cases.append((3, s, d, causal, None, 1.0))
            for s in ([1024, 1531, 2048] if not args.quick else [1024]):
                cases.append((4, s, d, causal, None, 1.0))
            cases.append((2, 777, d, causal, None, 8.0))   # peaky softmax
            if not args.quick:
                cases.append((2, 4096, d, causal, [0, 1], 8.0))
            # the timing shapes, first and last head checked
            for s in ([1024, 4096, 16384] if not args.quick else [4096]):
                bh = args.bh or max(1, 16 * args.tokens // s)
                cases.append((bh, s, d, causal, [0, bh - 1], 1.0))
    return cases


def correctness(torch, kernels, args):
    """Every case for one kernel, then the next (the fallback first): a kernel
    that faults (which loses the context) cannot hide an earlier verdict."""
    import torch.nn.functional as F
    cases = correctness_cases(args)
    ok = {}
    print(f"correctness: {len(cases)} cases per kernel, |err| <= {args.atol} + {args.rtol} |ref| "
          f"(reference: SDPA, math backend, f32); outputs pre-filled with NaN")
    print(f"{'kernel':7} {'BH':>4} {'S':>6} {'D':>4} {'causal':>6} {'qscale':>6} {'max_abs_err':>12} {'bad':>8}  verdict")
    worst_sdpa = 0.0
    for kern in kernels:
        name = kern.spec.name
        ok[name] = True
        worst = 0.0
        for ci, (bh, s, d, causal, heads, qs) in enumerate(cases):
            q, k, v = make_inputs(torch, bh, s, d, args.seed + ci, qs)
            hs = list(range(bh)) if heads is None else heads
            ref = reference(torch, q, k, v, causal, hs)
            if kern is kernels[0] and s >= 1024:
                with sdpa_backend_ctx(torch, "flash"):
                    so = F.scaled_dot_product_attention(q[None], k[None], v[None], is_causal=causal)[0]
                worst_sdpa = max(worst_sdpa, compare(torch, so[hs], ref, args.atol, args.rtol)["max_abs"])
            o = torch.full_like(q, float("nan"))
            try:
                launch = kern.prepare(torch, q, k, v, o, causal)
                launch()
                wait_or_die(torch, args.timeout, f"{name} BH={bh} S={s} D={d} causal={causal}")
            except CudaError as e:
                print(f"{name:7} {bh:4d} {s:6d} {d:4d} {int(causal):6d} {qs:6.1f} launch error: {e}")
                ok[name] = False
                continue
            info = compare(torch, o[hs], ref, args.atol, args.rtol)
            good = info["bad"] == 0
            ok[name] &= good
            worst = max(worst, info["max_abs"])
            line = (f"{name:7} {bh:4d} {s:6d} {d:4d} {int(causal):6d} {qs:6.1f} {info['max_abs']:12.3e} "
                    f"{info['bad']:8d}  {'ok' if good else 'WRONG'}")
            if not good:
                line += "  " + json.dumps({k2: v2 for k2, v2 in info.items() if k2 not in ("max_abs", "bad", "n")})
            print(line, flush=True)
            del q, k, v, ref, o
        print(f"verdict: {name}: {'PASS' if ok[name] else 'FAIL'} (max abs err {worst:.3e})", flush=True)
    if worst_sdpa:
        print(f"(for scale: torch SDPA flash, f16, on the S >= 1024 cases: max abs err {worst_sdpa:.3e})")
    return ok


def bench(torch, fn, warmup, reps):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    evs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for a, b in evs:
        a.record()
        fn()
        b.record()
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) for a, b in evs)


def timing(torch, kernels, args):
    import torch.nn.functional as F
    rows = []
    names = [k.spec.name for k in kernels]
    hdr = (f"{'D':>4} {'causal':>6} {'S':>6} {'BH':>4} " + "".join(f"{n + ' TF/s':>15}" for n in names) +
           f"{'SDPA-flash':>12}{'SDPA-default':>13}" + "".join(f"{n + ' %flash':>17}" for n in names))
    print("\ntiming: median of", args.reps, "after", args.warmup, "warm-up runs; TFLOP/s =",
          "4*BH*S^2*D (/2 causal) / time")
    print(hdr)
    for d in (64, 128):
        for causal in (False, True):
            for s in args.seqlens:
                bh = args.bh or max(1, 16 * args.tokens // s)
                flops = 4.0 * bh * s * s * d / (2 if causal else 1)
                q, k, v = make_inputs(torch, bh, s, d, args.seed + 100000 + s + d)
                o = torch.empty_like(q)
                res = {"D": d, "causal": causal, "S": s, "BH": bh, "gflop": flops / 1e9}
                for kern in kernels:
                    launch = kern.prepare(torch, q, k, v, o, causal)
                    launch()
                    wait_or_die(torch, args.timeout, f"{kern.spec.name} timing run")
                    ms = bench(torch, launch, args.warmup, args.reps)
                    res[kern.spec.name + "_ms"] = ms
                    res[kern.spec.name + "_tflops"] = flops / ms / 1e9
                q4, k4, v4 = q[None], k[None], v[None]
                for label, which in (("sdpa_flash", "flash"), ("sdpa_default", None)):
                    try:
                        with sdpa_backend_ctx(torch, which):
                            ms = bench(torch, lambda: F.scaled_dot_product_attention(q4, k4, v4, is_causal=causal),
                                       args.warmup, args.reps)
                        res[label + "_ms"] = ms
                        res[label + "_tflops"] = flops / ms / 1e9
                    except RuntimeError as e:
                        res[label + "_tflops"] = float("nan")
                        res[label + "_error"] = str(e).splitlines()[0]
                line = f"{d:4d} {int(causal):6d} {s:6d} {bh:4d} "
                line += "".join(f"{res[n + '_tflops']:15.1f}" for n in names)
                line += f"{res['sdpa_flash_tflops']:12.1f}{res['sdpa_default_tflops']:13.1f}"
                for n in names:
                    pct = 100.0 * res[n + "_tflops"] / res["sdpa_flash_tflops"]
                    res[n + "_pct_flash"] = pct
                    line += f"{pct:16.1f}%"
                print(line, flush=True)
                rows.append(res)
                del q, k, v, o
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptx", default=os.path.join(HERE, "attn_fwd.ptx"), help="PTX of attn_fwd.cu (wgmma)")
    ap.add_argument("--fallback-ptx", default=None,
                    help="PTX of attn_fwd_mma.cu (default: attn_fwd_mma.ptx next to --ptx)")
    ap.add_argument("--launch-json", default=os.path.join(HERE, "attn_fwd.launch.json"),
                    help="launch configuration and tensor maps of every entry")
    ap.add_argument("--kernels", default="mma,wgmma,wgmma_ws",
                    help="comma-separated: mma (fallback), wgmma (attn_fwd_d*), wgmma_ws (attn_fwd_ws_d*)")
    ap.add_argument("--skip-check", action="store_true")
    ap.add_argument("--skip-bench", action="store_true")
    ap.add_argument("--quick", action="store_true", help="fewer correctness cases")
    ap.add_argument("--abi-only", action="store_true", help="check the argument packing against the PTX and exit")
    ap.add_argument("--seqlens", type=int, nargs="+", default=[1024, 4096, 16384])
    ap.add_argument("--tokens", type=int, default=16384, help="B*S for timing (BH = 16 * tokens / S)")
    ap.add_argument("--bh", type=int, default=0, help="fixed B*H for timing (overrides --tokens)")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--atol", type=float, default=2e-3)
    ap.add_argument("--rtol", type=float, default=2e-3)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds before a launch counts as hung")
    ap.add_argument("--json", default=None, help="write the results here")
    args = ap.parse_args()
    if args.reps < 20:
        print("note: --reps below 20")
    if args.fallback_ptx is None:
        args.fallback_ptx = os.path.join(os.path.dirname(os.path.abspath(args.ptx)), "attn_fwd_mma.ptx")
    wanted = [w.strip() for w in args.kernels.split(",") if w.strip()]
    ptx_of = {"mma": args.fallback_ptx, "wgmma": args.ptx, "wgmma_ws": args.ptx}
    specs = [(s, ptx_of[s.name]) for s in load_specs(args.launch_json) if s.name in wanted]

    for spec, path in specs:
        for d in (64, 128):
            n = abi_check(spec, path, d)
            print(f"abi: {spec.entries[d]} in {os.path.relpath(path)}: {n} parameters match the harness's packing")
    if args.abi_only:
        return 0

    import torch
    results_skipped = {}
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    try:
        ensure_context(torch)
        print(f"device: {torch.cuda.get_device_name()} (cc {torch.cuda.get_device_capability()}), "
              f"torch {torch.__version__}, CUDA {torch.version.cuda}")
        kernels = []
        # the fallback first: if the wgmma kernel faults, the context is lost,
        # and the fallback's verdict is already printed
        for spec, path in specs:
            k = Attn(spec, path)
            blocked = []
            for d, f in k.fns.items():
                print(f"loaded {f.entry}: {f.regs} registers, {f.local} bytes local, block {spec.block(d)}, "
                      f"dynamic shared {f.smem}")
                why = setmaxnreg_blocker(spec, d, f.regs)
                if why:
                    blocked.append(f"{f.entry}: {why}")
            if blocked:
                print(f"SKIP {spec.name} (not launched, it would hang): " + "; ".join(blocked))
                results_skipped[spec.name] = blocked
                continue
            kernels.append(k)
    except (CudaError, OSError, ValueError) as e:
        print(f"setup error: {e}")
        return 2

    results = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "skipped": results_skipped}
    status = 0
    try:
        if not args.skip_check:
            ok = correctness(torch, kernels, args)
            results["correct"] = ok
            if not all(ok.values()):
                status = 1
                # time only the kernels that passed
                kernels = [k for k in kernels if ok[k.spec.name]]
        if not args.skip_bench and kernels:
            results["timing"] = timing(torch, kernels, args)
            for n in [k.spec.name for k in kernels]:
                pcts = [r[n + "_pct_flash"] for r in results["timing"]]
                print(f"{n}: % of SDPA (flash) min {min(pcts):.1f}%, geometric mean "
                      f"{math.exp(sum(math.log(p) for p in pcts) / len(pcts)):.1f}%")
    except CudaError as e:
        print(f"CUDA error: {e}")
        status = 2
    except RuntimeError as e:  # torch's view of a sticky error (illegal instruction/address, trap)
        print(f"runtime error (a kernel faulted? the context is lost): {e}")
        print("hint: --kernels mma checks and times the fallback alone")
        status = 2
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return status


if __name__ == "__main__":
    sys.exit(main())
