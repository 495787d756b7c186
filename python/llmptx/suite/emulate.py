"""Runs verification bundles on the CPU with the PTX interpreter.

    llmptx-suite-emulate BUNDLE.json... [--max-threads N]
        [--special] [--shape N=97 ...] [--no-bundle-shapes]
        [--align BUFFER=BYTES ...] [--candidate NAME] [--tolerance T]

For every shape of a bundle (those whose launch has at most --max-threads
threads; the interpreter is slow) and every offset variant, it lays the
buffers out as llmptx-runner does (guard bands, the stated alignment and no
more, memref offsets, strides), runs the reference once and each candidate
twice with two different poisons in the outputs, and checks what the
runner checks: outputs equal to the reference's within the bundle's
tolerance, every element the reference wrote written, inputs unchanged,
guard bands intact. `--special` mixes NaN, infinities, signed zeros and
denormals into float inputs.

This is a development check of the algorithm of a candidate (see
ptx_interp.py for what the interpreter models); the verification that
selects a kernel is llmptx-runner on a GPU. Exit status: 0 when every
candidate passed every shape that ran, 1 otherwise, 2 on a bad bundle.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import struct
import sys
import zlib
from typing import Any, Dict, List, Optional, Tuple, Union

from llmptx import files
from llmptx.cli import ToolError, run_main
from llmptx.suite import ptx_interp
from llmptx.suite.expr import evaluate

# A bundle, or a part of one, as read from its JSON.
Bundle = Dict[str, Any]

GUARD = 4096
NONZERO_OFFSET = 3

ELEMENT_BYTES = {'f32': 4, 'f16': 2, 'bf16': 2, 'f64': 8, 'i1': 1, 'i8': 1,
                 'u8': 1, 'i16': 2, 'u16': 2, 'i32': 4, 'u32': 4, 'i64': 8,
                 'u64': 8}

SPECIAL_F32 = [0x80000000, 0x00000000, 0x7F800000, 0xFF800000, 0x7FC00000,
               0xFFC00001, 0x00000001, 0x807FFFFF, 0x00800000, 0x80800000,
               0x7F7FFFFF, 0xFF7FFFFF, 0x1F800000, 0x9F800000]
SPECIAL_F16 = [0x8000, 0x0000, 0x7C00, 0xFC00, 0x7E00, 0xFE01, 0x0001,
               0x83FF, 0x0400, 0x8400, 0x7BFF, 0xFBFF, 0x1C00, 0x9C00]
POISON = {4: (0x7FA5A5A5, 0xC49A5A5A), 2: (0x7DA5, 0xD25A), 1: (0xA5, 0x5A),
          8: (0x7FF4A5A5A5A5A5A5, 0xC0935A5A5A5A5A5A)}


def is_float(element: str) -> bool:
    return element in ('f32', 'f16', 'bf16', 'f64')


def decode(element: str, raw: int) -> Union[float, int]:
    """The value of an element's bits: float or int."""
    if element == 'f32':
        return ptx_interp.f32(raw)
    if element == 'f16':
        return ptx_interp.f16(raw)
    if element == 'f64':
        return ptx_interp.f64(raw)
    if element == 'bf16':
        return ptx_interp.f32(raw << 16)
    bits = ELEMENT_BYTES[element] * 8
    if element.startswith('i') and element != 'i1':
        return raw - (1 << bits) if raw >> (bits - 1) else raw
    return raw


def encode_float(element: str, value: float) -> int:
    if element == 'f32':
        return ptx_interp.bits32(value)
    if element == 'f16':
        return ptx_interp.bits16(value)
    if element == 'f64':
        return ptx_interp.bits64f(value)
    return ptx_interp.bits32(value) >> 16


class Layout:
    """Where one buffer's elements live in its allocation."""

    def __init__(self, spec: Bundle, bindings: Dict[str, int], offset: int,
                 bundle_alignment: Optional[int]) -> None:
        self.spec = spec
        self.name = spec['name']
        self.element = spec['element']
        self.esize = ELEMENT_BYTES[self.element]
        self.shape = [evaluate(s, bindings) for s in spec['shape']]
        if spec.get('strides'):
            self.strides = [evaluate(s, bindings) for s in spec['strides']]
        else:
            self.strides = []
            acc = 1
            for size in reversed(self.shape):
                self.strides.insert(0, acc)
                acc *= size
        self.offset = offset
        self.alignment = (spec.get('alignment') or bundle_alignment or
                          self.esize)
        self.count = 1
        for size in self.shape:
            self.count *= size
        span = 1 + sum((s - 1) * st for s, st in zip(self.shape, self.strides)
                       ) if self.count else 0
        self.aligned_offset = GUARD + self.alignment
        self.bytes = self.aligned_offset + (offset + span) * self.esize + GUARD

    def positions(self) -> List[int]:
        """Byte offsets (from the allocation start) in row-major order."""
        out = []
        index = [0] * len(self.shape)
        for _ in range(self.count):
            lin = self.offset + sum(i * s for i, s in zip(index,
                                                          self.strides))
            out.append(self.aligned_offset + lin * self.esize)
            for d in reversed(range(len(index))):
                index[d] += 1
                if index[d] < self.shape[d]:
                    break
                index[d] = 0
        return out


