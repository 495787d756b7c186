"""Triton equivalents of the suite's kernels (the "Triton" column).

Each is what a Triton user would write for the same operation, with the
usual block sizes; the f32 matmul uses IEEE f32 (no TF32), like the other
paths, and the f16 matmuls tl.dot's tensor cores with f32 accumulation.
The f16 GEMM with its bias + ReLU epilogue and the attention forward
(FlashAttention-2's loop: online softmax over key tiles, exp2 with log2(e)
folded into the scale, P rounded to f16 for the second product, the
causal diagonal tile masked and the tiles above it skipped) are
autotuned over a few configurations, as Triton users do. Triton is
imported when `launcher` is first called, so this module imports on a
machine without it.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

# The kernels `launcher` has a Triton version of.
NAMES = ('vadd', 'saxpy', 'bias_gelu_dropout', 'softmax', 'layernorm',
         'reduce_sum', 'transpose', 'sgemm', 'hgemm', 'hgemm_bias_relu_f16',
         'gemv_i8', 'stencil1d', 'histogram', 'scale_add_relu_f16',
         'tma_affine', 'attention_d64', 'attention_d128')

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

    @triton.autotune(
        configs=[triton.Config({'BM': 128, 'BN': 256, 'BK': 64}, num_warps=8,
                               num_stages=3),
                 triton.Config({'BM': 256, 'BN': 128, 'BK': 64}, num_warps=8,
                               num_stages=3),
                 triton.Config({'BM': 128, 'BN': 128, 'BK': 64}, num_warps=8,
                               num_stages=4),
                 triton.Config({'BM': 128, 'BN': 128, 'BK': 64}, num_warps=4,
                               num_stages=4)],
        key=['M', 'N', 'K'])
    @triton.jit
    def gemm_bias_relu(a, b, bias, c, M, N, K, BM: tl.constexpr,
                       BN: tl.constexpr, BK: tl.constexpr,
                       GROUP: tl.constexpr):
        # C = relu(A B + bias) in f16, f32 accumulation; grouped tile order
        # so that GROUP row tiles share the B columns they read from L2.
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
        a_ptrs = a + rm.to(tl.int64)[:, None] * K + rk[None, :]
        b_ptrs = b + rk.to(tl.int64)[:, None] * N + rn[None, :]
        acc = tl.zeros([BM, BN], dtype=tl.float32)
        for k0 in range(0, K, BK):
            av = tl.load(a_ptrs, mask=(rm[:, None] < M) &
                         (k0 + rk[None, :] < K), other=0.0)
            bv = tl.load(b_ptrs, mask=(k0 + rk[:, None] < K) &
                         (rn[None, :] < N), other=0.0)
            acc = tl.dot(av, bv, acc)
            a_ptrs += BK
            b_ptrs += BK * N
        bv = tl.load(bias + rn, mask=rn < N, other=0.0).to(tl.float32)
        out = tl.maximum(acc + bv[None, :], 0.0).to(tl.float16)
        tl.store(c + rm.to(tl.int64)[:, None] * N + rn[None, :], out,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))

    @triton.jit
    def _attention_tiles(acc, l_i, m_i, qb, k_base, v_base, rows, lo, hi,
                         qk_scale, D: tl.constexpr, BM: tl.constexpr,
                         BN: tl.constexpr, DIAGONAL: tl.constexpr):
        # Key tiles [lo, hi) of one block of query rows; DIAGONAL masks
        # keys after the query (the causal tile on the diagonal).
        cols = tl.arange(0, BN)
        dims = tl.arange(0, D)
        for start in range(lo, hi, BN):
            kt = tl.load(k_base + (start + cols)[None, :] * D + dims[:, None])
            s = tl.dot(qb, kt) * qk_scale
            if DIAGONAL:
                s = tl.where(rows[:, None] >= (start + cols)[None, :], s,
                             float('-inf'))
            m_new = tl.maximum(m_i, tl.max(s, 1))
            p = tl.math.exp2(s - m_new[:, None])
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            vt = tl.load(v_base + (start + cols)[:, None] * D + dims[None, :])
            acc = tl.dot(p.to(tl.float16), vt, acc * alpha[:, None])
            m_i = m_new
        return acc, l_i, m_i

    @triton.autotune(
        configs=[triton.Config({'BM': 128, 'BN': 64}, num_warps=4,
                               num_stages=3),
                 triton.Config({'BM': 128, 'BN': 128}, num_warps=8,
                               num_stages=3),
                 triton.Config({'BM': 64, 'BN': 64}, num_warps=4,
                               num_stages=4)],
        key=['S', 'D', 'CAUSAL'])
    @triton.jit
    def attention(q, k, v, o, scale, S, D: tl.constexpr,
                  CAUSAL: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
        # One block of BM query rows of one (batch * head) slice; Q, K, V, O
        # contiguous (BH, S, D) f16; S a multiple of BM and BN.
        tile = tl.program_id(0)
        base = tl.program_id(1).to(tl.int64) * S * D
        rows = tile * BM + tl.arange(0, BM)
        dims = tl.arange(0, D)
        qb = tl.load(q + base + rows[:, None] * D + dims[None, :])
        qk_scale = scale * 1.4426950408889634  # log2(e): exp2 below
        m_i = tl.full([BM], float('-inf'), dtype=tl.float32)
        l_i = tl.zeros([BM], dtype=tl.float32)
        acc = tl.zeros([BM, D], dtype=tl.float32)
        if CAUSAL:
            # Whole tiles left of the diagonal, then the diagonal tiles.
            acc, l_i, m_i = _attention_tiles(
                acc, l_i, m_i, qb, k + base, v + base, rows, 0, tile * BM,
                qk_scale, D, BM, BN, False)
            acc, l_i, m_i = _attention_tiles(
                acc, l_i, m_i, qb, k + base, v + base, rows, tile * BM,
                (tile + 1) * BM, qk_scale, D, BM, BN, True)
        else:
            acc, l_i, m_i = _attention_tiles(
                acc, l_i, m_i, qb, k + base, v + base, rows, 0, S, qk_scale,
                D, BM, BN, False)
        out = acc / l_i[:, None]
        tl.store(o + base + rows[:, None] * D + dims[None, :],
                 out.to(tl.float16))

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
    if name == 'hgemm_bias_relu_f16':
        m, n, kk = z['M'], z['N'], z['K']

        def grid(meta):
            return (_cdiv(m, meta['BM']) * _cdiv(n, meta['BN']),)
        return lambda: k['gemm_bias_relu'][grid](
            t['a'], t['b'], t['bias'], t['c'], m, n, kk, GROUP=8)
    if name in ('attention_d64', 'attention_d128'):
        bh, n = z['BH'], z['S']
        d = t['q'].shape[2]
        if n % 128:
            raise ValueError('the Triton attention needs S a multiple of '
                             '128, not %d' % n)
        causal = s['causal'] != 0

        def grid(meta):
            return (n // meta['BM'], bh)
        return lambda: k['attention'][grid](
            t['q'], t['k'], t['v'], t['o'], s['scale'], n, D=d,
            CAUSAL=causal)
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
