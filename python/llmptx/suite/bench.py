"""Benchmark of the kernel suite: NVPTX path, select=auto, Triton, PyTorch,
vendor library.

    llmptx-suite-bench [--objects docs/suite/objects]
        [--out docs/benchmarks.md] [--plot docs/benchmarks.png]
        [--json results.json] [--kernel NAME ...] [--sizes all|largest]
        [--runs 30] [--warmup 3] [--dry-run] [--from-json FILE]
        [--export [--build build] [--results DIR]]

On a GPU machine, for every kernel of the manifest and each of its sizes
(workloads.py), it times five columns with one harness: the NVPTX
reference PTX and object 0 of the kernel's gpu.binary as llm-lower built
it (the "select=auto" column: the manifest's selected object, by default
the choice of `select=auto verify=exec`; when that is the NVPTX reference
the column is the reference's, marked so, and is not launched twice), both
launched through cuda.bindings.driver on torch-allocated buffers and
torch's current stream with parameters packed by the memref ABI; the
Triton equivalent (triton_kernels.py); the PyTorch op a user would write;
and the vendor library where there is one ("vendor": cuBLAS or cuBLASLt
through torch's matmul ops, torch's scaled_dot_product_attention). Timing:
CUDA events, the L2 cache flushed before every run (writing a buffer twice
its size), warm-up, the columns interleaved run by run, median of --runs
with the 10th and 90th percentiles. Every PTX path, Triton and the vendor
op are first checked against the PyTorch reference on the same inputs.
The device's copy bandwidth is measured with a large device-to-device
copy; the f32 peak and the dense f16 tensor-core peak are computed from
the SM count and clock, and a kernel's flops are compared with the peak of
the units it is meant for (workloads.py). A markdown table (µs, GB/s or
TFLOP/s, fraction of copy bandwidth or peak, fraction of the vendor's
speed, speedup of object 0 over the NVPTX path, checks, missed targets),
the geometric mean of the speedups and a PNG plot go to --out and --plot,
with the command line that produced them.

--dry-run needs neither torch nor a GPU: it loads the manifest and the PTX,
builds every launch configuration and parameter packing (with stand-in
addresses), checks them against each object's .entry parameters and prints
the plan. --export first regenerates the objects with export.py
(llmptx-suite-export; --results DIR replays a runner's results there).
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import math
import os
import platform
import statistics
import sys
from typing import Any, Callable, Dict, List, Optional, TextIO, Tuple

from llmptx import files
from llmptx.cli import ToolError, run_main
from llmptx.suite import manifest as manifest_mod
from llmptx.suite import triton_kernels, workloads

COLUMNS = ('nvptx', 'selected', 'triton', 'torch', 'vendor')
TITLES = {'nvptx': 'NVPTX', 'selected': 'selected', 'triton': 'Triton',
          'torch': 'PyTorch', 'vendor': 'vendor'}
# The columns whose outputs are checked against the PyTorch reference.
CHECKED = ('nvptx', 'selected', 'triton', 'vendor')
# Targets of issue 7.
TARGET_GEOMEAN = 1.2
TARGET_COPY_FRACTION = 0.9
# Timing noise tolerated before "slower than Triton" is reported.
NOISE = 0.02


def _fmt_bytes(n):
    for unit in ('B', 'KiB', 'MiB', 'GiB'):
        if n < 1024 or unit == 'GiB':
            return '%.1f %s' % (n, unit) if unit != 'B' else '%d B' % n
        n /= 1024.0


def plans_for(kernel: Dict[str, Any], workload: workloads.Workload,
              which: str) -> List[manifest_mod.LaunchPlan]:
    sizes = workload.sizes if which == 'all' else workload.sizes[-1:]
    return [manifest_mod.LaunchPlan(kernel, z) for z in sizes]


def dry_run(manifest: Dict[str, Any], selected: List[str], which: str,
            out: TextIO) -> int:
    """Prints every launch of the benchmark; returns the number of
    problems found."""
    problems = 0
    for kernel in manifest['kernels']:
        if selected and kernel['name'] not in selected:
            continue
        workload = workloads.WORKLOADS.get(kernel['name'])
        if workload is None:
            print('%s: no workload defined (workloads.py)' % kernel['name'],
                  file=out)
            problems += 1
            continue
        print('%s: entry %s, block %s, object 0: %s' %
              (kernel['name'], kernel['entry'],
               'x'.join(map(str, kernel['block'])),
               describe_selected(kernel)), file=out)
        print('  PyTorch: %s; vendor: %s; Triton: %s' %
              (workload.torch_name or '-', workload.vendor_name or '-',
               'yes' if workload.name in triton_kernels.NAMES else '-'), file=out)
        for name in workload.inits:
            if not any(a['name'] == name and a['kind'] == 'memref'
                       for a in kernel['args']):
                print('  problem: the workload fills %r, which is no memref '
                      'argument' % name, file=out)
                problems += 1
        try:
            plans = plans_for(kernel, workload, which)
        except (manifest_mod.ManifestError, ValueError) as err:
            print('  problem: %s' % err, file=out)
            problems += 1
            continue
        divisible = kernel.get('facts', {}).get('divisible', {})
        for plan in plans:
            for size, divisor in sorted(divisible.items()):
                if plan.bindings.get(size, 0) % divisor:
                    print('  problem: %s: %s is not a multiple of %d, as the '
                          'harness states' % (plan.describe(), size,
                                              divisor), file=out)
                    problems += 1
        for plan in plans:
            # Stand-in addresses, 256-byte aligned like allocations.
            addresses = {}
            base = 0x7F0000000000
            for buf in plan.buffers:
                addresses[buf.name] = base
                base += (buf.nbytes + 0xFFFF) // 0x10000 * 0x10000 + 0x10000
            packed = plan.pack(addresses)
            status = 'ok'
            for slot in slots_to_launch(kernel):
                try:
                    plan.check_params(slot, packed)
                except manifest_mod.ManifestError as err:
                    status = 'MISMATCH'
                    print('  problem: %s' % err, file=out)
                    problems += 1
            amount = workload.amount(plan.bindings)
            unit = ('%.3f GB' % (amount / 1e9) if workload.metric == 'bytes'
                    else '%.3f GFLOP' % (amount / 1e9))
            total = sum(b.nbytes for b in plan.buffers)
            print('  %s: grid %s, %d buffers (%s), %d params (%d bytes), '
                  '%s, params %s' %
                  (plan.describe(), 'x'.join(map(str, plan.grid)),
                   len(plan.buffers), _fmt_bytes(total), len(packed),
                   sum(len(p) for p in packed), unit, status), file=out)
            values = workloads.scalar_values(kernel, plan)
            # Integer scalars are expressions of the sizes: their values too.
            scalars = ['%s=%s' % (a['name'], a['value']) + (
                '' if isinstance(values[a['name']], float) or
                str(values[a['name']]) == str(a['value'])
                else ' (%s)' % values[a['name']])
                for a in kernel['args'] if a['kind'] == 'scalar']
            if scalars and plan is plans[0]:
                print('    scalars: %s' % ', '.join(scalars), file=out)
            if plan is plans[0]:
                first = ' '.join(p.hex() for p in packed[:3])
                print('    first params: %s' % first, file=out)
    return problems


def selected_is_reference(kernel: Dict[str, Any]) -> bool:
    """Whether object 0 of the kernel's gpu.binary is the NVPTX reference
    (llm-lower kept it, or there was no candidate)."""
    return kernel['selected']['source'] != 'llm'


def describe_selected(kernel: Dict[str, Any]) -> str:
    sel = kernel['selected']
    if selected_is_reference(kernel):
        return 'the NVPTX reference (%s)' % (sel.get('reason') or
                                              'no reason recorded')
    return 'llm %s (verification %s)' % (sel['candidate'] or '-',
                                         sel['verification'] or 'none')


def slots_to_launch(kernel: Dict[str, Any]) -> Tuple[str, ...]:
    """The PTX objects the benchmark launches: the reference, and object 0
    when it is not the reference."""
    return ('nvptx',) if selected_is_reference(kernel) else ('nvptx',
                                                              'selected')


def selection_of(manifest_or_env: Dict[str, Any]) -> Optional[str]:
    """'auto' or 'llm': the select= the objects were built with."""
    lowering = manifest_or_env.get('lowering') or ''
    for policy in ('auto', 'llm'):
        if 'select=%s' % policy in lowering.split():
            return policy
    return None


# ---------------------------------------------------------------------------
# GPU side (imports torch, triton and cuda.bindings only when run)
# ---------------------------------------------------------------------------

def _driver():
    try:
        from cuda.bindings import driver
    except ImportError:
        from cuda import cuda as driver
    return driver


def _has_old_cuda_python() -> bool:
    try:
        from cuda import cuda  # noqa: F401 (cuda-python before 12.6)
    except ImportError:
        return False
    return True


def _check(result, what):
    err = result[0] if isinstance(result, tuple) else result
    if int(err) != 0:
        raise RuntimeError('%s failed: %s' % (what, err))
    return result[1:] if isinstance(result, tuple) and len(result) > 1 \
        else None


class PtxKernel:
    """A PTX object loaded with cuModuleLoadData, launched with packed
    memref-ABI parameters on torch's current stream."""

    def __init__(self, ptx: str, entry: str) -> None:
        self.cu = _driver()
        self.module = _check(self.cu.cuModuleLoadData(
            ptx.encode() + b'\0'), 'cuModuleLoadData')[0]
        self.function = _check(self.cu.cuModuleGetFunction(
            self.module, entry.encode()), 'cuModuleGetFunction')[0]

    def bind(self, plan: manifest_mod.LaunchPlan,
             packed: List[bytes]) -> Callable[[], None]:
        import torch
        storage = [ctypes.create_string_buffer(p, len(p)) for p in packed]
        pointers = (ctypes.c_void_p * len(storage))(
            *[ctypes.addressof(s) for s in storage])
        grid, block = plan.grid, plan.block
        cu, fn = self.cu, self.function

        def launch():
            stream = cu.CUstream(torch.cuda.current_stream().cuda_stream)
            _check(cu.cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0],
                                     block[1], block[2], 0, stream,
                                     ctypes.addressof(pointers), 0),
                   'cuLaunchKernel')
        launch.keep = (storage, pointers)
        return launch