def generate(spec: Bundle, count: int, seed: int,
             special: bool) -> List[int]:
    """Input elements (bit patterns) from the buffer's recipe."""
    element = spec['element']
    rng = random.Random(seed ^ zlib.crc32(spec['name'].encode()))
    init = spec.get('init') or {}
    kind = init.get('kind', 'uniform')
    out = []
    if kind == 'zeros':
        return [0] * count
    if kind == 'iota':
        start, step = init.get('start', 0), init.get('step', 1)
        vals = [start + step * i for i in range(count)]
        return [encode_float(element, v) if is_float(element) else
                int(v) & ((1 << (8 * ELEMENT_BYTES[element])) - 1)
                for v in vals]
    if kind not in ('uniform', 'randint'):
        raise ValueError('recipe %s is not supported here' % kind)
    if is_float(element):
        lo, hi = init.get('lo', -1.0), init.get('hi', 1.0)
        specials = {'f32': SPECIAL_F32, 'f16': SPECIAL_F16}.get(element, [])
        use_special = (special or init.get('special')) and specials
        for i in range(count):
            if use_special and (i < len(specials) or rng.random() < 0.125):
                out.append(specials[i % len(specials)] if i < len(specials)
                           else rng.choice(specials))
            else:
                out.append(encode_float(element, rng.uniform(lo, hi)))
        return out
    bits = 8 * ELEMENT_BYTES[element]
    lo = int(init.get('lo', 0 if element == 'i1' else -100))
    hi = int(init.get('hi', 1 if element == 'i1' else 100))
    return [rng.randint(lo, hi) & ((1 << bits) - 1) for _ in range(count)]


def scalar_bytes(param: Bundle, bindings: Dict[str, int]) -> bytes:
    typ, text = param['type'], str(param['value'])
    if typ in ('f32', 'f16', 'bf16', 'f64'):
        special = {'nan': math.nan, 'inf': math.inf, '-inf': -math.inf,
                   '-0': -0.0}
        try:
            value = special[text] if text in special else float(text)
        except ValueError:
            value = float(evaluate(text, bindings))
        raw = encode_float(typ, value)
        return raw.to_bytes(ELEMENT_BYTES[typ], 'little')
    size = ELEMENT_BYTES.get(typ, 8)
    return (evaluate(text, bindings) & ((1 << (8 * size)) - 1)).to_bytes(
        size, 'little')


