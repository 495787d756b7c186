"""What the benchmark does with each kernel of the suite.

Per kernel: the problem sizes it is timed at, how its inputs are filled,
the bytes it must move (memory-bound kernels) or the flops it does, the
PyTorch op a user would write today (timed as the "PyTorch" column), the
vendor library's op where there is one (the "vendor" column: cuBLAS or
cuBLASLt through torch's matmul ops, scaled_dot_product_attention), the
PyTorch reference its outputs are checked against, and the tolerance of
that check. The launch itself (grid, block, arguments, scalar values) comes
from the manifest, i.e. from the kernel's #llmgen.harness.

Importing this module needs neither torch nor a GPU; the functions that
build tensors import torch when they are called.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Tuple

from llmptx.suite.manifest import LaunchPlan


class Workload:
    def __init__(self, name: str, sizes: List[Dict[str, int]],
                 inits: Dict[str, Tuple[Any, ...]], outputs: List[str],
                 metric: str, amount: Callable[[Dict[str, int]], float],
                 reference: Callable[..., Dict[str, Any]],
                 torch_op: Callable[..., Callable[[], Any]],
                 tolerance: Tuple[float, float], memory_bound: bool = True,
                 note: str = '', compare: Optional[Callable[..., bool]] = None,
                 peak: str = 'f32', torch_name: str = '',
                 vendor_op: Optional[Callable[..., Callable[[], Any]]] = None,
                 vendor_name: str = '') -> None:
        self.name = name
        self.sizes = sizes            # [{size name: value}]
        self.inits = inits            # {arg name: recipe tuple}
        self.outputs = outputs        # arg names compared after a run
        self.metric = metric          # 'bytes' or 'flops'
        self.amount = amount          # sizes -> bytes moved or flops done
        self.reference = reference    # (tensors, scalars) -> {name: tensor}
        self.torch_op = torch_op      # (tensors, scalars) -> callable
        self.tolerance = tolerance    # (rtol, atol) against PyTorch
        self.memory_bound = memory_bound
        self.note = note
        self.compare = compare        # optional (got, want, sizes) -> bool
        self.peak = peak              # flops: 'f32' (FMA) or 'f16_tensor'
        self.torch_name = torch_name  # what torch_op runs, for the dry run
        # (tensors, scalars) -> callable returning the output tensor; None
        # where no vendor library does the operation.
        self.vendor_op = vendor_op
        self.vendor_name = vendor_name


def _pow2(*exps):
    return [{'N': 1 << e} for e in exps]


def _reduce_sizes(*exps):
    out = []
    for e in exps:
        n = 1 << e
        out.append({'N': n, 'G': min(-(-n // 256), 1024)})
    return out


# -- references and PyTorch ops (torch imported by the caller's process) ----

def _vadd_ref(t, s):
    return {'c': t['a'] + t['b']}


def _vadd_op(t, s):
    import torch
    a, b, c = t['a'], t['b'], t['c']
    return lambda: torch.add(a, b, out=c)


def _saxpy_ref(t, s):
    return {'y': s['alpha'] * t['x'] + t['y']}


def _saxpy_op(t, s):
    x, y, alpha = t['x'], t['y'], s['alpha']
    return lambda: y.add_(x, alpha=alpha)


def _gelu_ref(t, s):
    import torch
    import torch.nn.functional as F
    g = F.gelu(t['x'] + t['bias']) * s['scale']
    return {'out': torch.where(t['mask'] != 0, g, torch.zeros_like(g))}


def _gelu_op(t, s):
    import torch.nn.functional as F
    x, bias, scale = t['x'], t['bias'], s['scale']
    keep = t['mask'] != 0
    return lambda: F.gelu(x + bias) * keep * scale


def _softmax_ref(t, s):
    import torch
    return {'y': torch.softmax(t['x'].double(), dim=-1).float()}


def _softmax_op(t, s):
    import torch
    x = t['x']
    return lambda: torch.softmax(x, dim=-1)


def _layernorm_ref(t, s):
    import torch.nn.functional as F
    x = t['x'].double()
    y = F.layer_norm(x, (x.shape[-1],), t['gamma'].double(),
                     t['beta'].double(), s['eps'])
    return {'y': y.float()}


def _layernorm_op(t, s):
    import torch.nn.functional as F
    x, g, b, eps = t['x'], t['gamma'], t['beta'], s['eps']
    return lambda: F.layer_norm(x, (x.shape[-1],), g, b, eps)


def _reduce_ref(t, s):
    return {'partial': t['in'].double().sum().float()}


def _reduce_compare(got, want, sizes):
    # The partial sums of the kernel add up to the whole sum.
    total = got['partial'].double().sum()
    n = sizes['N']
    # Each of the two sums may be off by about sqrt(n) ulps of its terms.
    bound = 1e-6 * math.sqrt(n) + 1e-5 * abs(float(want['partial']))
    return abs(float(total) - float(want['partial'])) <= bound


def _reduce_op(t, s):
    import torch
    x = t['in']
    return lambda: torch.sum(x)


def _transpose_ref(t, s):
    return {'out': t['in'].t().contiguous()}


def _transpose_op(t, s):
    x, out = t['in'], t['out']
    return lambda: out.copy_(x.t())


def _gemm_ref(t, s):
    # sgemm and hgemm: f64 products of the inputs, the f32 C both write.
    return {'c': (t['a'].double() @ t['b'].double()).float()}


def _sgemm_op(t, s):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    a, b, c = t['a'], t['b'], t['c']
    return lambda: torch.matmul(a, b, out=c)


def _hgemm_op(t, s):
    import torch
    a, b = t['a'], t['b']
    # What a user writes: cuBLAS through torch.mm, f16 in and out (f32
    # accumulation inside cuBLAS); the f32 output of the suite kernel has
    # no plain torch.mm equivalent.
    return lambda: torch.mm(a, b)


def _gemv_i8_ref(t, s):
    # CUDA has no integer matmul; in f64 every partial sum (an integer below
    # K * 2^14 <= 2^53) is exact.
    y = t['a'].double() @ t['x'].double()
    return {'y': y.round().to(t['y'].dtype)}


def _gemv_i8_op(t, s):
    import torch
    a, x = t['a'], t['x']
    # torch has no int8 mat-vec on CUDA; torch._int_mm (cuBLASLt, i8 x i8
    # -> i32) needs n >= 8, so x is one column of a K x 8 operand (the other
    # seven zero): A is read once either way. _int_mm wants the second
    # operand column-major on some versions: try both layouts.
    xs = torch.zeros((x.shape[0], 8), dtype=torch.int8, device=x.device)
    xs[:, 0] = x
    for b in (xs, xs.t().contiguous().t()):
        try:
            torch._int_mm(a, b)
            torch.cuda.synchronize()
        except RuntimeError:
            continue
        fn = (lambda b=b: torch._int_mm(a, b))
        fn.note = ('PyTorch: torch._int_mm(A, [x, 0 x 7]) (cuBLASLt int8, '
                   '%s x)' % ('row-major' if b is xs else 'column-major'))
        return fn
    af = a.float()
    xf = x.float()
    fn = (lambda: torch.mv(af, xf))
    fn.note = 'PyTorch: torch.mv on f32 copies (torch._int_mm refused)'
    return fn


def _sgemm_vendor(t, s):
    import torch
    a, b, c = t['a'], t['b'], t['c']
    return lambda: torch.matmul(a, b, out=c)


def _hgemm_vendor(t, s):
    import torch
    a, b = t['a'], t['b']
    # cuBLAS with an f32 C, like the suite kernel's, where torch has
    # out_dtype (f16 inputs, f32 accumulation and output); else f16 C.
    try:
        torch.mm(a, b, out_dtype=torch.float32)
        fn = (lambda: torch.mm(a, b, out_dtype=torch.float32))
        fn.note = 'vendor: torch.mm(out_dtype=float32) (cuBLAS, f32 C)'
    except (TypeError, RuntimeError):
        fn = (lambda: torch.mm(a, b))
        fn.note = 'vendor: torch.mm (cuBLAS, f16 C; no out_dtype here)'
    return fn


def _gemm_bias_relu_ref(t, s):
    import torch
    c = t['a'].double() @ t['b'].double() + t['bias'].double()
    return {'c': torch.relu(c).float()}


def _gemm_bias_relu_op(t, s):
    import torch
    a, b, bias = t['a'], t['b'], t['bias']
    # What a user writes without a fused op: cuBLAS, then ReLU in place.
    return lambda: torch.addmm(bias, a, b).relu_()


def _gemm_bias_relu_vendor(t, s):
    import torch
    a, b, bias = t['a'], t['b'], t['bias']
    fused = getattr(torch, '_addmm_activation', None)
    if fused is not None:
        try:
            fused(bias, a, b, use_gelu=False)
            fn = (lambda: fused(bias, a, b, use_gelu=False))
            fn.note = ('vendor: torch._addmm_activation (cuBLASLt, bias + '
                       'ReLU epilogue)')
            return fn
        except (TypeError, RuntimeError):
            pass
    fn = (lambda: torch.addmm(bias, a, b).relu_())
    fn.note = 'vendor: addmm + relu_ (no torch._addmm_activation here)'
    return fn


def _attention_ref(t, s):
    """f32 attention, a slice group at a time (at most ~1 GiB of scores);
    TF32 is off in the benchmark's process."""
    import torch
    q, k, v = t['q'], t['k'], t['v']
    slices, n, d = q.shape
    causal = s['causal'] != 0
    out = torch.empty((slices, n, d), dtype=torch.float32, device=q.device)
    hidden = (torch.ones((n, n), dtype=torch.bool, device=q.device).triu(1)
              if causal else None)
    step = max(1, (1 << 28) // (n * n))
    for i in range(0, slices, step):
        qs, ks, vs = (x[i:i + step].float() for x in (q, k, v))
        scores = torch.matmul(qs, ks.transpose(1, 2)) * s['scale']
        if causal:
            scores.masked_fill_(hidden, float('-inf'))
        out[i:i + step] = torch.matmul(torch.softmax(scores, dim=-1), vs)
        del scores
    return {'o': out}


def _attention_op(t, s):
    import torch
    q, k, v, scale = t['q'], t['k'], t['v'], s['scale']
    n = q.shape[1]
    hidden = (torch.ones((n, n), dtype=torch.bool, device=q.device).triu(1)
              if s['causal'] != 0 else None)

    # Attention as written without SDPA: the S x S scores in memory, f16.
    def run():
        scores = torch.matmul(q, k.transpose(1, 2)).mul_(scale)
        if hidden is not None:
            scores.masked_fill_(hidden, float('-inf'))
        return torch.matmul(torch.softmax(scores, dim=-1), v)
    return run


def _attention_vendor(t, s):
    import torch
    import torch.nn.functional as F
    # (1, BH, S, D): SDPA's fused kernels take batch and heads as leading
    # dimensions; the views cost nothing.
    q, k, v = (t[x].unsqueeze(0) for x in ('q', 'k', 'v'))
    causal, scale = s['causal'] != 0, s['scale']
    fn = (lambda: F.scaled_dot_product_attention(
        q, k, v, is_causal=causal, scale=scale).squeeze(0))
    try:
        from torch.nn.attention import SDPBackend
        choice = torch._fused_sdp_choice(q, k, v, None, 0.0, causal, scale)
        backend = SDPBackend(choice).name
    except Exception:  # a private function: the note says it is unknown
        backend = 'not reported'
    fn.note = ('vendor: F.scaled_dot_product_attention, backend %s' %
               backend)
    return fn


def _attention_flops(d):
    # 4 S^2 D per slice, halved when causal (C = 1 + causal): FlashAttention's
    # count, so rates compare with published ones.
    return lambda z: 4 * z['BH'] * z['S'] * z['S'] * d // z['C']


def _attention_sizes(slices):
    """(BH, S) at 1k, 4k and 16k, each without and with the causal mask."""
    out = []
    for bh, n in zip(slices, (1024, 4096, 16384)):
        out += [{'BH': bh, 'S': n, 'C': 1}, {'BH': bh, 'S': n, 'C': 2}]
    return out


def _attention_workload(d, slices):
    return Workload(
        'attention_d%d' % d, _attention_sizes(slices),
        {'q': ('uniform', -1, 1), 'k': ('uniform', -1, 1),
         'v': ('uniform', -1, 1)}, ['o'],
        'flops', _attention_flops(d), _attention_ref, _attention_op,
        (2e-3, 2e-3), memory_bound=False, peak='f16_tensor',
        note='f16 Q, K, V, O; C = 1 + causal',
        torch_name='softmax(Q K^T * scale [+ mask]) V, f16, eager',
        vendor_op=_attention_vendor,
        vendor_name='torch.nn.functional.scaled_dot_product_attention')


_STENCIL_W = (0.4, 0.2, 0.07, 0.03)


def _stencil_weights(device):
    import torch
    w0, w1, w2, w3 = _STENCIL_W
    return torch.tensor([[[w3, w2, w1, w0, w1, w2, w3]]],
                        dtype=torch.float32, device=device)


def _stencil_ref(t, s):
    import torch.nn.functional as F
    x = t['in']
    w = _stencil_weights(x.device).double()
    y = F.conv1d(x.double()[None, None], w, padding=3)[0, 0].float()
    n = x.shape[0]
    edge = min(3, n)
    y[:edge] = x[:edge]
    y[n - edge:] = x[n - edge:]
    return {'out': y}


def _stencil_op(t, s):
    import torch.nn.functional as F
    x = t['in'][None, None]
    w = _stencil_weights(x.device)
    return lambda: F.conv1d(x, w, padding=3)


def _histogram_ref(t, s):
    import torch
    counts = torch.bincount((t['in'] & 255).long(), minlength=256)
    return {'bins': (t['bins'].long() + counts).int()}


def _histogram_op(t, s):
    import torch
    x = t['in']
    return lambda: torch.bincount(x & 255, minlength=256)


def _f16_ref(t, s):
    x, y = t['x'].float(), t['y'].float()
    # The kernel rounds x * alpha to half before adding y.
    m = (x * s['alpha']).half().float()
    return {'out': (m + y).half().relu()}


def _f16_op(t, s):
    import torch
    x, y, alpha = t['x'], t['y'], s['alpha']
    return lambda: torch.add(y, x, alpha=alpha).relu_()


def _tma_ref(t, s):
    return {'out': t['x'] * s['alpha'] + s['beta']}


def _tma_op(t, s):
    import torch
    x, alpha, beta = t['x'], s['alpha'], s['beta']
    return lambda: torch.mul(x, alpha).add_(beta)


WORKLOADS = {w.name: w for w in [
    Workload('vadd', _pow2(20, 24, 28),
             {'a': ('uniform', -1, 1), 'b': ('uniform', -1, 1)}, ['c'],
             'bytes', lambda z: 12 * z['N'], _vadd_ref, _vadd_op, (0, 0),
             torch_name='torch.add(a, b, out=c)'),
    Workload('saxpy', _pow2(20, 24, 28),
             {'x': ('uniform', -1, 1), 'y': ('uniform', -1, 1)}, ['y'],
             'bytes', lambda z: 12 * z['N'], _saxpy_ref, _saxpy_op,
             (1e-6, 1e-6),
             torch_name='y.add_(x, alpha=alpha)'),
    Workload('bias_gelu_dropout',
             [{'M': 4096, 'N': 1024}, {'M': 8192, 'N': 4096},
              {'M': 16384, 'N': 8192}],
             {'x': ('uniform', -3, 3), 'bias': ('uniform', -1, 1),
              'mask': ('bernoulli', 0.9)}, ['out'],
             'bytes', lambda z: 9 * z['M'] * z['N'] + 4 * z['N'],
             _gelu_ref, _gelu_op, (1e-5, 1e-6),
             note='PyTorch: gelu(x + bias) * keep * scale, eager',
             torch_name='F.gelu(x + bias) * keep * scale'),
    Workload('softmax',
             [{'M': 32768, 'N': 1024}, {'M': 8192, 'N': 4096},
              {'M': 4096, 'N': 8192}],
             {'x': ('normal', 0, 2)}, ['y'],
             'bytes', lambda z: 8 * z['M'] * z['N'], _softmax_ref,
             _softmax_op, (1e-5, 1e-7),
             torch_name='torch.softmax'),
    Workload('layernorm',
             [{'M': 32768, 'N': 1024}, {'M': 8192, 'N': 4096},
              {'M': 4096, 'N': 8192}],
             {'x': ('uniform', -1, 1), 'gamma': ('uniform', -1, 1),
              'beta': ('uniform', -1, 1)}, ['y'],
             'bytes', lambda z: 8 * z['M'] * z['N'] + 8 * z['N'],
             _layernorm_ref, _layernorm_op, (1e-4, 1e-5),
             torch_name='F.layer_norm'),
    Workload('reduce_sum', _reduce_sizes(20, 24, 28),
             {'in': ('uniform', -1, 1)}, ['partial'],
             'bytes', lambda z: 4 * z['N'], _reduce_ref, _reduce_op, None,
             compare=_reduce_compare,
             note='first stage (G partial sums); PyTorch: torch.sum',
             torch_name='torch.sum'),
    Workload('transpose',
             [{'R': 2048, 'C': 2048}, {'R': 8192, 'C': 8192},
              {'R': 16384, 'C': 8192}],
             {'in': ('uniform', -1, 1)}, ['out'],
             'bytes', lambda z: 8 * z['R'] * z['C'], _transpose_ref,
             _transpose_op, (0, 0),
             torch_name='out.copy_(x.t())'),
    Workload('sgemm',
             [{'M': 1024, 'N': 1024, 'K': 1024},
              {'M': 2048, 'N': 2048, 'K': 2048},
              {'M': 4096, 'N': 4096, 'K': 4096}],
             {'a': ('uniform', -1, 1), 'b': ('uniform', -1, 1)}, ['c'],
             'flops', lambda z: 2 * z['M'] * z['N'] * z['K'], _gemm_ref,
             _sgemm_op, (1e-4, 2e-4), memory_bound=False,
             note='f32 (no TF32) on every path',
             torch_name='torch.matmul (cuBLAS)', vendor_op=_sgemm_vendor,
             vendor_name='torch.matmul (cuBLAS, f32, no TF32)'),
    Workload('hgemm',
             [{'M': 1024, 'N': 1024, 'K': 1024},
              {'M': 2048, 'N': 2048, 'K': 2048},
              {'M': 4096, 'N': 4096, 'K': 4096}],
             {'a': ('uniform', -1, 1), 'b': ('uniform', -1, 1)}, ['c'],
             'flops', lambda z: 2 * z['M'] * z['N'] * z['K'], _gemm_ref,
             _hgemm_op, (1e-3, 1e-3), memory_bound=False, peak='f16_tensor',
             note='f16 inputs, f32 accumulation; C in f32 on the NVPTX, '
                  'object 0 and Triton paths, in f16 for PyTorch (torch.mm, '
                  'cuBLAS)',
             torch_name='torch.mm (cuBLAS, f16 C)', vendor_op=_hgemm_vendor,
             vendor_name='torch.mm(out_dtype=float32) (cuBLAS)'),
    Workload('hgemm_bias_relu_f16',
             [{'M': 2048, 'N': 2048, 'K': 2048},
              {'M': 4096, 'N': 4096, 'K': 4096},
              {'M': 8192, 'N': 8192, 'K': 8192}],
             {'a': ('uniform', -1, 1), 'b': ('uniform', -1, 1),
              'bias': ('uniform', -1, 1)}, ['c'],
             'flops', lambda z: 2 * z['M'] * z['N'] * z['K'],
             _gemm_bias_relu_ref, _gemm_bias_relu_op, (2e-3, 2e-3),
             memory_bound=False, peak='f16_tensor',
             note='f16 in and out, f32 accumulation',
             torch_name='torch.addmm(bias, A, B).relu_() (cuBLAS + ReLU)',
             vendor_op=_gemm_bias_relu_vendor,
             vendor_name='torch._addmm_activation (cuBLASLt epilogue)'),
    _attention_workload(64, (128, 16, 4)),
    _attention_workload(128, (64, 8, 2)),
    Workload('gemv_i8',
             [{'M': 4096, 'K': 4096}, {'M': 16384, 'K': 16384},
              {'M': 32768, 'K': 16384}],
             {'a': ('randint', -128, 127), 'x': ('randint', -128, 127)},
             ['y'], 'bytes',
             lambda z: z['M'] * z['K'] + z['K'] + 4 * z['M'], _gemv_i8_ref,
             _gemv_i8_op, (0, 0),
             torch_name='torch._int_mm (cuBLASLt int8)'),
    Workload('stencil1d', _pow2(20, 24, 28),
             {'in': ('uniform', -1, 1)}, ['out'],
             'bytes', lambda z: 8 * z['N'], _stencil_ref, _stencil_op,
             (1e-6, 1e-6), note='PyTorch: conv1d (no boundary copy)',
             torch_name='F.conv1d'),
    Workload('histogram', _pow2(20, 24, 28),
             {'in': ('randint32',), 'bins': ('zeros',)}, ['bins'],
             'bytes', lambda z: 4 * z['N'], _histogram_ref, _histogram_op,
             (0, 0), note='PyTorch: bincount(x & 255)',
             torch_name='torch.bincount'),
    Workload('scale_add_relu_f16', _pow2(20, 24, 28),
             {'x': ('uniform', -2, 2), 'y': ('uniform', -2, 2)}, ['out'],
             'bytes', lambda z: 6 * z['N'], _f16_ref, _f16_op, (1e-3, 1e-3),
             torch_name='torch.add(y, x, alpha=alpha).relu_()'),
    Workload('tma_affine', _pow2(20, 24, 28),
             {'x': ('uniform', -1, 1)}, ['out'],
             'bytes', lambda z: 8 * z['N'], _tma_ref, _tma_op,
             (1e-6, 1e-6),
             torch_name='torch.mul(x, alpha).add_(beta)'),
]}


def make_tensors(workload: Workload, plan: LaunchPlan,
                 device: Any) -> Dict[str, Any]:
    """Input and output tensors for a plan: {arg name: tensor}. Outputs
    are filled with NaN (integers: -1) so an unwritten element shows."""
    import torch
    dtypes = {'f32': torch.float32, 'f16': torch.float16,
              'i32': torch.int32, 'i8': torch.int8, 'f64': torch.float64,
              'i64': torch.int64}
    gen = torch.Generator(device=device)
    gen.manual_seed(0x6C6C6D)
    tensors = {}
    for buf in plan.buffers:
        dtype = dtypes[buf.element]
        recipe = workload.inits.get(buf.name)
        shape = buf.shape
        if recipe is None:
            fill = float('nan') if dtype.is_floating_point else -1
            tensors[buf.name] = torch.full(shape, fill, dtype=dtype,
                                           device=device)
            continue
        kind = recipe[0]
        if kind == 'uniform':
            t = torch.rand(shape, generator=gen, device=device,
                           dtype=torch.float32)
            t = (t * (recipe[2] - recipe[1]) + recipe[1]).to(dtype)
        elif kind == 'normal':
            t = torch.randn(shape, generator=gen, device=device,
                            dtype=torch.float32)
            t = (t * recipe[2] + recipe[1]).to(dtype)
        elif kind == 'bernoulli':
            t = (torch.rand(shape, generator=gen, device=device) <
                 recipe[1]).to(dtype)
        elif kind == 'randint':
            t = torch.randint(recipe[1], recipe[2] + 1, shape, generator=gen,
                              device=device, dtype=torch.int64).to(dtype)
        elif kind == 'randint32':
            t = torch.randint(-2**31, 2**31 - 1, shape, generator=gen,
                              device=device, dtype=torch.int32)
        elif kind == 'zeros':
            t = torch.zeros(shape, dtype=dtype, device=device)
        else:
            raise ValueError('unknown recipe %r' % (kind,))
        tensors[buf.name] = t.contiguous()
    return tensors


def scalar_values(kernel: Dict[str, Any], plan: LaunchPlan) -> Dict[str, Any]:
    """The Python values of the scalar arguments (from the manifest)."""
    import struct
    out = {}
    for arg in kernel['args']:
        if arg['kind'] != 'scalar':
            continue
        raw = plan.scalars[arg['name']]
        if arg['type'] == 'f32':
            out[arg['name']] = struct.unpack('<f', raw)[0]
        elif arg['type'] == 'f16':
            out[arg['name']] = struct.unpack('<e', raw)[0]
        elif arg['type'] == 'f64':
            out[arg['name']] = struct.unpack('<d', raw)[0]
        else:
            out[arg['name']] = int.from_bytes(raw, 'little', signed=True)
    return out
