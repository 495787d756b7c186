"""The suite manifest and launch plans, without a GPU.

A manifest (written by export.py) describes each kernel as written: the
entry, block, grid expressions, sizes and arguments, plus the PTX objects
(NVPTX reference and selected) with their parameter lists. A LaunchPlan
evaluates it for one binding of the sizes: launch dimensions, buffer
shapes and byte counts, and the packed bytes of every kernel parameter for
given buffer addresses (MLIR's memref ABI: allocated pointer, aligned
pointer, offset, sizes, strides, each 8 bytes; scalars in their own type).
The benchmark driver launches from plans; `--dry-run` prints them.
"""

from __future__ import annotations

import math
import os
import re
import struct
from typing import Any, Dict, List

from llmptx import files
from llmptx.cli import ToolError
from llmptx.suite.expr import evaluate

MANIFEST_FORMAT = 'llmptx-suite-manifest'

ELEMENT_BYTES = {'f16': 2, 'bf16': 2, 'f32': 4, 'f64': 8, 'i1': 1, 'i8': 1,
                 'i16': 2, 'i32': 4, 'i64': 8}
SCALAR_BYTES = {'index': 8, 'i64': 8, 'f64': 8, 'f32': 4, 'i32': 4, 'f16': 2,
                'bf16': 2, 'i16': 2, 'i8': 1}


class ManifestError(Exception):
    pass


def load(directory: str) -> Dict[str, Any]:
    path = os.path.join(directory, 'manifest.json')
    try:
        manifest = files.read_json(path)
    except ToolError as err:
        raise ManifestError(str(err))
    if not isinstance(manifest, dict) or \
            manifest.get('format') != MANIFEST_FORMAT:
        raise ManifestError('%s: not a suite manifest' % path)
    for kernel in manifest.get('kernels', []):
        for slot in ('nvptx', 'selected'):
            obj = kernel['objects'][slot]
            ptx_path = os.path.join(directory, obj['file'])
            try:
                obj['ptx'] = files.read_text(ptx_path)
            except ToolError as err:
                raise ManifestError('%s: %s' % (kernel['name'], err))
            if not re.search(r'\.entry\s+%s\s*\(' % re.escape(
                    kernel['entry']), obj['ptx']):
                raise ManifestError('%s: %s has no .entry %s' %
                                    (kernel['name'], obj['file'],
                                     kernel['entry']))
    return manifest


def _half_bits(value):
    return struct.unpack('<H', struct.pack('<e', value))[0]


def encode_scalar(arg_type: str, text: str, bindings: Dict[str, int]) -> bytes:
    """The little-endian bytes of a scalar argument."""
    size = SCALAR_BYTES[arg_type]
    if arg_type in ('f32', 'f64', 'f16', 'bf16'):
        try:
            value = float(text)
        except ValueError:
            value = float(evaluate(text, bindings))
        if arg_type == 'f32':
            return struct.pack('<f', value)
        if arg_type == 'f64':
            return struct.pack('<d', value)
        if arg_type == 'f16':
            return struct.pack('<e', value)
        return struct.pack('<I', struct.unpack('<I', struct.pack(
            '<f', value))[0])[2:]
    value = evaluate(text, bindings)
    return (value & ((1 << (8 * size)) - 1)).to_bytes(size, 'little')


class Buffer:
    def __init__(self, index: int, arg: Dict[str, Any],
                 bindings: Dict[str, int]) -> None:
        self.index = index
        self.name = arg['name']
        self.element = arg['element']
        self.shape = [evaluate(s, bindings) for s in arg['shape']]
        self.strides = []
        acc = 1
        for size in reversed(self.shape):
            self.strides.insert(0, acc)
            acc *= size
        self.count = math.prod(self.shape) if self.shape else 1
        self.nbytes = self.count * ELEMENT_BYTES[self.element]


class LaunchPlan:
    """A kernel of the manifest evaluated for one binding of its sizes."""

    def __init__(self, kernel: Dict[str, Any], bindings: Dict[str, int]) -> None:
        self.kernel = kernel
        self.bindings = dict(bindings)
        missing = [s for s in kernel['sizes'] if s not in bindings]
        if missing:
            raise ManifestError('%s: no value for size %s' %
                                (kernel['name'], ', '.join(missing)))
        self.grid = [evaluate(g, bindings) for g in kernel['grid']]
        self.block = list(kernel['block'])
        self.buffers = []
        self.scalars = {}
        for index, arg in enumerate(kernel['args']):
            if arg['kind'] == 'memref':
                self.buffers.append(Buffer(index, arg, bindings))
            else:
                self.scalars[arg['name']] = encode_scalar(
                    arg['type'], arg['value'], bindings)
        self._check()

    def _check(self):
        name = self.kernel['name']
        if self.grid[0] < 1 or self.grid[0] >= 2**31 or any(
                g < 1 or g > 65535 for g in self.grid[1:]):
            raise ManifestError('%s %s: grid %s is outside the device limits'
                                % (name, self.describe(), self.grid))
        if math.prod(self.block) > 1024:
            raise ManifestError('%s: block %s has more than 1024 threads' %
                                (name, self.block))
        for buf in self.buffers:
            if any(s < 0 for s in buf.shape):
                raise ManifestError('%s %s: buffer %s has a negative size' %
                                    (name, self.describe(), buf.name))

    def describe(self) -> str:
        return ' '.join('%s=%d' % (s, self.bindings[s])
                        for s in self.kernel['sizes'])

    def buffer(self, name: str) -> Buffer:
        return next(b for b in self.buffers if b.name == name)

    def pack(self, addresses: Dict[str, int]) -> List[bytes]:
        """[bytes per parameter] for buffer base addresses {name: int};
        the memrefs are contiguous with offset 0."""
        params = []
        for arg in self.kernel['args']:
            if arg['kind'] == 'scalar':
                params.append(self.scalars[arg['name']])
                continue
            buf = self.buffer(arg['name'])
            addr = addresses[buf.name]
            values = [addr, addr, 0] + buf.shape + buf.strides
            params.extend(v.to_bytes(8, 'little') for v in values)
        return params

    def check_params(self, slot: str, packed: List[bytes]) -> None:
        """Raises when the packed parameters do not fit the object's .entry
        parameter list (count and byte sizes)."""
        expected = self.kernel['objects'][slot]['params']
        if len(expected) != len(packed):
            raise ManifestError('%s (%s): the object takes %d parameters, '
                                'the signature packs %d' %
                                (self.kernel['name'], slot, len(expected),
                                 len(packed)))
        for k, (param, data) in enumerate(zip(expected, packed)):
            if param['bytes'] != len(data):
                raise ManifestError('%s (%s): parameter %d (%s) is %d bytes, '
                                    'the signature packs %d' %
                                    (self.kernel['name'], slot, k,
                                     param['name'], param['bytes'],
                                     len(data)))
