"""Runs a shipped NVPTX reference object of the suite (docs/suite/objects)
in the PTX interpreter on one small shape and compares its output with the
operation computed here in double precision from its definition (standard
library only):

    reference_semantics.py OBJECTS KERNEL SIZE=VALUE...

attention_d64/_d128: softmax(scale * Q K^T [causal mask]) V per slice;
hgemm_bias_relu_f16: relu(A B + bias). Prints the largest difference and
whether every element is within the harness's tolerance (abs + rel * |x|,
2e-3 each), then the same for the operation with the other causal flag
(attention) or without the bias (GEMM), which must not match: the check
sees the mask and the epilogue. Exit status 1 when the reference does not
match its definition or matches the wrong one. Used by
test/Suite/reference-semantics.test."""

import math
import random
import struct
import sys

from llmptx.suite import manifest, ptx_interp

TOLERANCE = 2e-3


def half(value):
    """The f16 nearest to value, as (bits, float)."""
    raw = struct.pack('<e', value)
    return struct.unpack('<H', raw)[0], struct.unpack('<e', raw)[0]


def attention(q, k, v, shape, scale, causal):
    slices, n, d = shape
    out = []
    for b in range(slices):
        for i in range(n):
            keys = range(i + 1) if causal else range(n)
            row = q[(b * n + i) * d:(b * n + i + 1) * d]
            scores = [scale * sum(x * y for x, y in zip(
                row, k[(b * n + j) * d:(b * n + j + 1) * d])) for j in keys]
            top = max(scores)
            weights = [math.exp(s - top) for s in scores]
            total = sum(weights)
            for c in range(d):
                out.append(sum(w * v[(b * n + j) * d + c]
                               for w, j in zip(weights, keys)) / total)
    return out


def gemm_bias_relu(a, b, bias, m, n, kk, with_bias):
    return [max(0.0, sum(a[i * kk + t] * b[t * n + j] for t in range(kk)) +
                (bias[j] if with_bias else 0.0))
            for i in range(m) for j in range(n)]


def within(got, want):
    worst = max(abs(g - w) for g, w in zip(got, want))
    ok = all(abs(g - w) <= TOLERANCE * (1 + abs(w))
             for g, w in zip(got, want))
    return worst, ok


def main():
    objects, name = sys.argv[1], sys.argv[2]
    sizes = {k: int(v) for k, v in (a.split('=') for a in sys.argv[3:])}
    kernel = next(k for k in manifest.load(objects)['kernels']
                  if k['name'] == name)
    plan = manifest.LaunchPlan(kernel, sizes)
    memory = ptx_interp.GlobalMemory()
    rng = random.Random(7)
    values, addresses = {}, {}
    for buf in plan.buffers:
        base = memory.alloc(buf.nbytes, 256)
        addresses[buf.name] = base
        data, _ = memory.find(base, buf.nbytes)
        if buf.name in ('o', 'c'):
            data[:] = b'\xff' * buf.nbytes  # NaN: unwritten elements show
            continue
        pairs = [half(rng.uniform(-1, 1)) for _ in range(buf.count)]
        data[:] = b''.join(struct.pack('<H', bits) for bits, _ in pairs)
        values[buf.name] = [x for _, x in pairs]
    packed = plan.pack(addresses)
    plan.check_params('nvptx', packed)
    module = ptx_interp.parse(kernel['objects']['nvptx']['ptx'])
    ptx_interp.Launch(module, kernel['entry'], memory, packed, plan.grid,
                      plan.block).run()
    out = plan.buffers[-1]
    data, _ = memory.find(addresses[out.name], out.nbytes)
    got = [struct.unpack_from('<e', data, 2 * i)[0] for i in range(out.count)]
    if name.startswith('attention'):
        scale = struct.unpack('<f', plan.scalars['scale'])[0]
        causal = int.from_bytes(plan.scalars['causal'], 'little') != 0
        shape = plan.buffer('q').shape
        want = attention(values['q'], values['k'], values['v'], shape, scale,
                         causal)
        other = attention(values['q'], values['k'], values['v'], shape,
                          scale, not causal)
        what = 'causal' if causal else 'no mask'
    else:
        m, n, kk = sizes['M'], sizes['N'], sizes['K']
        want = gemm_bias_relu(values['a'], values['b'], values['bias'], m, n,
                              kk, True)
        other = gemm_bias_relu(values['a'], values['b'], values['bias'], m,
                               n, kk, False)
        what = 'relu(A B + bias)'
    worst, ok = within(got, want)
    print('%s %s (%s): max |diff| %.2g: %s' % (
        name, plan.describe(), what, worst, 'ok' if ok else 'FAIL'))
    worst_other, ok_other = within(got, other)
    print('  against the other definition: max |diff| %.2g: %s' % (
        worst_other, 'matches (FAIL)' if ok_other else 'differs'))
    return 0 if ok and not ok_other else 1


if __name__ == '__main__':
    sys.exit(main())