class ShapeRun:
    """One shape and offset variant: inputs, layouts and the runs."""

    def __init__(self, bundle: Bundle, bindings: Dict[str, int], variant: str,
                 special: bool) -> None:
        self.bundle = bundle
        self.bindings = bindings
        any_index = 0
        self.layouts = []
        for spec in bundle['buffers']:
            offset_text = spec.get('offset', '0')
            if offset_text == 'any':
                offset = NONZERO_OFFSET + 2 * any_index if variant else 0
                any_index += 1
            else:
                offset = evaluate(offset_text, bindings)
            self.layouts.append(Layout(spec, bindings, offset,
                                       bundle.get('alignment', 0)))
        seed = bundle.get('seed', 0x6C6C6D707478)
        self.inputs = []
        for layout in self.layouts:
            role = layout.spec.get('role', 'input')
            if role == 'output':
                self.inputs.append(None)
            else:
                self.inputs.append(generate(layout.spec, layout.count, seed,
                                            special))

    def launch_dims(self, launch: Bundle) -> Tuple[List[int], List[int]]:
        grid = [evaluate(g, self.bindings) for g in launch['grid']]
        block = [evaluate(b, self.bindings) for b in launch['block']]
        return grid, block

    def run(self, kernel: Bundle, run_index: int
            ) -> Tuple[Optional[List[bytes]], Optional[str]]:
        """Runs one kernel object; returns (images, error)."""
        memory = ptx_interp.GlobalMemory()
        bases = []
        for k, layout in enumerate(self.layouts):
            base = memory.alloc(layout.bytes, 256)
            bases.append(base)
            data, _ = memory.find(base, layout.bytes)
            data[:] = bytes([0xFF - k % 8]) * layout.bytes
            values = self.inputs[k]
            if values is None:
                poison = POISON[layout.esize][run_index]
                values = [poison] * layout.count
            for pos, raw in zip(layout.positions(), values):
                data[pos:pos + layout.esize] = raw.to_bytes(layout.esize,
                                                            'little')
        params = []
        names = [layout.name for layout in self.layouts]
        for p in self.bundle['params']:
            role = p['role']
            if role == 'scalar':
                params.append(scalar_bytes(p, self.bindings))
                continue
            k = names.index(p['buffer'])
            layout, base = self.layouts[k], bases[k]
            itype = p.get('type', 'i64')
            isize = 4 if itype == 'i32' else 8
            if role == 'allocated_ptr':
                value = base
            elif role == 'aligned_ptr':
                value = base + layout.aligned_offset
            elif role == 'bare_ptr':
                value = base + layout.aligned_offset + \
                    layout.offset * layout.esize
            elif role == 'offset':
                value = layout.offset
            elif role == 'size':
                value = layout.shape[p['dim']]
            else:
                value = layout.strides[p['dim']]
            size = 8 if role.endswith('ptr') else isize
            params.append((value & ((1 << (8 * size)) - 1)).to_bytes(
                size, 'little'))
        launch = kernel.get('launch') or self.bundle['launch']
        grid, block = self.launch_dims(launch)
        try:
            module = ptx_interp.parse(kernel['ptx'])
            ptx_interp.Launch(module, kernel['entry'], memory, params, grid,
                              block).run()
        except ptx_interp.PtxError as err:
            return None, str(err)
        images = [bytes(memory.find(base, layout.bytes)[0])
                  for base, layout in zip(bases, self.layouts)]
        return images, None

    def threads(self) -> int:
        grid, block = self.launch_dims(self.bundle['launch'])
        return math.prod(grid) * math.prod(block)


def elements(layout: Layout, image: bytes) -> List[int]:
    return [int.from_bytes(image[p:p + layout.esize], 'little')
            for p in layout.positions()]


def equal(layout: Layout, tol: Bundle, ref_raw: int, got_raw: int) -> bool:
    if ref_raw == got_raw:
        return True
    element = layout.element
    if not is_float(element):
        return False
    r, g = decode(element, ref_raw), decode(element, got_raw)
    if r != r or g != g:
        return r != r and g != g
    if r == 0 and g == 0:
        return not tol.get('signed_zero', False)
    if math.isinf(r) or math.isinf(g):
        return False
    ulp = tol.get('ulp', 0)
    if ulp:
        bits = ELEMENT_BYTES[element] * 8

        def ordered(raw):
            sign = 1 << (bits - 1)
            return -(raw & (sign - 1)) if raw & sign else raw
        if abs(ordered(ref_raw) - ordered(got_raw)) <= ulp:
            return True
    if tol.get('abs') and abs(r - g) <= tol['abs']:
        return True
    if tol.get('rel') and abs(r - g) <= tol['rel'] * abs(r):
        return True
    return False


def check(shape_run: ShapeRun, ref_images: List[bytes],
          got_images: List[bytes], run_index: int) -> Optional[str]:
    """The first difference, or None."""
    for k, layout in enumerate(shape_run.layouts):
        ref, got = ref_images[k], got_images[k]
        mask = bytearray(layout.bytes)
        positions = layout.positions()
        for p in positions:
            mask[p:p + layout.esize] = b'\1' * layout.esize
        for i in range(layout.bytes):
            if not mask[i] and got[i] != 0xFF - k % 8:
                return ('%s: byte %d of the allocation (outside the '
                        'elements, %+d from the aligned pointer) was '
                        'overwritten' % (layout.name, i,
                                         i - layout.aligned_offset))
        role = layout.spec.get('role', 'input')
        got_el = elements(layout, got)
        if role == 'input':
            if got_el != shape_run.inputs[k]:
                first = next(i for i, (a, b) in enumerate(
                    zip(got_el, shape_run.inputs[k])) if a != b)
                return '%s: input element %d was modified' % (layout.name,
                                                               first)
            continue
        if role == 'scratch':
            continue
        ref_el = elements(layout, ref)
        tol = layout.spec.get('tolerance') or {}
        poison = POISON[layout.esize][run_index]
        for i, (r, g) in enumerate(zip(ref_el, got_el)):
            if g == poison and r != poison:
                return '%s[%d] was not written (still the poison)' % (
                    layout.name, i)
            if not equal(layout, tol, r, g):
                return '%s[%d]: expected %r (0x%x), got %r (0x%x)' % (
                    layout.name, i, decode(layout.element, r), r,
                    decode(layout.element, g), g)
    return None