def _time_columns(callables, runs, warmup, flush):
    """Median and 10th/90th percentile milliseconds per column; runs are
    interleaved and each preceded by an L2 flush."""
    import torch
    names = list(callables)
    for _ in range(warmup):
        for name in names:
            callables[name]()
    torch.cuda.synchronize()
    events = {name: [] for name in names}
    for r in range(runs):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            flush.zero_()
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            callables[name]()
            end.record()
            events[name].append((start, end))
    torch.cuda.synchronize()
    out = {}
    for name, pairs in events.items():
        times = sorted(s.elapsed_time(e) for s, e in pairs)
        out[name] = {'median': statistics.median(times),
                     'p10': times[int(0.1 * (len(times) - 1))],
                     'p90': times[int(0.9 * (len(times) - 1))]}
    return out


def _copy_bandwidth(runs, flush):
    """Bytes read + written per second by a 2 GiB device-to-device copy."""
    import torch
    n = 1 << 29
    src = torch.empty(n, dtype=torch.float32, device='cuda').uniform_()
    dst = torch.empty_like(src)
    t = _time_columns({'copy': lambda: dst.copy_(src)}, runs, 3, flush)
    ms = t['copy']['median']
    del src, dst
    return 2 * 4 * n / (ms * 1e-3), ms


