"""Triton equivalents of the suite's kernels (the "Triton" column).

Each is what a Triton user would write for the same operation, with the
usual block sizes; the f32 matmul uses IEEE f32 (no TF32), like the other
paths, and the f16 matmul tl.dot's tensor cores with f32 accumulation.
Triton is imported when `launcher` is first called, so this module imports
on a machine without it.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

_KERNELS = None


def _define():
    import triton
    import triton.language as tl

    @triton.jit
    def vadd(a, b, c, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(a + offs, mask=m)
        y = tl.load(b + offs, mask=m)
        tl.store(c + offs, x + y, mask=m)

    @triton.jit
    def saxpy(x, y, alpha, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        xv = tl.load(x + offs, mask=m)
        yv = tl.load(y + offs, mask=m)
        tl.store(y + offs, alpha * xv + yv, mask=m)

    @triton.jit
    def bias_gelu_dropout(x, bias, mask, out, scale, n, BLOCK: tl.constexpr):
        row = tl.program_id(1).to(tl.int64)
        cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = cols < n
        v = tl.load(x + row * n + cols, mask=m) + tl.load(bias + cols, mask=m)
        g = v * 0.5 * (1.0 + tl.math.erf(v * 0.7071067811865476))
        keep = tl.load(mask + row * n + cols, mask=m)
        tl.store(out + row * n + cols, tl.where(keep != 0, g * scale, 0.0),
                 mask=m)

    @triton.jit
    def softmax(x, y, n, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        m = cols < n
        v = tl.load(x + row * n + cols, mask=m, other=-float('inf'))
        e = tl.exp(v - tl.max(v, axis=0))
        e = tl.where(m, e, 0.0)
        tl.store(y + row * n + cols, e / tl.sum(e, axis=0), mask=m)

    @triton.jit
    def layernorm(x, gamma, beta, y, eps, n, BLOCK: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        cols = tl.arange(0, BLOCK)
        m = cols < n
        v = tl.load(x + row * n + cols, mask=m, other=0.0)
        mean = tl.sum(v, axis=0) / n
        d = tl.where(m, v - mean, 0.0)
        rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / n + eps)
        g = tl.load(gamma + cols, mask=m)
        b = tl.load(beta + cols, mask=m)
        tl.store(y + row * n + cols, d * rstd * g + b, mask=m)

    @triton.jit
    def reduce_sum(x, partial, n, G, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        start = pid.to(tl.int64) * BLOCK
        step = G.to(tl.int64) * BLOCK
        for base in range(start, n, step):
            offs = base + tl.arange(0, BLOCK)
            acc += tl.load(x + offs, mask=offs < n, other=0.0)
        tl.store(partial + pid, tl.sum(acc, axis=0))

    @triton.jit
    def transpose(x, out, R, C, BM: tl.constexpr, BN: tl.constexpr):
        rr = tl.program_id(1).to(tl.int64) * BM + tl.arange(0, BM)
        cc = tl.program_id(0).to(tl.int64) * BN + tl.arange(0, BN)
        v = tl.load(x + rr[:, None] * C + cc[None, :],
                    mask=(rr[:, None] < R) & (cc[None, :] < C))
        tl.store(out + cc[:, None] * R + rr[None, :], tl.trans(v),
                 mask=(cc[:, None] < C) & (rr[None, :] < R))

    @triton.jit
    def gemm(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
             BK: tl.constexpr, GROUP: tl.constexpr,
             PRECISION: tl.constexpr):
        # sgemm with PRECISION='ieee' (no TF32); hgemm with f16 operands.
        pid = tl.program_id(0)
        num_m = tl.cdiv(M, BM)
        num_n = tl.cdiv(N, BN)
        group = pid // (GROUP * num_n)
        first_m = group * GROUP
        size_m = min(num_m - first_m, GROUP)
        pid_m = first_m + (pid % (GROUP * num_n)) % size_m
        pid_n = (pid % (GROUP * num_n)) // size_m
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros([BM, BN], dtype=tl.float32)
        for k0 in range(0, K, BK):
            ka = k0 + rk
            av = tl.load(a + rm[:, None] * K + ka[None, :],
                         mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)
            bv = tl.load(b + ka[:, None] * N + rn[None, :],
                         mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(av, bv, acc, input_precision=PRECISION)
        tl.store(c + rm[:, None] * N + rn[None, :], acc,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))

    @triton.jit
    def gemv_i8(a, x, y, M, K, BM: tl.constexpr, BK: tl.constexpr):
        rows = tl.program_id(0) * BM + tl.arange(0, BM)
        base = rows.to(tl.int64)[:, None] * K
        acc = tl.zeros([BM], dtype=tl.int32)
        for k0 in range(0, K, BK):
            cols = k0 + tl.arange(0, BK)
            av = tl.load(a + base + cols[None, :],
                         mask=(rows[:, None] < M) & (cols[None, :] < K),
                         other=0)
            xv = tl.load(x + cols, mask=cols < K, other=0)
            acc += tl.sum(av.to(tl.int32) * xv.to(tl.int32)[None, :], axis=1)
        tl.store(y + rows, acc, mask=rows < M)

    @triton.jit
    def stencil1d(x, out, n, BLOCK: tl.constexpr):
        i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        m = i < n
        x0 = tl.load(x + i, mask=m, other=0.0)
        l1 = tl.load(x + i - 1, mask=m & (i >= 1), other=0.0)
        r1 = tl.load(x + i + 1, mask=i + 1 < n, other=0.0)
        l2 = tl.load(x + i - 2, mask=m & (i >= 2), other=0.0)
        r2 = tl.load(x + i + 2, mask=i + 2 < n, other=0.0)
        l3 = tl.load(x + i - 3, mask=m & (i >= 3), other=0.0)
        r3 = tl.load(x + i + 3, mask=i + 3 < n, other=0.0)
        s = 0.4 * x0 + 0.2 * (l1 + r1) + 0.07 * (l2 + r2) + 0.03 * (l3 + r3)
        inside = (i >= 3) & (i + 3 < n)
        tl.store(out + i, tl.where(inside, s, x0), mask=m)

    @triton.jit
    def histogram(x, bins, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        v = tl.load(x + offs, mask=m, other=0) & 255
        h = tl.histogram(v, 256)
        # Masked lanes were counted in bin 0.
        missing = BLOCK - tl.sum(m.to(tl.int32), axis=0)
        h = h - tl.where(tl.arange(0, 256) == 0, missing, 0)
        tl.atomic_add(bins + tl.arange(0, 256), h)

    @triton.jit
    def scale_add_relu_f16(x, y, out, alpha, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        xv = tl.load(x + offs, mask=m)
        yv = tl.load(y + offs, mask=m)
        r = tl.maximum((xv * alpha).to(tl.float16) + yv, 0.0)
        tl.store(out + offs, r.to(tl.float16), mask=m)

    @triton.jit
    def affine(x, out, alpha, beta, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out + offs, tl.load(x + offs, mask=m) * alpha + beta,
                 mask=m)

    return {k: v for k, v in locals().items() if k not in ('triton', 'tl')}


def _kernels():
    global _KERNELS
    if _KERNELS is None:
        _KERNELS = _define()
    return _KERNELS


def _cdiv(a, b):
    return -(-a // b)


def _pow2_at_least(n):
    p = 1
    while p < n:
        p *= 2
    return p


def launcher(name: str, t: Dict[str, Any], s: Dict[str, Any],
             z: Dict[str, int]) -> Optional[Callable[[], Any]]:
    """A callable that runs the Triton version of kernel `name` on tensors
    t, scalars s, sizes z; None when there is none."""
    k = _kernels()
    if name == 'vadd':
        n = z['N']
        return lambda: k['vadd'][(_cdiv(n, 1024),)](t['a'], t['b'], t['c'],
                                                     n, BLOCK=1024)
    if name == 'saxpy':
        n = z['N']
        return lambda: k['saxpy'][(_cdiv(n, 1024),)](t['x'], t['y'],
                                                      s['alpha'], n,
                                                      BLOCK=1024)
    if name == 'bias_gelu_dropout':
        m, n = z['M'], z['N']
        return lambda: k['bias_gelu_dropout'][(_cdiv(n, 1024), m)](
            t['x'], t['bias'], t['mask'], t['out'], s['scale'], n,
            BLOCK=1024)
    if name in ('softmax', 'layernorm'):
        m, n = z['M'], z['N']
        block = _pow2_at_least(n)
        warps = 4 if block <= 1024 else 8 if block <= 4096 else 16
        if name == 'softmax':
            return lambda: k['softmax'][(m,)](t['x'], t['y'], n, BLOCK=block,
                                              num_warps=warps)
        return lambda: k['layernorm'][(m,)](t['x'], t['gamma'], t['beta'],
                                            t['y'], s['eps'], n, BLOCK=block,
                                            num_warps=warps)
    if name == 'reduce_sum':
        n, g = z['N'], z['G']
        return lambda: k['reduce_sum'][(g,)](t['in'], t['partial'], n, g,
                                             BLOCK=1024, num_warps=4)
    if name == 'transpose':
        r, c = z['R'], z['C']
        return lambda: k['transpose'][(_cdiv(c, 64), _cdiv(r, 64))](
            t['in'], t['out'], r, c, BM=64, BN=64)
    if name in ('sgemm', 'hgemm'):
        m, n, kk = z['M'], z['N'], z['K']
        grid = (_cdiv(m, 128) * _cdiv(n, 128),)
        block_k, precision = (32, 'ieee') if name == 'sgemm' else (64, 'tf32')
        return lambda: k['gemm'][grid](t['a'], t['b'], t['c'], m, n, kk,
                                       BM=128, BN=128, BK=block_k, GROUP=8,
                                       PRECISION=precision, num_warps=8,
                                       num_stages=3)
    if name == 'gemv_i8':
        m, kk = z['M'], z['K']
        return lambda: k['gemv_i8'][(_cdiv(m, 16),)](
            t['a'], t['x'], t['y'], m, kk, BM=16, BK=512, num_warps=4)
    if name == 'stencil1d':
        n = z['N']
        return lambda: k['stencil1d'][(_cdiv(n, 1024),)](t['in'], t['out'],
                                                          n, BLOCK=1024)
    if name == 'histogram':
        n = z['N']
        return lambda: k['histogram'][(_cdiv(n, 8192),)](t['in'], t['bins'],
                                                          n, BLOCK=8192)
    if name == 'scale_add_relu_f16':
        n = z['N']
        return lambda: k['scale_add_relu_f16'][(_cdiv(n, 2048),)](
            t['x'], t['y'], t['out'], s['alpha'], n, BLOCK=2048)
    if name == 'tma_affine':
        n = z['N']
        return lambda: k['affine'][(_cdiv(n, 1024),)](
            t['x'], t['out'], s['alpha'], s['beta'], n, BLOCK=1024)
    return None