def load_bundle(path: str) -> Bundle:
    bundle = files.read_json(path)
    if not isinstance(bundle, dict) or \
            bundle.get('format') != 'llmptx-verification-bundle':
        raise ValueError('not a verification bundle')
    base = os.path.dirname(path)
    for obj in [bundle['reference']] + bundle.get('candidates', []):
        if obj['ptx'].startswith('@file:'):
            obj['ptx'] = files.read_text(os.path.join(base, obj['ptx'][6:]))
    return bundle


def parse_shape(text: str, sizes: List[str]) -> Dict[str, int]:
    bindings = {}
    for part in text.split(','):
        name, _, value = part.partition('=')
        bindings[name.strip()] = int(value)
    missing = [s for s in sizes if s not in bindings]
    if missing:
        raise ValueError('shape %r lacks %s' % (text, ', '.join(missing)))
    return bindings


def main(argv: Optional[List[str]] = None) -> int:
    return run_main('llmptx-suite-emulate', lambda: _main(argv))


def _main(argv: Optional[List[str]]) -> int:
    parser = argparse.ArgumentParser(prog='llmptx-suite-emulate',
                                     description=__doc__.splitlines()[0])
    parser.add_argument('bundles', nargs='+')
    parser.add_argument('--max-threads', type=int, default=20000,
                        help='skip shapes whose launch has more threads')
    parser.add_argument('--special', action='store_true',
                        help='mix special values into float inputs')
    parser.add_argument('--shape', action='append', default=[],
                        help='extra shape, e.g. N=5000 or M=3,N=7')
    parser.add_argument('--no-bundle-shapes', action='store_true',
                        help='run only the --shape shapes')
    parser.add_argument('--candidate', help='only this candidate')
    parser.add_argument('--tolerance', help='ulp=N,rel=R,abs=A: the tolerance '
                        'of every output and inout buffer (replaces the '
                        'bundle\'s)')
    parser.add_argument('--align', action='append', default=[],
                        help='BUFFER=BYTES: the alignment of that buffer\'s '
                        'aligned pointer (default: what the bundle states)')
    args = parser.parse_args(argv)

    failures = 0
    for path in args.bundles:
        try:
            bundle = load_bundle(path)
            shapes = [] if args.no_bundle_shapes else list(bundle['shapes'])
            shapes += [parse_shape(s, bundle['sizes']) for s in args.shape]
        except (OSError, ValueError, KeyError) as err:
            raise ToolError('%s: %s' % (path, err), 2)
        for item in args.align:
            name, _, value = item.partition('=')
            for spec in bundle['buffers']:
                if spec['name'] == name:
                    spec['alignment'] = int(value)
        if args.tolerance:
            tol = {}
            for item in args.tolerance.split(','):
                key, _, value = item.partition('=')
                tol[key.strip()] = (int(value) if key.strip() == 'ulp'
                                    else float(value))
            for spec in bundle['buffers']:
                if spec.get('role') in ('output', 'inout'):
                    spec['tolerance'] = tol
        variants = 2 if any(b.get('offset') == 'any'
                            for b in bundle['buffers']) else 1
        candidates = [c for c in bundle.get('candidates', [])
                      if not args.candidate or c['name'] == args.candidate]
        for bindings in shapes:
            shape_text = ' '.join('%s=%d' % (s, bindings[s])
                                  for s in bundle['sizes'])
            for variant in range(variants):
                run = ShapeRun(bundle, bindings, variant, args.special)
                where = '%s %s%s' % (bundle['kernel'], shape_text,
                                     ' offsets' if variant else '')
                if run.threads() > args.max_threads:
                    print('%s: skipped (%d threads)' % (where, run.threads()))
                    continue
                ref, error = run.run(bundle['reference'], 0)
                if error:
                    print('%s: reference: ERROR %s' % (where, error))
                    failures += 1
                    continue
                for cand in candidates:
                    verdict = 'pass'
                    for run_index in (0, 1):
                        images, error = run.run(cand, run_index)
                        problem = error or check(run, ref, images, run_index)
                        if problem:
                            verdict = 'FAIL (run %d): %s' % (run_index,
                                                             problem)
                            failures += 1
                            break
                    print('%s: %s: %s' % (where, cand['name'], verdict))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