def _peaks():
    """Nominal peaks in flop/s: f32 FMA (SMs x 128 lanes x 2 x clock) and
    dense f16 tensor-core math with f32 accumulation (SMs x 4096 x clock on
    sm_90: four tensor cores of 512 FMA per clock; x 2048 on sm_80; none
    known elsewhere), as the runner's DeviceInfo::peakGflops counts them."""
    import torch
    cu = _driver()
    props = torch.cuda.get_device_properties(0)
    clock_khz = _check(cu.cuDeviceGetAttribute(
        cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_CLOCK_RATE,
        torch.cuda.current_device()), 'cuDeviceGetAttribute')[0]
    sms, hz = props.multi_processor_count, clock_khz * 1e3
    per_sm = {(8, 0): 2048, (9, 0): 4096}.get((props.major, props.minor))
    tensor = sms * per_sm * hz if per_sm else None
    return sms * 128 * 2 * hz, tensor


def _compare(workload, got, want, sizes):
    import torch
    if workload.compare:
        return workload.compare(got, want, sizes)
    rtol, atol = workload.tolerance
    for name in workload.outputs:
        a, b = got[name], want[name]
        if a.shape != b.shape:
            return False
        if a.dtype.is_floating_point:
            if not torch.allclose(a.float(), b.float(), rtol=rtol, atol=atol,
                                  equal_nan=True):
                return False
        elif not torch.equal(a, b):
            return False
    return True


def _bind_column(column, kernel, plan, ptx, workload, tensors, scalars):
    """The callable that runs `column` on `tensors` (None: no such path),
    and a note for the row."""
    if column in ptx:
        packed = plan.pack({k: v.data_ptr() for k, v in tensors.items()})
        plan.check_params(column, packed)
        return ptx[column].bind(plan, packed), None
    if column == 'triton':
        try:
            return triton_kernels.launcher(kernel['name'], tensors, scalars,
                                           plan.bindings), None
        except ImportError:
            return None, None
    op = workload.torch_op if column == 'torch' else workload.vendor_op
    if op is None:
        return None, None
    fn = op(tensors, scalars)
    return fn, getattr(fn, 'note', None)


def _check_column(column, fn, workload, tensors, want, sizes):
    """Runs `fn` once and compares its outputs with the reference: the PTX
    and Triton paths write the output buffers, the vendor op returns its
    result."""
    import torch
    result = fn()
    torch.cuda.synchronize()
    if column == 'vendor':
        got = {workload.outputs[0]: result}
    else:
        got = {k: tensors[k] for k in workload.outputs}
    return _compare(workload, got, want, sizes)


def _run_plan(kernel, plan, ptx, workload, args, flush, device):
    import torch
    z = plan.bindings
    scalars = workloads.scalar_values(kernel, plan)
    base = workloads.make_tensors(workload, plan, device)
    want = workload.reference({k: v.clone() for k, v in base.items()},
                              scalars)
    checks = {}
    callables = {}
    notes = [workload.note] if workload.note else []
    for column in COLUMNS:
        if column == 'selected' and 'selected' not in ptx:
            continue
        tensors = {k: v.clone() for k, v in base.items()}
        try:
            fn, note = _bind_column(column, kernel, plan, ptx, workload,
                                    tensors, scalars)
            if note:
                notes.append(note)
            if fn is None:
                continue
            if column in CHECKED:
                checks[column] = _check_column(column, fn, workload, tensors,
                                               want, z)
        except Exception as err:  # a failing path ends its column, not the run
            print('  %s %s %s: %s: %s' % (kernel['name'], plan.describe(),
                                          column, type(err).__name__, err),
                  flush=True)
            notes.append('%s: %s' % (TITLES[column], type(err).__name__))
            if column in CHECKED:
                checks[column] = False
            continue
        callables[column] = fn
    times = _time_columns(callables, args.runs, args.warmup, flush)
    if 'selected' not in ptx:
        # Object 0 is the reference: its column is the reference's.
        for source in (times, checks):
            if 'nvptx' in source:
                source['selected'] = source['nvptx']
    row = {'kernel': kernel['name'], 'sizes': plan.describe(),
           'metric': workload.metric, 'amount': workload.amount(z),
           'memory_bound': workload.memory_bound, 'peak': workload.peak,
           'note': '; '.join(notes), 'times': times, 'checks': checks,
           'selected': kernel['selected'],
           'selected_is_reference': 'selected' not in ptx}
    print('  %s %s: %s' % (kernel['name'], plan.describe(), ', '.join(
        '%s %.1f us' % (c, times[c]['median'] * 1e3)
        for c in COLUMNS if c in times)), flush=True)
    return row


def run_gpu(manifest: Dict[str, Any], args: argparse.Namespace
            ) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = 'cuda'
    torch.cuda.init()
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, 'L2_cache_size', 0) or (60 << 20)
    flush = torch.empty(2 * l2 // 4, dtype=torch.float32, device=device)
    copy_bw, copy_ms = _copy_bandwidth(args.runs, flush)
    peak, peak_tensor = _peaks()
    env = {'device': props.name, 'sms': props.multi_processor_count,
           'l2': l2, 'copy_bw': copy_bw, 'copy_ms': copy_ms, 'peak': peak,
           'peak_f16_tensor': peak_tensor,
           'python': platform.python_version(), 'torch': torch.__version__,
           'cuda': torch.version.cuda, 'lowering': manifest.get('lowering')}
    try:
        import triton
        env['triton'] = triton.__version__
    except ImportError:
        env['triton'] = None
    print('%s: copy bandwidth %.0f GB/s, f32 peak %.1f TFLOP/s (nominal)' %
          (props.name, copy_bw / 1e9, peak / 1e12), flush=True)
    rows = []
    for kernel in manifest['kernels']:
        if args.kernel and kernel['name'] not in args.kernel:
            continue
        workload = workloads.WORKLOADS[kernel['name']]
        ptx = {slot: PtxKernel(kernel['objects'][slot]['ptx'],
                               kernel['entry'])
               for slot in slots_to_launch(kernel)}
        for plan in plans_for(kernel, workload, args.sizes):
            rows.append(_run_plan(kernel, plan, ptx, workload, args, flush,
                                  device))
            torch.cuda.empty_cache()
    return env, rows


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

def _rate(row, column, env):
    t = row['times'].get(column)
    if not t:
        return None, None
    seconds = t['median'] * 1e-3
    rate = row['amount'] / seconds
    ref = env['copy_bw'] if row['metric'] == 'bytes' else _peak_of(row, env)
    return rate, (rate / ref if ref else None)


def _peak_of(row, env):
    """The peak a flops row is measured against (None: unknown)."""
    if row.get('peak') == 'f16_tensor':
        return env.get('peak_f16_tensor')
    return env['peak']


def _targets(row, env):
    misses = []
    times = row['times']
    if row['checks'].get('selected') is False:
        misses.append('object 0 fails the check against PyTorch')
    if row['memory_bound'] and 'selected' in times:
        if 'triton' in times and times['selected']['median'] > \
                times['triton']['median'] * (1 + NOISE):
            misses.append('slower than Triton')
        _, frac = _rate(row, 'selected', env)
        if frac is not None and frac < TARGET_COPY_FRACTION:
            misses.append('below 90% of copy bandwidth')
    return misses


def _percent(fraction: Optional[float]) -> str:
    if not fraction:
        return '-'
    return '%.0f%%' % (100 * fraction) if fraction >= 0.1 else \
        '%.2g%%' % (100 * fraction)


def speedup(row: Dict[str, Any]) -> Optional[float]:
    """Object 0 over the NVPTX path (1 where object 0 is the reference)."""
    t = row['times']
    if row.get('selected_is_reference') and 'nvptx' in t:
        return 1.0
    if 'nvptx' in t and 'selected' in t:
        return t['nvptx']['median'] / t['selected']['median']
    return None


def fraction_of_vendor(row: Dict[str, Any], column: str) -> Optional[float]:
    """The speed of `column` as a fraction of the vendor library's."""
    t = row['times']
    if 'vendor' in t and column in t:
        return t['vendor']['median'] / t[column]['median']
    return None


def selection_title(env: Dict[str, Any], rows: List[Dict[str, Any]]) -> str:
    """The selected column's name: the select= policy that chose object 0
    (results of runs before the manifest recorded it: from the reasons)."""
    policy = selection_of(env)
    if policy is None and any(str(r['selected'].get('reason', '')).startswith(
            'select=llm') for r in rows):
        policy = 'llm'
    return 'select=%s' % policy if policy else 'selected'


def _table_row(row: Dict[str, Any], env: Dict[str, Any]
               ) -> Tuple[List[str], Optional[float], List[str]]:
    """One row of the table: its cells, the speedup of object 0 over the
    NVPTX path (None without both times) and the targets it misses."""
    t = row['times']
    cells = [row['kernel'], row['sizes'].replace(' ', ', ')]
    for c in COLUMNS:
        cell = '%.1f' % (t[c]['median'] * 1e3) if c in t else '-'
        if c == 'selected' and row.get('selected_is_reference') and c in t:
            cell += ' (NVPTX)'
        cells.append(cell)
    rate, frac = _rate(row, 'selected', env)
    trate, _ = _rate(row, 'triton', env)
    vrate, _ = _rate(row, 'vendor', env)
    unit = (lambda r: '%.0f GB/s' % (r / 1e9)) if row['metric'] == \
        'bytes' else (lambda r: '%.1f TFLOP/s' % (r / 1e12))
    cells.append(unit(rate) if rate else '-')
    cells.append(_percent(frac))
    cells.append(unit(trate) if trate else '-')
    cells.append(unit(vrate) if vrate else '-')
    for c in ('selected', 'triton'):
        cells.append(_percent(fraction_of_vendor(row, c)))
    s = speedup(row)
    cells.append('%.2fx' % s if s else '-')
    cells.append('/'.join({True: 'pass', False: 'FAIL'}.get(
        row['checks'].get(c), '-') for c in CHECKED))
    misses = _targets(row, env)
    notes = misses + ([row['note']] if row['note'] else [])
    if row['selected']['source'] != 'llm':
        notes.insert(0, 'object 0 = NVPTX (%s)' % row['selected']['reason'])
    cells.append('; '.join(notes))
    return cells, s, misses


def write_markdown(path: str, env: Dict[str, Any], rows: List[Dict[str, Any]],
                   command: str, plot_name: Optional[str]) -> None:
    lines = []
    A = lines.append
    A('# Benchmarks of the kernel suite')
    A('')
    A('Produced by one run of the suite\'s benchmark driver on %s '
      '(%d SMs), %s UTC:' % (env['device'], env['sms'],
                             datetime.datetime.now(datetime.timezone.utc).strftime(
                                 '%Y-%m-%d %H:%M')))
    A('')
    A('```sh')
    A(command)
    A('```')
    A('')
    tensor = env.get('peak_f16_tensor')
    A('torch %s (CUDA %s), Triton %s, Python %s. Copy bandwidth (a 2 GiB '
      'device-to-device copy, bytes read + written): **%.0f GB/s**. f32 '
      'peak (SMs x 128 x 2 x clock, nominal): %.1f TFLOP/s.%s' %
      (env['torch'], env['cuda'], env['triton'] or 'absent',
       env.get('python') or platform.python_version(), env['copy_bw'] / 1e9,
       env['peak'] / 1e12,
       (' Dense f16 tensor-core peak (SMs x 4096 x clock, nominal): '
        '%.0f TFLOP/s.' % (tensor / 1e12)) if tensor else ''))
    A('')
    sel = selection_title(env, rows)
    A('Every column is timed with the same harness: CUDA events, the L2 '
      'flushed before each run, warm-up, the columns interleaved, median of '
      'the runs (10th-90th percentile in the JSON). NVPTX is the reference '
      'object of the kernel\'s `gpu.binary`, %s its object 0, the one a '
      'program launches (docs/suite/objects, built with `%s`); both are '
      'launched through the CUDA driver with the memref ABI. Where object 0 '
      'is the NVPTX reference (llm-lower kept it, or the kernel has no '
      'answer yet) the column repeats the reference\'s time, marked '
      '"(NVPTX)". PyTorch is the op a user writes; vendor is the vendor '
      'library through torch (cuBLAS/cuBLASLt for matmuls, '
      'scaled_dot_product_attention for attention), "-" where there is '
      'none. Rates count the bytes a kernel must move (or its flops); '
      '"%% roof" is the fraction of the copy bandwidth (of the f32 peak for '
      'f32 GEMMs, of the f16 tensor-core peak for f16 GEMMs and attention); '
      '"%% vendor" is the vendor\'s time over the column\'s. "check" '
      'compares each path with the PyTorch reference on the same inputs '
      '(NVPTX/%s/Triton/vendor).' %
      (sel, env.get('lowering') or 'see the manifest', sel))
    A('')
    head = ['kernel', 'size'] + ['%s µs' % (sel if c == 'selected' else
                                           TITLES[c]) for c in COLUMNS] + [
        '%s rate' % sel, '% roof', 'Triton rate', 'vendor rate',
        '%s %% vendor' % sel, 'Triton % vendor',
        'speedup %s/NVPTX' % sel, 'check', 'notes']
    A('| ' + ' | '.join(head) + ' |')
    A('|' + '---|' * len(head))
    speedups = []
    references = 0
    misses_all = []
    for row in rows:
        cells, s, misses = _table_row(row, env)
        if s:
            speedups.append(s)
            references += 1 if row.get('selected_is_reference') else 0
        if misses:
            misses_all.append((row, misses))
        A('| ' + ' | '.join(cells) + ' |')
    A('')
    if speedups:
        geo = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
        A('Geometric mean of the speedup of %s over the NVPTX path, over the '
          '%d rows%s: **%.2fx** (target %.1fx%s).' %
          (sel, len(speedups),
           (' (%d of them with the reference as object 0, at 1.00x)' %
            references) if references else '', geo, TARGET_GEOMEAN,
           ', met' if geo >= TARGET_GEOMEAN else ', **missed**'))
        A('')
    A('## Targets')
    A('')
    A('Memory-bound kernels: object 0 at least as fast as Triton '
      '(%d%% timing noise allowed) and at %d%% of the copy bandwidth or '
      'more. ' % (int(NOISE * 100), int(TARGET_COPY_FRACTION * 100)) +
      ('Every row meets them.' if not misses_all else
       'Rows that miss one:'))
    A('')
    for row, misses in misses_all:
        A('- %s %s: %s' % (row['kernel'], row['sizes'], ', '.join(misses)))
    if misses_all:
        A('')
    if plot_name:
        A('![Fraction of the roof per path](%s)' % plot_name)
        A('')
    A('## How to reproduce')
    A('')
    A('On a machine with an NVIDIA GPU, torch, Triton, cuda-python and '
      'matplotlib, from the repository root, run the command above. It '
      'needs no build: the PTX objects and their manifest are shipped in '
      'docs/suite/objects (regenerate them with `llmptx-suite-export '
      '--build build --results test/Suite/Inputs/h200`, which replays the '
      'runner\'s recorded results for select=auto verify=exec, or with '
      '`--export --build build` on a machine whose llm-lower reaches '
      'llmptx-runner on a GPU). `--dry-run` prints the launch plan without '
      'a GPU. docs/suite/README.md describes the kernels and their curated '
      'answers.')
    A('')
    files.write_text(path, '\n'.join(lines))


def write_plot(path: str, env: Dict[str, Any],
               rows: List[Dict[str, Any]]) -> None:
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    largest = {}
    for row in rows:
        largest[row['kernel']] = row
    kernels = list(largest)
    fig, ax = plt.subplots(figsize=(max(8, 1.1 * len(kernels)), 4.5))
    width = 0.8 / len(COLUMNS)
    for k, column in enumerate(COLUMNS):
        values = []
        for name in kernels:
            _, frac = _rate(largest[name], column, env)
            values.append(100 * frac if frac else 0)
        ax.bar([i + (k - (len(COLUMNS) - 1) / 2) * width
                for i in range(len(kernels))], values, width,
               label=selection_title(env, rows) if column == 'selected'
               else TITLES[column])
    ax.axhline(100 * TARGET_COPY_FRACTION, color='grey', linestyle='--',
               linewidth=0.8)
    ax.set_xticks(range(len(kernels)))
    ax.set_xticklabels(kernels, rotation=30, ha='right')
    ax.set_ylabel('% of copy bandwidth (GEMMs: % of their peak)')
    ax.set_title('Largest size per kernel, %s' % env['device'])
    ax.legend(ncol=len(COLUMNS), fontsize='small')
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: Optional[List[str]] = None) -> int:
    return run_main('llmptx-suite-bench', lambda: _main(argv))


def _main(argv: Optional[List[str]]) -> int:
    parser = argparse.ArgumentParser(prog='llmptx-suite-bench',
                                     description=__doc__.splitlines()[0])
    parser.add_argument('--objects', default='docs/suite/objects',
                        help='directory of manifest.json and the PTX')
    parser.add_argument('--out', help='markdown file to write')
    parser.add_argument('--plot', help='PNG file to write')
    parser.add_argument('--json', help='raw results as JSON')
    parser.add_argument('--kernel', action='append', default=[],
                        help='only this kernel (repeatable)')
    parser.add_argument('--sizes', choices=['all', 'largest'], default='all')
    parser.add_argument('--runs', type=int, default=30)
    parser.add_argument('--warmup', type=int, default=3)
    parser.add_argument('--dry-run', action='store_true',
                        help='print the launch plan; no torch, no GPU')
    parser.add_argument('--from-json', metavar='FILE',
                        help='write --out/--plot from the --json of an '
                        'earlier run instead of running (no GPU)')
    parser.add_argument('--export', action='store_true',
                        help='regenerate the objects with export.py first')
    parser.add_argument('--build', help='with --export: the build directory '
                        'whose llmptx-opt to run (default: llmptx-opt on '
                        'PATH, else build/bin of the checkout)')
    parser.add_argument('--select', default='auto', choices=['auto', 'llm'])
    parser.add_argument('--verify', default='exec',
                        choices=['exec', 'compile'])
    parser.add_argument('--results', metavar='DIR',
                        help='with --export: replay the runner results of '
                        'DIR (export.py --results)')
    args = parser.parse_args(argv)

    if args.from_json:
        try:
            saved = files.read_json(args.from_json, '--from-json')
            env, rows, command = saved['env'], saved['rows'], \
                saved['command']
            if not isinstance(rows, list):
                raise TypeError('rows is not a list')
        except (TypeError, KeyError) as err:
            raise ToolError('%s: not the --json of an earlier run (%s)' %
                            (args.from_json, err), 2)
        write_outputs(args, env, rows, command)
        return 0
    if args.export:
        from llmptx.suite import export
        status = export.main((['--build', args.build] if args.build else []) +
                             (['--results', args.results] if args.results
                              else []) +
                             ['--out', args.objects, '--select', args.select,
                              '--verify', args.verify])
        if status:
            return status
    try:
        manifest = manifest_mod.load(args.objects)
    except manifest_mod.ManifestError as err:
        raise ToolError(str(err), 2)
    unknown = [k for k in args.kernel
               if k not in [m['name'] for m in manifest['kernels']]]
    if unknown:
        raise ToolError('no kernel %s in the manifest' % ', '.join(unknown),
                        2)
    if args.dry_run:
        problems = dry_run(manifest, args.kernel, args.sizes, sys.stdout)
        print('%d kernel(s), %d problem(s)' % (
            len([k for k in manifest['kernels']
                 if not args.kernel or k['name'] in args.kernel]), problems))
        return 1 if problems else 0

    for module, what in (('torch', 'torch'),
                         ('cuda.bindings.driver', 'cuda-python')):
        try:
            __import__(module)
        except ImportError:
            if module == 'cuda.bindings.driver' and _has_old_cuda_python():
                continue
            raise ToolError('the benchmark needs %s (and a GPU); --dry-run '
                            'and --from-json need neither' % what, 2)
    env, rows = run_gpu(manifest, args)
    command = 'llmptx-suite-bench ' + ' '.join(
        a for a in (argv if argv is not None else sys.argv[1:]))
    if args.json:
        import json
        files.write_text(args.json, json.dumps(
            {'env': env, 'rows': rows, 'command': command}, indent=1))
    write_outputs(args, env, rows, command)
    return 0


def write_outputs(args: argparse.Namespace, env: Dict[str, Any],
                  rows: List[Dict[str, Any]], command: str) -> None:
    if args.plot:
        write_plot(args.plot, env, rows)
    if args.out:
        plot_name = (os.path.relpath(args.plot, os.path.dirname(args.out) or
                                     '.') if args.plot else None)
        write_markdown(args.out, env, rows, command, plot_name)


if __name__ == '__main__':
    sys.exit(main())
