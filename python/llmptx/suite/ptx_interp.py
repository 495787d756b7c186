"""A slow, exact interpreter of the PTX subset that the suite's kernels use.

It runs one kernel launch on the CPU: every thread of every block, with
shared memory per block, `bar.sync`, warp shuffles, atomics, mbarriers,
1-D bulk copies, `cp.async`, `ldmatrix`, `mma.sync` (m16n8k16, f16 inputs,
f32 accumulators) and `dp4a`, on a byte-addressed global memory made of
separate allocations. It exists so that the curated answers of docs/suite
can be executed against their NVPTX references on a machine without a
GPU; the GPU run by `llmptx-runner` remains the verification that counts.

What it models, and what it does not:
- IEEE arithmetic is exact: f32 and f16 operations round once (computed in
  double, which is innocuous for + - * / sqrt), fused multiply-adds and the
  directed rounding modes are rounded from the exact value. `.ftz` flushes.
  Approximate instructions (`ex2.approx`, `rsqrt.approx`, ...) return the
  correctly rounded value, which hardware need not: both sides of a
  comparison see the same function, so it checks the algorithm, not the
  last bit of the hardware's approximation.
- Accesses outside every allocation, misaligned accesses and reads of
  undeclared registers are errors, as are shuffles whose member lanes did
  not all arrive and barriers that never complete (deadlock).
- Threads of a block run one at a time until they block (barrier, shuffle,
  an mbarrier wait that fails); a data race is therefore not detected.
- Bulk copies and `cp.async` complete when issued.
- `ldmatrix` and `mma.sync` are warp-wide: all 32 lanes must arrive at
  the same instruction. Their register layouts are those of the PTX ISA.
  An mma rounds each output once from the exact sum of its 16 products and
  the accumulator; tensor cores add in blocks and truncate, so an mma
  result matches the hardware within a tolerance, not bit for bit.

Only the standard library is used.
"""

from __future__ import annotations

import math
import re
import struct
from fractions import Fraction
from typing import Dict, List, Optional, Sequence, Tuple

SHARED_WINDOW = 0x0000_1000_0000_0000
GLOBAL_BASE = 0x0000_7F00_0000_0000


class PtxError(Exception):
    """A fault, an unsupported instruction or a malformed program."""


# ---------------------------------------------------------------------------
# Floating point
# ---------------------------------------------------------------------------

CANONICAL_NAN32 = 0x7FFFFFFF
CANONICAL_NAN16 = 0x7FFF


def f32(bits: int) -> float:
    return struct.unpack('<f', struct.pack('<I', bits & 0xFFFFFFFF))[0]


def bits32(value: float) -> int:
    """Rounds a double to f32 (nearest even) and returns the bits."""
    if value != value:
        return CANONICAL_NAN32
    try:
        return struct.unpack('<I', struct.pack('<f', value))[0]
    except OverflowError:
        return 0x7F800000 if value > 0 else 0xFF800000


def f16(bits: int) -> float:
    return struct.unpack('<e', struct.pack('<H', bits & 0xFFFF))[0]


def bits16(value: float) -> int:
    if value != value:
        return CANONICAL_NAN16
    try:
        return struct.unpack('<H', struct.pack('<e', value))[0]
    except OverflowError:
        return 0x7C00 if value > 0 else 0xFC00


def f64(bits: int) -> float:
    return struct.unpack('<d', struct.pack('<Q', bits & (2**64 - 1)))[0]


def bits64f(value: float) -> int:
    if value != value:
        return 0x7FFFFFFFFFFFFFFF
    return struct.unpack('<Q', struct.pack('<d', value))[0]


def is_denormal32(bits: int) -> bool:
    return (bits & 0x7F800000) == 0 and (bits & 0x007FFFFF) != 0


def flush32(bits: int) -> int:
    """Flush-to-zero of an f32 bit pattern (sign kept)."""
    return bits & 0x80000000 if is_denormal32(bits) else bits


def next_up32(bits: int) -> int:
    if bits == 0x80000000:
        return 0x00000001
    if bits & 0x80000000:
        return bits - 1
    if bits == 0x7F800000:
        return bits
    return bits + 1


def next_down32(bits: int) -> int:
    if bits == 0x00000000:
        return 0x80000001
    if bits & 0x80000000:
        return bits + 1 if bits != 0xFF800000 else bits
    return bits - 1


def _exact(bits):
    return Fraction(f32(bits))


def round_exact32(q: Fraction, mode: str) -> int:
    """The f32 bits of the exact rational q rounded with mode rn/rz/rm/rp.
    Zero results must be handled by the caller (they carry a sign)."""
    try:
        d = float(q)
    except OverflowError:
        d = math.inf if q > 0 else -math.inf
    b = bits32(d)
    # Bring b to the largest f32 <= q (lo) and the smallest >= q (hi).
    if b in (0x7F800000, 0xFF800000):
        lo = hi = None
        if q > 0:
            lo, hi = 0x7F7FFFFF, 0x7F800000
        else:
            lo, hi = 0xFF800000, 0xFF7FFFFF
    else:
        v = _exact(b)
        if v == q:
            return b
        if v < q:
            lo = b
            while True:
                up = next_up32(lo)
                if up == 0x7F800000 or _exact(up) > q:
                    break
                if _exact(up) == q:
                    return up
                lo = up
            hi = next_up32(lo)
        else:
            hi = b
            while True:
                down = next_down32(hi)
                if down == 0xFF800000 or _exact(down) < q:
                    break
                if _exact(down) == q:
                    return down
                hi = down
            lo = next_down32(hi)
    if mode == 'rm':
        return lo
    if mode == 'rp':
        return hi
    if mode == 'rz':
        return lo if q > 0 else hi
    # Nearest, ties to even; the overflow threshold is 2^128 - 2^103.
    if hi == 0x7F800000:
        return lo if q < Fraction(2**128 - 2**103) else hi
    if lo == 0xFF800000:
        return hi if q > -Fraction(2**128 - 2**103) else lo
    dl = q - _exact(lo)
    dh = _exact(hi) - q
    if dl < dh:
        return lo
    if dh < dl:
        return hi
    return lo if (lo & 1) == 0 else hi


def _rn32_once(s, exact):
    """f32 bits of the exact value `exact()` rounded to nearest even, given
    `s`, that value rounded to double once. A second rounding to f32 can
    only differ from the direct one when s lies exactly halfway between two
    f32 values; then the exact value decides."""
    r = bits32(s)
    if r not in (0x7F800000, 0xFF800000) and s != f32(r):
        lo, hi = (r, next_up32(r)) if f32(r) < s else (next_down32(r), r)
        if Fraction(s) * 2 == _exact(lo) + _exact(hi):
            return round_exact32(exact(), 'rn')
    return r


def fma32(a_bits: int, b_bits: int, c_bits: int, mode: str = 'rn') -> int:
    a, b, c = f32(a_bits), f32(b_bits), f32(c_bits)
    if not (math.isfinite(a) and math.isfinite(b) and math.isfinite(c)):
        r = a * b + c if not (math.isinf(a) and b == 0) and not (
            math.isinf(b) and a == 0) else math.nan
        return bits32(r)
    q = Fraction(a) * Fraction(b) + Fraction(c)
    if q == 0:
        # Exact zero: +0 unless both addends are -0 (or rm rounding).
        p_neg = (a_bits ^ b_bits) & 0x80000000
        if p_neg and (c_bits & 0x80000000):
            return 0x80000000
        return 0x80000000 if mode == 'rm' else 0
    if mode == 'rn':
        # a*b is exact in double; one rounding here.
        return _rn32_once(a * b + c, lambda: q)
    return round_exact32(q, mode)


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------

_COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/', re.S)
TYPE_BITS = {'b8': 8, 'u8': 8, 's8': 8, 'b16': 16, 'u16': 16, 's16': 16,
             'f16': 16, 'bf16': 16, 'b32': 32, 'u32': 32, 's32': 32,
             'f32': 32, 'f16x2': 32, 'bf16x2': 32, 'b64': 64, 'u64': 64,
             's64': 64, 'f64': 64, 'pred': 1}


class Instr:
    __slots__ = ('guard', 'neg', 'op', 'mods', 'args', 'line', 'text', 'fn')

    def __init__(self, guard: Optional[str], neg: bool, op: str,
                 mods: List[str], args: List[str], line: int,
                 text: str) -> None:
        self.guard, self.neg, self.op, self.mods = guard, neg, op, mods
        self.args, self.line, self.text = args, line, text
        self.fn = None


class Function:
    def __init__(self, name: str) -> None:
        self.name = name
        self.params = []  # (name, size_bytes)
        self.instrs = []
        self.labels = {}
        self.regs = {}  # name -> bits
        self.shared = []  # (name, align, size)


class Module:
    def __init__(self) -> None:
        self.functions = {}
        self.shared = []


def _split_top(text, sep=','):
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in '{[(':
            depth += 1
        elif ch in '}])':
            depth -= 1
        if ch == sep and depth == 0:
            out.append(''.join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if ''.join(cur).strip():
        out.append(''.join(cur).strip())
    return out


def _statements(body, line0):
    """Yields (kind, text, line) with kind in stmt/open/close/label."""
    i, n, line = 0, len(body), line0
    cur, cur_line = [], line
    while i < n:
        ch = body[i]
        if ch == '\n':
            line += 1
        stripped = ''.join(cur).strip()
        if ch == '{' and not stripped:
            yield 'open', '', line
            i += 1
            cur, cur_line = [], line
            continue
        if ch == '}' and not stripped:
            yield 'close', '', line
            i += 1
            cur, cur_line = [], line
            continue
        if ch == ':' and re.fullmatch(r'[$\w]+', stripped or '-') and \
                body[i + 1:i + 2] != ':':
            yield 'label', stripped, cur_line
            i += 1
            cur, cur_line = [], line
            continue
        if ch == ';':
            if stripped:
                yield 'stmt', stripped, cur_line
            i += 1
            cur, cur_line = [], line
            continue
        if not stripped and ch.isspace():
            cur_line = line + (0 if ch != '\n' else 1)
        cur.append(ch)
        i += 1
    if ''.join(cur).strip():
        raise PtxError('line %d: statement without ";"' % cur_line)


def _parse_shared_decl(text, line):
    m = re.match(r'(?:\.extern\s+)?\.shared\s+(?:\.align\s+(\d+)\s+)?'
                 r'\.(\w+)\s+([$%\w]+)(?:\[(\d*)\])?', text)
    if not m:
        raise PtxError('line %d: cannot read shared declaration %r' %
                       (line, text))
    align = int(m.group(1) or TYPE_BITS.get(m.group(2), 8) // 8 or 1)
    elem = max(TYPE_BITS.get(m.group(2), 8) // 8, 1)
    count = int(m.group(4)) if m.group(4) else 1
    return m.group(3), align, elem * count


def parse(text: str) -> Module:
    """Parses a PTX module into Functions of Instrs."""
    text = _COMMENT.sub(lambda m: '\n' * m.group(0).count('\n'), text)
    module = Module()
    pos = 0
    entry_re = re.compile(r'\.(?:visible\s+|weak\s+)?\.?(?:entry)\s+'
                          r'([$\w]+)\s*\(([^)]*)\)([^{]*)\{', re.S)
    for m in entry_re.finditer(text):
        head = text[pos:m.start()]
        for decl in re.finditer(r'\.shared[^;]*;', head):
            if re.match(r'\.shared', decl.group(0)):
                line = text.count('\n', 0, pos + decl.start()) + 1
                module.shared.append(_parse_shared_decl(decl.group(0), line))
        func = Function(m.group(1))
        for param in _split_top(m.group(2)):
            pm = re.match(r'\.param\s+(.*?)([$\w]+)(?:\[(\d+)\])?$',
                          param.strip(), re.S)
            if not pm:
                raise PtxError('cannot read parameter %r' % param)
            kinds = pm.group(1).split()
            size = 8
            for kind in kinds:
                if kind.startswith('.') and kind[1:] in TYPE_BITS:
                    size = max(TYPE_BITS[kind[1:]] // 8, 1)
            if pm.group(3):
                size *= int(pm.group(3))
            func.params.append((pm.group(2), size))
        # Find the matching close brace of the body.
        depth, i = 1, m.end()
        while depth:
            if i >= len(text):
                raise PtxError('unterminated body of %s' % func.name)
            if text[i] == '{':
                depth += 1
            elif text[i] == '}':
                depth -= 1
            i += 1
        body = text[m.end():i - 1]
        line0 = text.count('\n', 0, m.end()) + 1
        _parse_body(func, body, line0)
        module.functions[func.name] = func
        pos = i
    return module


def _parse_body(func, body, line0):
    scopes = [{}]
    scope_id = [0]
    counter = [0]
    pending_labels = []

    def resolve(name):
        for scope in reversed(scopes):
            if name in scope:
                return scope[name]
        return name

    def declare(name, bits, line):
        unique = name if len(scopes) == 1 else '%s@%d' % (name, scope_id[-1])
        scopes[-1][name] = unique
        func.regs[unique] = bits

    label_scopes = {}
    for kind, stmt, line in _statements(body, line0):
        if kind == 'open':
            counter[0] += 1
            scopes.append({})
            scope_id.append(counter[0])
            continue
        if kind == 'close':
            scopes.pop()
            scope_id.pop()
            continue
        if kind == 'label':
            unique = stmt if len(scopes) == 1 else '%s@%d' % (stmt,
                                                              scope_id[-1])
            scopes[-1]['label:' + stmt] = unique
            func.labels[unique] = len(func.instrs)
            continue
        if stmt.startswith('.reg'):
            m = re.match(r'\.reg\s+(?:\.v\d\s+)?\.(\w+)\s+(.*)$', stmt, re.S)
            if not m:
                raise PtxError('line %d: cannot read %r' % (line, stmt))
            bits = TYPE_BITS.get(m.group(1))
            if bits is None:
                raise PtxError('line %d: register type .%s' %
                               (line, m.group(1)))
            for decl in _split_top(m.group(2)):
                rm = re.fullmatch(r'([$%\w]+)<(\d+)>', decl)
                if rm:
                    for k in range(int(rm.group(2))):
                        declare('%s%d' % (rm.group(1), k), bits, line)
                else:
                    declare(decl, bits, line)
            continue
        if stmt.startswith('.shared'):
            func.shared.append(_parse_shared_decl(stmt, line))
            continue
        if stmt.startswith('.'):
            continue  # .maxntid, .pragma, .loc ...
        guard, neg = None, False
        gm = re.match(r'@(!?)([$%\w]+)\s+', stmt)
        if gm:
            neg = gm.group(1) == '!'
            guard = gm.group(2)
            stmt = stmt[gm.end():]
        om = re.match(r'(\S+)\s*(.*)$', stmt, re.S)
        opcode, rest = om.group(1), om.group(2)
        parts = opcode.split('.')
        args = _split_top(rest) if rest.strip() else []
        ins = Instr(guard, neg, parts[0], parts[1:], args, line, stmt)
        # Resolve scoped register and label names now.
        if guard:
            ins.guard = resolve(guard)

        def fix(arg):
            return re.sub(r'[$%]?[A-Za-z_][$\w]*(?:\.[xyz])?',
                          lambda mm: resolve(mm.group(0)) if not
                          mm.group(0).startswith('.') else mm.group(0), arg)
        if ins.op == 'bra':
            target = args[0]
            for scope in reversed(scopes):
                if 'label:' + target in scope:
                    target = scope['label:' + target]
                    break
            else:
                # A forward label of this scope or an outer one.
                target = ('%s@%d' % (target, scope_id[-1])
                          if len(scopes) > 1 else target)
                label_scopes.setdefault(target, (args[0], list(scope_id)))
            ins.args = [target]
        else:
            ins.args = [fix(a) for a in args]
        func.instrs.append(ins)
    # Forward branches inside nested scopes whose label was in an outer scope.
    for ins in func.instrs:
        if ins.op == 'bra' and ins.args[0] not in func.labels:
            name, ids = label_scopes.get(ins.args[0], (ins.args[0], [0]))
            for sid in reversed(ids):
                cand = name if sid == 0 else '%s@%d' % (name, sid)
                if cand in func.labels:
                    ins.args[0] = cand
                    break
            else:
                raise PtxError('line %d: unknown label %s' % (ins.line, name))


# ---------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------

class GlobalMemory:
    """Separate allocations; an access must fall inside one of them."""

    def __init__(self) -> None:
        self.blocks = []  # (base, bytearray)
        self.next = GLOBAL_BASE

    def alloc(self, size: int, align: int = 256) -> int:
        base = (self.next + align - 1) // align * align
        self.blocks.append((base, bytearray(size)))
        # Leave a gap so that one allocation never runs into the next.
        self.next = base + size + 65536
        return base

    def find(self, addr: int, size: int) -> Tuple[bytearray, int]:
        for base, data in self.blocks:
            if base <= addr and addr + size <= base + len(data):
                return data, addr - base
        raise PtxError('global access of %d bytes at 0x%x is outside every '
                       'allocation' % (size, addr))

    def read(self, addr: int, size: int) -> int:
        data, off = self.find(addr, size)
        return int.from_bytes(data[off:off + size], 'little')

    def write(self, addr: int, size: int, value: int) -> None:
        data, off = self.find(addr, size)
        data[off:off + size] = (value & ((1 << (8 * size)) - 1)).to_bytes(
            size, 'little')

    def bytes_at(self, addr: int, size: int) -> bytes:
        data, off = self.find(addr, size)
        return bytes(data[off:off + size])

    def store_bytes(self, addr: int, payload: bytes) -> None:
        data, off = self.find(addr, len(payload))
        data[off:off + len(payload)] = payload


# ---------------------------------------------------------------------------
# Execution
# ---------------------------------------------------------------------------

class Thread:
    __slots__ = ('regs', 'pc', 'tid', 'lane', 'warp', 'state', 'wait',
                 'steps', 'linear')

    def __init__(self, regs: Dict[str, int], tid: Tuple[int, int, int],
                 linear: int) -> None:
        self.regs = regs
        self.pc = 0
        self.tid = tid
        self.linear = linear
        self.lane = linear % 32
        self.warp = linear // 32
        self.state = 'run'  # run, bar, shfl, spin, exit
        self.wait = None
        self.steps = 0


def _resume(threads):
    """Releases threads waiting at a barrier or warp collective: each goes
    on past the instruction it waited at."""
    for t in threads:
        t.state = 'run'
        t.wait = None
        t.pc += 1


class Block:
    def __init__(self, ctaid: Tuple[int, int, int], shared_size: int) -> None:
        self.ctaid = ctaid
        self.shared = bytearray(shared_size)
        self.mbarriers = {}

    def sread(self, addr: int, size: int) -> int:
        if addr < 0 or addr + size > len(self.shared):
            raise PtxError('shared access of %d bytes at %d is outside the '
                           '%d bytes of shared memory' %
                           (size, addr, len(self.shared)))
        return int.from_bytes(self.shared[addr:addr + size], 'little')

    def swrite(self, addr: int, size: int, value: int) -> None:
        if addr < 0 or addr + size > len(self.shared):
            raise PtxError('shared access of %d bytes at %d is outside the '
                           '%d bytes of shared memory' %
                           (size, addr, len(self.shared)))
        self.shared[addr:addr + size] = (value & ((1 << (8 * size)) - 1)
                                         ).to_bytes(size, 'little')


def _mask(bits):
    return (1 << bits) - 1


def _signed(value, bits):
    value &= _mask(bits)
    return value - (1 << bits) if value >> (bits - 1) else value


_SPECIAL = re.compile(r'%(tid|ntid|ctaid|nctaid)\.([xyz])$')


class Launch:
    """One kernel launch: grid x block threads over a GlobalMemory."""

    def __init__(self, module: Module, entry: str, memory: GlobalMemory,
                 params: List[bytes], grid: Sequence[int],
                 block: Sequence[int],
                 max_steps: int = 20_000_000) -> None:
        if entry not in module.functions:
            raise PtxError('no entry %s' % entry)
        self.func = module.functions[entry]
        self.memory = memory
        self.grid = grid
        self.block = block
        self.max_steps = max_steps
        if len(params) != len(self.func.params):
            raise PtxError('%s takes %d parameters, %d given' %
                           (entry, len(self.func.params), len(params)))
        self.param_bytes = {}
        for (name, size), value in zip(self.func.params, params):
            if len(value) != size:
                raise PtxError('parameter %s is %d bytes, %d given' %
                               (name, size, len(value)))
            self.param_bytes[name] = bytes(value)
        # Shared layout: module variables then the function's.
        self.symbols = {}
        offset = 0
        for name, align, size in module.shared + self.func.shared:
            offset = (offset + align - 1) // align * align
            self.symbols[name] = offset
            offset += size
        self.shared_size = offset
        for ins in self.func.instrs:
            ins.fn = self._compile(ins)

    # -- operands ---------------------------------------------------------

    def _reader(self, arg, bits):
        """A function thread -> int (bits wide) for a source operand."""
        arg = arg.strip()
        if arg.startswith('{'):
            raise PtxError('vector operand %s where a scalar is expected' %
                           arg)
        sm = _SPECIAL.match(arg)
        if sm:
            kind, dim = sm.group(1), 'xyz'.index(sm.group(2))
            if kind == 'tid':
                return lambda t: t.tid[dim]
            if kind == 'ntid':
                v = self.block[dim]
                return lambda t: v
            if kind == 'nctaid':
                v = self.grid[dim]
                return lambda t: v
            return lambda t: self.current.ctaid[dim]
        if arg == '%laneid':
            return lambda t: t.lane
        if arg == '%warpid':
            return lambda t: t.warp
        if arg in self.func.regs:
            def read(t, arg=arg):
                value = t.regs.get(arg)
                if value is None:
                    raise PtxError('read of %s before it was written' % arg)
                return value
            return read
        if arg in self.symbols:
            v = self.symbols[arg]
            return lambda t: v
        value = _immediate(arg, bits)
        if value is None:
            raise PtxError('cannot read operand %r' % arg)
        return lambda t: value

    def _writer(self, arg, bits):
        arg = arg.strip()
        if arg not in self.func.regs:
            if arg == '_':
                return lambda t, v: None
            raise PtxError('%r is not a declared register' % arg)
        width = self.func.regs[arg]
        if width == 1:
            return lambda t, v: t.regs.__setitem__(arg, bool(v))
        m = _mask(width)
        return lambda t, v: t.regs.__setitem__(arg, v & m)

    def _address(self, arg):
        """A function thread -> (space_hint, address) for [base+off]."""
        m = re.fullmatch(r'\[\s*([^\]+]+?)\s*(?:\+\s*(-?\s*\w+))?\s*\]',
                         arg.strip())
        if not m:
            raise PtxError('cannot read address %r' % arg)
        base, off = m.group(1), m.group(2)
        off = int(off.replace(' ', ''), 0) if off else 0
        if base in self.param_bytes:
            return ('param', base, off)
        if base in self.symbols:
            v = self.symbols[base] + off
            return ('symbol', lambda t: v)
        if base in self.func.regs:
            r = self._reader(base, 64)
            return ('reg', lambda t: r(t) + off)
        value = _immediate(base, 64)
        if value is not None:
            return ('reg', lambda t: value + off)
        raise PtxError('cannot read address %r' % arg)

    # -- memory access by space -------------------------------------------

    def _load(self, space, addr, size):
        if addr % size:
            raise PtxError('misaligned %d-byte access at 0x%x' % (size, addr))
        if space == 'shared':
            return self.current.sread(addr, size)
        if space == 'global':
            return self.memory.read(addr, size)
        if SHARED_WINDOW <= addr < SHARED_WINDOW + (1 << 32):
            return self.current.sread(addr - SHARED_WINDOW, size)
        return self.memory.read(addr, size)

    def _store(self, space, addr, size, value):
        if addr % size:
            raise PtxError('misaligned %d-byte access at 0x%x' % (size, addr))
        if space == 'shared':
            return self.current.swrite(addr, size, value)
        if space == 'global':
            return self.memory.write(addr, size, value)
        if SHARED_WINDOW <= addr < SHARED_WINDOW + (1 << 32):
            return self.current.swrite(addr - SHARED_WINDOW, size, value)
        return self.memory.write(addr, size, value)

    # -- compilation of one instruction ------------------------------------

    def _compile(self, ins):
        try:
            return self._compile_inner(ins)
        except PtxError as err:
            raise PtxError('line %d: %s: %s' % (ins.line, ins.text, err))

    def _compile_inner(self, ins):
        op, mods, args = ins.op, ins.mods, ins.args
        typ = next((m for m in reversed(mods) if m in TYPE_BITS), None)
        bits = TYPE_BITS.get(typ, 32) if typ else 32

        if op == 'bra':
            target = self.func.labels.get(args[0])
            if target is None:
                raise PtxError('unknown label %s' % args[0])
            return lambda t: target
        if op in ('ret', 'exit'):
            return lambda t: -1
        if op in ('fence', 'membar') or (op == 'cp' and 'commit_group' in
                                          mods) or (op == 'cp' and
                                                    'wait_group' in mods):
            return None
        if op == 'bar' and mods[:2] == ['warp', 'sync']:
            member = self._reader(args[0], 32)
            return ('wsync', member)
        if op == 'bar' or op == 'barrier':
            if mods and mods[0] not in ('sync', 'cta'):
                raise PtxError('only bar.sync and bar.warp.sync')
            if len(args) > 1:
                # A named barrier for `count` threads.
                bid = self._reader(args[0], 32)
                count = self._reader(args[1], 32)
                return ('nbar', bid, count)
            bid = self._reader(args[0], 32) if args else (lambda t: 0)
            return ('nbar', bid, None)
        if op == 'mov':
            return self._mov(args, bits)
        if op == 'ld':
            return self._ld(mods, args, bits)
        if op == 'st':
            return self._st(mods, args, bits)
        if op == 'cvta':
            src = self._reader(args[1], 64)
            dst = self._writer(args[0], 64)
            if 'to' in mods:
                if 'shared' in mods or 'shared::cta' in mods or \
                        'shared::cluster' in mods:
                    def fn(t):
                        a = src(t)
                        dst(t, a - SHARED_WINDOW if a >= SHARED_WINDOW and
                            a < SHARED_WINDOW + (1 << 32) else a)
                    return _seq(fn)
                return _seq(lambda t: dst(t, src(t)))
            if 'shared' in mods:
                return _seq(lambda t: dst(t, src(t) + SHARED_WINDOW))
            return _seq(lambda t: dst(t, src(t)))
        if op == 'cvt':
            return self._cvt(mods, args)
        if op == 'setp':
            return self._setp(mods, args)
        if op == 'selp':
            a, b = self._reader(args[1], bits), self._reader(args[2], bits)
            p = self._reader(args[3], 1)
            d = self._writer(args[0], bits)
            return _seq(lambda t: d(t, a(t) if p(t) else b(t)))
        if op == 'shfl':
            return self._shfl(mods, args)
        if op == 'ldmatrix':
            return self._ldmatrix(mods, args)
        if op == 'mma':
            return self._mma(mods, args)
        if op == 'dp4a':
            return self._dp4a(mods, args)
        if op in ('atom', 'red'):
            return self._atom(op, mods, args)
        if op == 'mbarrier':
            return self._mbarrier(mods, args)
        if op == 'cp' and 'bulk' not in mods:
            return self._cp_async(mods, args)
        if op == 'cp':
            return self._bulk(mods, args)
        if typ and typ.startswith('f') or typ == 'bf16':
            return self._float(op, mods, args, typ)
        return self._integer(op, mods, args, typ, bits)

    def _mov(self, args, bits):
        dst, src = args[0].strip(), args[1].strip()
        if dst.startswith('{'):
            names = [n.strip() for n in dst[1:-1].split(',')]
            src_r = self._reader(src, bits)
            width = bits // len(names)
            writers = [self._writer(n, width) for n in names]

            def unpack(t):
                v = src_r(t)
                for k, w in enumerate(writers):
                    w(t, (v >> (k * width)) & _mask(width))
            return _seq(unpack)
        if src.startswith('{'):
            names = [n.strip() for n in src[1:-1].split(',')]
            width = bits // len(names)
            readers = [self._reader(n, width) for n in names]
            d = self._writer(dst, bits)

            def pack(t):
                v = 0
                for k, r in enumerate(readers):
                    v |= (r(t) & _mask(width)) << (k * width)
                d(t, v)
            return _seq(pack)
        r = self._reader(src, bits)
        d = self._writer(dst, bits)
        return _seq(lambda t: d(t, r(t)))

    def _space(self, mods):
        for space in ('param', 'global', 'shared', 'local', 'const'):
            if space in mods or any(m.startswith(space + '::') for m in mods):
                return space
        return 'generic'

    def _vec(self, mods):
        for m in mods:
            if m in ('v2', 'v4', 'v8'):
                return int(m[1:])
        return 1

    def _ld(self, mods, args, bits):
        space = self._space(mods)
        size = max(bits // 8, 1)
        vec = self._vec(mods)
        dst = args[0].strip()
        names = ([n.strip() for n in dst[1:-1].split(',')]
                 if dst.startswith('{') else [dst])
        if len(names) != vec:
            raise PtxError('vector width and operand count differ')
        writers = [self._writer(n, bits) for n in names]
        if typ_signed(mods) and bits < 32:
            plain = writers
            writers = [lambda t, v, w=w: w(t, _signed(v, bits))
                       for w in plain]
        if space == 'param':
            m = re.fullmatch(r'\[\s*([$\w]+)\s*(?:\+\s*(\d+))?\s*\]',
                             args[1].strip())
            if not m or m.group(1) not in self.param_bytes:
                raise PtxError('unknown parameter in %s' % args[1])
            data = self.param_bytes[m.group(1)]
            off = int(m.group(2) or 0)
            values = []
            for k in range(vec):
                chunk = data[off + k * size:off + (k + 1) * size]
                if len(chunk) != size:
                    raise PtxError('read past parameter %s' % m.group(1))
                values.append(int.from_bytes(chunk, 'little'))

            def ldp(t):
                for w, v in zip(writers, values):
                    w(t, v)
            return _seq(ldp)
        kind = self._address(args[1])
        addr = kind[1]
        sp = 'shared' if kind[0] == 'symbol' else space

        def ld(t):
            a = addr(t)
            if vec > 1 and a % (size * vec):
                raise PtxError('misaligned %d-byte vector access at 0x%x' %
                               (size * vec, a))
            for k, w in enumerate(writers):
                w(t, self._load(sp, a + k * size, size))
        return _seq(ld)

    def _st(self, mods, args, bits):
        space = self._space(mods)
        size = max(bits // 8, 1)
        vec = self._vec(mods)
        src = args[1].strip()
        names = ([n.strip() for n in src[1:-1].split(',')]
                 if src.startswith('{') else [src])
        if len(names) != vec:
            raise PtxError('vector width and operand count differ')
        readers = [self._reader(n, bits) for n in names]
        kind = self._address(args[0])
        if kind[0] == 'param':
            raise PtxError('store to a parameter')
        addr = kind[1]
        sp = 'shared' if kind[0] == 'symbol' else space

        def st(t):
            a = addr(t)
            if vec > 1 and a % (size * vec):
                raise PtxError('misaligned %d-byte vector access at 0x%x' %
                               (size * vec, a))
            for k, r in enumerate(readers):
                self._store(sp, a + k * size, size, r(t))
        return _seq(st)

    def _cvt(self, mods, args):
        types = [m for m in mods if m in TYPE_BITS]
        if len(types) != 2:
            raise PtxError('cvt needs two types')
        dt, st = types
        rnd = next((m for m in mods if m in ('rn', 'rz', 'rm', 'rp', 'rni',
                                             'rzi', 'rmi', 'rpi')), None)
        sat = 'sat' in mods
        ftz = 'ftz' in mods
        src = self._reader(args[1], TYPE_BITS[st])
        dst = self._writer(args[0], TYPE_BITS[dt])

        def to_value(v):
            if st == 'f32':
                return f32(flush32(v) if ftz else v)
            if st == 'f16':
                return f16(v)
            if st == 'f64':
                return f64(v)
            if st.startswith('s'):
                return _signed(v, TYPE_BITS[st])
            return v & _mask(TYPE_BITS[st])

        def fn(t):
            x = to_value(src(t))
            if dt in ('f32', 'f16', 'f64'):
                if isinstance(x, int):
                    if abs(x) > 2**53:
                        raise PtxError('integer conversion beyond 2^53')
                    x = float(x)
                if rnd in ('rni', 'rzi', 'rmi', 'rpi') and math.isfinite(x):
                    x = {'rni': _round_half_even, 'rzi': math.trunc,
                         'rmi': math.floor, 'rpi': math.ceil}[rnd](x)
                    x = float(x)
                if sat and x == x:
                    x = min(max(x, 0.0), 1.0)
                elif sat:
                    x = 0.0
                if dt == 'f32':
                    r = bits32(x)
                    dst(t, flush32(r) if ftz else r)
                elif dt == 'f16':
                    dst(t, bits16(x))
                else:
                    dst(t, bits64f(x))
                return
            # To an integer.
            if isinstance(x, float):
                if x != x:
                    dst(t, 0)
                    return
                func = {'rni': _round_half_even, 'rzi': math.trunc,
                        'rmi': math.floor, 'rpi': math.ceil,
                        None: math.trunc}[rnd]
                x = int(func(x)) if math.isfinite(x) else (
                    2**70 if x > 0 else -2**70)
                w = TYPE_BITS[dt]
                lo, hi = ((-(1 << (w - 1)), (1 << (w - 1)) - 1)
                          if dt.startswith('s') else (0, (1 << w) - 1))
                x = min(max(x, lo), hi)
            elif sat:
                w = TYPE_BITS[dt]
                lo, hi = ((-(1 << (w - 1)), (1 << (w - 1)) - 1)
                          if dt.startswith('s') else (0, (1 << w) - 1))
                x = min(max(x, lo), hi)
            dst(t, x)
        return _seq(fn)

    def _setp(self, mods, args):
        cmp, typ = mods[0], mods[-1]
        bits = TYPE_BITS[typ]
        a, b = self._reader(args[1], bits), self._reader(args[2], bits)
        dsts = args[0].split('|')
        d = self._writer(dsts[0], 1)
        dq = self._writer(dsts[1], 1) if len(dsts) > 1 else None
        if typ in ('f32', 'f16', 'f64'):
            conv = {'f32': f32, 'f16': f16, 'f64': f64}[typ]
            ftz = 'ftz' in mods

            def fcmp(t):
                va, vb = a(t), b(t)
                if ftz and typ == 'f32':
                    va, vb = flush32(va), flush32(vb)
                x, y = conv(va), conv(vb)
                r = _float_compare(cmp, x, y)
                d(t, r)
                if dq:
                    dq(t, not r)
            return _seq(fcmp)
        signed = typ.startswith('s')

        def icmp(t):
            x, y = a(t), b(t)
            if signed:
                x, y = _signed(x, bits), _signed(y, bits)
            else:
                x, y = x & _mask(bits), y & _mask(bits)
            r = {'eq': x == y, 'ne': x != y, 'lt': x < y, 'le': x <= y,
                 'gt': x > y, 'ge': x >= y, 'lo': x < y, 'ls': x <= y,
                 'hi': x > y, 'hs': x >= y}[cmp]
            d(t, r)
            if dq:
                dq(t, not r)
        return _seq(icmp)

    def _integer(self, op, mods, args, typ, bits):
        if typ is None:
            raise PtxError('unsupported instruction')
        if typ == 'pred':
            srcs = [self._reader(a, 1) for a in args[1:]]
            d = self._writer(args[0], 1)
            fn = {'and': lambda x, y: x and y, 'or': lambda x, y: x or y,
                  'xor': lambda x, y: x != y}.get(op)
            if op == 'not':
                return _seq(lambda t: d(t, not srcs[0](t)))
            if op == 'mov':
                return _seq(lambda t: d(t, srcs[0](t)))
            if fn is None:
                raise PtxError('unsupported predicate operation')
            return _seq(lambda t: d(t, fn(srcs[0](t), srcs[1](t))))
        signed = typ.startswith('s')
        m = _mask(bits)
        wide = 'wide' in mods
        hi = 'hi' in mods
        out_bits = bits * 2 if wide else bits
        if op in ('shl', 'shr'):
            a = self._reader(args[1], bits)
            s = self._reader(args[2], 32)
            d = self._writer(args[0], bits)
            if op == 'shl':
                return _seq(lambda t: d(t, (a(t) << min(s(t) & 0xFFFFFFFF,
                                                       bits)) & m))
            if signed:
                return _seq(lambda t: d(t, (_signed(a(t), bits) >> min(
                    s(t) & 0xFFFFFFFF, bits)) & m))
            return _seq(lambda t: d(t, (a(t) & m) >> min(s(t) & 0xFFFFFFFF,
                                                         bits)))
        srcs = [self._reader(x, bits) for x in args[1:]]
        d = self._writer(args[0], out_bits)

        def val(x):
            return _signed(x, bits) if signed else x & m

        if op in ('add', 'sub', 'mul', 'mad', 'min', 'max', 'div', 'rem',
                  'and', 'or', 'xor', 'not', 'neg', 'abs', 'popc', 'clz',
                  'brev'):
            def fn(t):
                xs = [val(r(t)) for r in srcs]
                if op == 'add':
                    r = xs[0] + xs[1]
                elif op == 'sub':
                    r = xs[0] - xs[1]
                elif op in ('mul', 'mad'):
                    r = xs[0] * xs[1]
                    if hi:
                        r >>= bits
                    if op == 'mad':
                        r += (_signed(srcs[2](t), out_bits) if signed else
                              srcs[2](t)) if wide else xs[2]
                elif op == 'min':
                    r = min(xs)
                elif op == 'max':
                    r = max(xs)
                elif op == 'div':
                    if xs[1] == 0:
                        r = m
                    else:
                        q = abs(xs[0]) // abs(xs[1])
                        r = q if (xs[0] >= 0) == (xs[1] >= 0) else -q
                elif op == 'rem':
                    if xs[1] == 0:
                        r = xs[0]
                    else:
                        r = abs(xs[0]) % abs(xs[1])
                        r = r if xs[0] >= 0 else -r
                elif op == 'and':
                    r = xs[0] & xs[1]
                elif op == 'or':
                    r = xs[0] | xs[1]
                elif op == 'xor':
                    r = xs[0] ^ xs[1]
                elif op == 'not':
                    r = ~xs[0]
                elif op == 'neg':
                    r = -xs[0]
                elif op == 'abs':
                    r = abs(xs[0])
                elif op == 'popc':
                    r = bin(xs[0] & m).count('1')
                elif op == 'clz':
                    r = bits - (xs[0] & m).bit_length()
                else:
                    r = int(format(xs[0] & m, '0%db' % bits)[::-1], 2)
                d(t, r)
            if op == 'mad' and wide:
                srcs[2] = self._reader(args[3], out_bits)
            return _seq(fn)
        raise PtxError('unsupported integer instruction')

    def _float(self, op, mods, args, typ):
        ftz = 'ftz' in mods
        rnd = next((m for m in mods if m in ('rn', 'rz', 'rm', 'rp')), 'rn')
        nan_mode = 'NaN' in mods
        if typ == 'f16x2':
            lane_ops = self._float_lanes(op, mods, args)
            return lane_ops
        if typ not in ('f32', 'f16'):
            raise PtxError('unsupported float type .%s' % typ)
        width = TYPE_BITS[typ]
        conv, back, canon = ((f32, bits32, CANONICAL_NAN32) if typ == 'f32'
                             else (f16, bits16, CANONICAL_NAN16))
        srcs = [self._reader(x, width) for x in args[1:]]
        d = self._writer(args[0], width)

        def inp(t, k):
            v = srcs[k](t)
            return flush32(v) if ftz and typ == 'f32' else v

        def out(t, b):
            d(t, flush32(b) if ftz and typ == 'f32' else b)

        if op == 'fma' or op == 'mad':
            if typ != 'f32':
                raise PtxError('fma only for f32')
            return _seq(lambda t: out(t, fma32(inp(t, 0), inp(t, 1),
                                              inp(t, 2), rnd)))
        if op in ('add', 'sub', 'mul', 'div'):
            def arith(t):
                x, y = conv(inp(t, 0)), conv(inp(t, 1))
                if rnd != 'rn':
                    raise PtxError('directed rounding only for fma')
                try:
                    r = (x + y if op == 'add' else x - y if op == 'sub' else
                         x * y if op == 'mul' else x / y)
                except ZeroDivisionError:
                    if x != x or x == 0:
                        r = math.nan
                    else:
                        neg = (math.copysign(1, x) * math.copysign(1, y)) < 0
                        r = -math.inf if neg else math.inf
                if r != r:
                    out(t, canon)
                elif r == 0 and op in ('add', 'sub'):
                    # Exact zero sum: +0 unless both are -0.
                    yy = -y if op == 'sub' else y
                    neg = math.copysign(1, x) < 0 and math.copysign(1, yy) < 0
                    out(t, back(-0.0 if neg else 0.0))
                else:
                    out(t, back(r))
            if op == 'div' and not ('rn' in mods or 'full' in mods or
                                    'approx' in mods):
                raise PtxError('div.f32 needs a rounding modifier')
            return _seq(arith)
        if op in ('min', 'max'):
            def mm(t):
                x, y = conv(inp(t, 0)), conv(inp(t, 1))
                if x != x or y != y:
                    if nan_mode or (x != x and y != y):
                        out(t, canon)
                    else:
                        out(t, back(y if x != x else x))
                    return
                if x == y == 0:
                    neg_x = math.copysign(1, x) < 0
                    neg_y = math.copysign(1, y) < 0
                    pick_neg = (neg_x and neg_y) if op == 'max' else (
                        neg_x or neg_y)
                    out(t, back(-0.0 if pick_neg else 0.0))
                    return
                out(t, back(max(x, y) if op == 'max' else min(x, y)))
            return _seq(mm)
        if op == 'abs':
            m = 0x7FFFFFFF if width == 32 else 0x7FFF
            return _seq(lambda t: out(t, inp(t, 0) & m))
        if op == 'neg':
            s = 0x80000000 if width == 32 else 0x8000
            return _seq(lambda t: out(t, inp(t, 0) ^ s))
        if op == 'copysign':
            # copysign.f32 d, a, b: the magnitude of b with the sign of a.
            s = 0x80000000 if width == 32 else 0x8000
            return _seq(lambda t: d(t, (srcs[1](t) & ~s & _mask(width)) |
                                    (srcs[0](t) & s)))
        if op in ('ex2', 'rsqrt', 'sqrt', 'rcp', 'lg2', 'tanh', 'sin', 'cos'):
            if op in ('sqrt', 'rcp') and 'rn' not in mods and \
                    'approx' not in mods:
                raise PtxError('%s needs .rn or .approx' % op)

            def unary(t):
                x = conv(inp(t, 0))
                try:
                    if op == 'ex2':
                        r = 2.0 ** x if x < 1024 else math.inf
                    elif op == 'rsqrt':
                        r = (math.nan if x < 0 else math.inf if x == 0 else
                             0.0 if x == math.inf else 1 / math.sqrt(x))
                    elif op == 'sqrt':
                        r = math.nan if x < 0 else math.sqrt(x)
                    elif op == 'rcp':
                        r = 1 / x if x != 0 else math.copysign(math.inf, x)
                    elif op == 'lg2':
                        r = (math.nan if x < 0 else -math.inf if x == 0 else
                             math.log2(x))
                    elif op == 'tanh':
                        r = math.tanh(x)
                    elif op == 'sin':
                        r = math.sin(x)
                    else:
                        r = math.cos(x)
                except (OverflowError, ValueError):
                    r = math.nan
                out(t, canon if r != r else back(r))
            return _seq(unary)
        raise PtxError('unsupported float instruction')

    def _float_lanes(self, op, mods, args):
        """f16x2: the f16 operation on each half."""
        if op not in ('add', 'sub', 'mul', 'max', 'min', 'fma', 'neg',
                      'abs'):
            raise PtxError('unsupported f16x2 instruction')
        if op == 'fma':
            raise PtxError('fma.f16x2 is not modelled')
        srcs = [self._reader(x, 32) for x in args[1:]]
        d = self._writer(args[0], 32)
        nan_mode = 'NaN' in mods

        def one(x, y):
            if op in ('neg', 'abs'):
                return (x ^ 0x8000) if op == 'neg' else (x & 0x7FFF)
            a, b = f16(x), f16(y)
            if op in ('max', 'min'):
                if a != a or b != b:
                    if nan_mode or (a != a and b != b):
                        return CANONICAL_NAN16
                    return bits16(b if a != a else a)
                if a == b == 0:
                    na, nb = math.copysign(1, a) < 0, math.copysign(1, b) < 0
                    neg = (na and nb) if op == 'max' else (na or nb)
                    return 0x8000 if neg else 0
                return bits16(max(a, b) if op == 'max' else min(a, b))
            r = a + b if op == 'add' else a - b if op == 'sub' else a * b
            if r != r:
                return CANONICAL_NAN16
            if r == 0 and op in ('add', 'sub'):
                bb = -b if op == 'sub' else b
                neg = math.copysign(1, a) < 0 and math.copysign(1, bb) < 0
                return 0x8000 if neg else 0
            return bits16(r)

        def fn(t):
            xs = [r(t) for r in srcs]
            lo = one(xs[0] & 0xFFFF, xs[1] & 0xFFFF if len(xs) > 1 else 0)
            hi = one(xs[0] >> 16, xs[1] >> 16 if len(xs) > 1 else 0)
            d(t, lo | (hi << 16))
        return _seq(fn)

    def _shfl(self, mods, args):
        mode = next(m for m in mods if m in ('bfly', 'up', 'down', 'idx'))
        dsts = args[0].split('|')
        d = self._writer(dsts[0], 32)
        dp = self._writer(dsts[1], 1) if len(dsts) > 1 else None
        a = self._reader(args[1], 32)
        b = self._reader(args[2], 32)
        c = self._reader(args[3], 32)
        member = self._reader(args[4], 32) if len(args) > 4 else (
            lambda t: 0xFFFFFFFF)
        return ('shfl', mode, d, dp, a, b, c, member)

    # -- warp-wide matrix instructions (ldmatrix, mma.sync) ---------------

    def _vector_regs(self, arg, bits, write):
        arg = arg.strip()
        if not (arg.startswith('{') and arg.endswith('}')):
            raise PtxError('expected a vector operand, found %r' % arg)
        names = [n.strip() for n in arg[1:-1].split(',')]
        make = self._writer if write else self._reader
        return [make(n, bits) for n in names]

    def _ldmatrix(self, mods, args):
        """ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16."""
        if 'm8n8' not in mods or 'b16' not in mods:
            raise PtxError('only ldmatrix .m8n8 .b16 is modelled')
        count = next((int(m[1:]) for m in mods if m in ('x1', 'x2', 'x4')),
                     None)
        if count is None:
            raise PtxError('ldmatrix needs .x1, .x2 or .x4')
        dsts = self._vector_regs(args[0], 32, True)
        if len(dsts) != count:
            raise PtxError('ldmatrix .x%d writes %d registers' % (count,
                                                                  count))
        kind = self._address(args[1])
        if kind[0] == 'param':
            raise PtxError('ldmatrix from a parameter')
        return ('ldmatrix', count, 'trans' in mods, dsts, kind[1],
                lambda t: 0xFFFFFFFF)

    def _mma(self, mods, args):
        """mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32."""
        if mods[:3] != ['sync', 'aligned', 'm16n8k16'] or \
                mods[3:] != ['row', 'col', 'f32', 'f16', 'f16', 'f32']:
            raise PtxError('only mma.sync.aligned.m16n8k16.row.col.f32.f16.'
                           'f16.f32 is modelled')
        d = self._vector_regs(args[0], 32, True)
        a = self._vector_regs(args[1], 32, False)
        b = self._vector_regs(args[2], 32, False)
        c = self._vector_regs(args[3], 32, False)
        if (len(d), len(a), len(b), len(c)) != (4, 4, 2, 4):
            raise PtxError('m16n8k16 takes 4 D, 4 A, 2 B and 4 C registers')
        return ('mma', d, a, b, c, lambda t: 0xFFFFFFFF)

    def _warp_matrix(self, first, lanes):
        if first[0] == 'ldmatrix':
            self._run_ldmatrix(first, lanes)
        else:
            self._run_mma(first, lanes)

    def _run_ldmatrix(self, first, lanes):
        """Lanes 8j .. 8j + 7 give the row addresses of matrix j; lane l
        receives elements 2 (l % 4) and 2 (l % 4) + 1 of row l / 4 of each
        matrix (of column l / 4, rows 2 (l % 4) and + 1 with .trans)."""
        _, count, trans, dsts, addr, _ = first
        rows = []
        for j in range(count):
            matrix = []
            for r in range(8):
                t = lanes[8 * j + r]
                a = addr(t)
                if a >= SHARED_WINDOW:
                    a -= SHARED_WINDOW
                if a % 16:
                    raise PtxError('ldmatrix row address 0x%x (lane %d) is '
                                   'not 16-byte aligned' % (a, 8 * j + r))
                raw = self.current.sread(a, 16)
                matrix.append([(raw >> (16 * e)) & 0xFFFF for e in range(8)])
            rows.append(matrix)
        for lane, t in lanes.items():
            g, q = lane // 4, lane % 4
            for j in range(count):
                m = rows[j]
                if trans:
                    lo, hi = m[2 * q][g], m[2 * q + 1][g]
                else:
                    lo, hi = m[g][2 * q], m[g][2 * q + 1]
                dsts[j](t, lo | (hi << 16))

    def _run_mma(self, first, lanes):
        """D = A B + C for the fragments of PTX's m16n8k16 layout: lane l
        (g = l / 4, q = l % 4) holds A[g + 8 (i % 2)][2q + 8 (i / 2) + h] in
        half h of a_i, B[2q + 8i + h][g] in half h of b_i and C[g + 8 (i / 2)]
        [2q + i % 2] in c_i. Each element of D is the exact sum of its 16
        products and C, rounded once to f32 (hardware adds in blocks and
        truncates: within a tolerance, not bit-exact)."""
        _, d, a, b, c, _ = first
        am = [[0] * 16 for _ in range(16)]
        bm = [[0] * 8 for _ in range(16)]
        cm = [[0] * 8 for _ in range(16)]
        for lane, t in lanes.items():
            g, q = lane // 4, lane % 4
            for i in range(4):
                v = a[i](t)
                for h in range(2):
                    am[g + 8 * (i % 2)][2 * q + 8 * (i // 2) + h] = \
                        (v >> (16 * h)) & 0xFFFF
            for i in range(2):
                v = b[i](t)
                for h in range(2):
                    bm[2 * q + 8 * i + h][g] = (v >> (16 * h)) & 0xFFFF
            for i in range(4):
                cm[g + 8 * (i // 2)][2 * q + i % 2] = c[i](t)
        out = [[_dot16(am[r], [bm[k][col] for k in range(16)], cm[r][col])
                for col in range(8)] for r in range(16)]
        for lane, t in lanes.items():
            g, q = lane // 4, lane % 4
            for i in range(4):
                d[i](t, out[g + 8 * (i // 2)][2 * q + i % 2])

    def _dp4a(self, mods, args):
        """dp4a.atype.btype d, a, b, c: c plus the four byte products."""
        types = [m for m in mods if m in ('u32', 's32')]
        if len(types) != 2:
            raise PtxError('dp4a needs two types')
        a = self._reader(args[1], 32)
        b = self._reader(args[2], 32)
        c = self._reader(args[3], 32)
        d = self._writer(args[0], 32)
        sa, sb = types[0] == 's32', types[1] == 's32'

        def fn(t):
            x, y = a(t), b(t)
            total = c(t)
            for k in range(4):
                xb, yb = (x >> (8 * k)) & 0xFF, (y >> (8 * k)) & 0xFF
                total += ((_signed(xb, 8) if sa else xb) *
                          (_signed(yb, 8) if sb else yb))
            d(t, total)
        return _seq(fn)

    def _cp_async(self, mods, args):
        """cp.async.{ca,cg}.shared.global [dst], [src], size[, src-size]:
        completes when issued (the bytes past src-size are zero)."""
        if 'async' not in mods:
            raise PtxError('only cp.async is modelled')
        dst = self._address(args[0])
        src = self._address(args[1])
        size = int(args[2].strip(), 0)
        if size not in (4, 8, 16):
            raise PtxError('cp.async copies 4, 8 or 16 bytes')
        if 'cg' in mods and size != 16:
            raise PtxError('cp.async.cg copies 16 bytes')
        src_size = self._reader(args[3], 32) if len(args) > 3 else None

        def copy(t):
            da, sa = dst[1](t), src[1](t)
            if da >= SHARED_WINDOW:
                da -= SHARED_WINDOW
            if da % size or sa % size:
                raise PtxError('cp.async of %d bytes from 0x%x to shared %d: '
                               'misaligned' % (size, sa, da))
            n = size if src_size is None else min(src_size(t), size)
            payload = self.memory.bytes_at(sa, n) if n else b''
            data = bytes(payload) + bytes(size - n)
            self.current.swrite(da, size, int.from_bytes(data, 'little'))
        return _seq(copy)

    def _atom(self, op, mods, args):
        space = self._space(mods)
        kind = next(m for m in mods if m in ('add', 'min', 'max', 'inc',
                                             'dec', 'and', 'or', 'xor',
                                             'exch', 'cas'))
        typ = next(m for m in reversed(mods) if m in TYPE_BITS)
        bits = TYPE_BITS[typ]
        size = bits // 8
        if op == 'atom':
            d = self._writer(args[0], bits)
            rest = args[1:]
        else:
            d = None
            rest = args
        addr_kind = self._address(rest[0])
        addr = addr_kind[1]
        sp = 'shared' if addr_kind[0] == 'symbol' else space
        val = self._reader(rest[1], bits)

        def fn(t):
            a = addr(t)
            old = self._load(sp, a, size)
            v = val(t)
            if typ == 'f32':
                new = bits32(f32(old) + f32(v))
            elif kind == 'add':
                new = old + v
            elif kind in ('min', 'max'):
                x, y = ((_signed(old, bits), _signed(v, bits))
                        if typ.startswith('s') else (old, v))
                new = min(x, y) if kind == 'min' else max(x, y)
            elif kind == 'exch':
                new = v
            elif kind == 'and':
                new = old & v
            elif kind == 'or':
                new = old | v
            elif kind == 'xor':
                new = old ^ v
            else:
                raise PtxError('unsupported atomic .%s' % kind)
            self._store(sp, a, size, new)
            if d:
                d(t, old)
        return _seq(fn)

    def _mbar_key(self, t, addr_kind):
        a = addr_kind[1](t)
        if a >= SHARED_WINDOW:
            a -= SHARED_WINDOW
        return a

    def _mbarrier(self, mods, args):
        if 'init' in mods:
            ak = self._address(args[0])
            count = self._reader(args[1], 32)

            def init(t):
                key = self._mbar_key(t, ak)
                n = count(t)
                self.current.mbarriers[key] = {'phase': 0, 'pending': n,
                                               'expected': n, 'tx': 0}
            return _seq(init)
        if 'arrive' in mods:
            ak = self._address(args[1])
            d = self._writer(args[0], 64) if args[0].strip() != '_' else None
            tx = self._reader(args[2], 32) if 'expect_tx' in mods else None

            def arrive(t):
                bar = self._barrier(t, ak)
                if tx:
                    bar['tx'] += tx(t)
                if d:
                    d(t, bar['phase'])
                bar['pending'] -= 1
                self._maybe_complete(bar)
            return _seq(arrive)
        if 'try_wait' in mods or 'test_wait' in mods:
            d = self._writer(args[0], 1)
            ak = self._address(args[1])
            parity = 'parity' in mods
            ph = self._reader(args[2], 64 if not parity else 32)
            return ('mbar_wait', d, ak, parity, ph)
        raise PtxError('unsupported mbarrier operation')

    def _barrier(self, t, ak):
        key = self._mbar_key(t, ak)
        bar = self.current.mbarriers.get(key)
        if bar is None:
            raise PtxError('mbarrier at shared offset %d was not initialised'
                           % key)
        return bar

    def _maybe_complete(self, bar):
        if bar['pending'] == 0 and bar['tx'] == 0:
            bar['phase'] += 1
            bar['pending'] = bar['expected']

    def _bulk(self, mods, args):
        if 'bulk' not in mods:
            raise PtxError('only cp.async.bulk is modelled')
        if 'tensor' in mods:
            raise PtxError('tensor bulk copies are not modelled')
        dst = self._address(args[0])
        src = self._address(args[1])
        size = self._reader(args[2], 32)
        to_shared = mods[mods.index('bulk') + 1].startswith('shared')
        mbar = self._address(args[3]) if to_shared else None

        def copy(t):
            n = size(t)
            da, sa = dst[1](t), src[1](t)
            if n % 16 or da % 16 or sa % 16:
                raise PtxError('bulk copy of %d bytes from 0x%x to 0x%x: '
                               'sizes and addresses must be multiples of 16'
                               % (n, sa, da))
            if to_shared:
                if da >= SHARED_WINDOW:
                    da -= SHARED_WINDOW
                payload = self.memory.bytes_at(sa, n)
                if da < 0 or da + n > len(self.current.shared):
                    raise PtxError('bulk copy past shared memory')
                self.current.shared[da:da + n] = payload
                bar = self._barrier(t, mbar)
                bar['tx'] -= n
                self._maybe_complete(bar)
            else:
                if sa >= SHARED_WINDOW:
                    sa -= SHARED_WINDOW
                if sa < 0 or sa + n > len(self.current.shared):
                    raise PtxError('bulk copy past shared memory')
                self.memory.store_bytes(da, bytes(self.current.shared[
                    sa:sa + n]))
        return _seq(copy)

    # -- scheduling ----------------------------------------------------------

    def run(self) -> None:
        gx, gy, gz = self.grid
        for z in range(gz):
            for y in range(gy):
                for x in range(gx):
                    self._run_block((x, y, z))

    def _run_block(self, ctaid):
        bx, by, bz = self.block
        self.current = Block(ctaid, self.shared_size)
        threads = []
        for z in range(bz):
            for y in range(by):
                for x in range(bx):
                    threads.append(Thread({}, (x, y, z),
                                          x + bx * (y + by * z)))
        instrs = self.func.instrs
        spin_rounds = 0
        while True:
            real = False
            for t in threads:
                if t.state != 'run':
                    continue
                self._step_thread(t, instrs)
                if t.state != 'spin':
                    real = True
            waiting = [t for t in threads if t.state != 'exit']
            if not waiting:
                return
            # Release barriers and shuffles whose participants all arrived.
            released = self._release_barriers(threads, waiting)
            if self._release_shuffles(threads):
                released = True
            spinning = [t for t in threads if t.state == 'spin']
            for t in spinning:
                t.state = 'run'
            if real or released:
                spin_rounds = 0
                continue
            spin_rounds += 1
            if not spinning or spin_rounds > 2:
                states = sorted({'%s at line %d' % (
                    t.state, instrs[t.pc].line if t.pc < len(instrs) else -1)
                    for t in waiting})
                raise PtxError('block %s cannot make progress (deadlock): '
                               'threads wait: %s' % (ctaid,
                                                     ', '.join(states[:6])))

    def _step_thread(self, t, instrs):
        """Runs t until it blocks or exits; True when it executed anything."""
        ran = False
        regs = t.regs
        while True:
            if t.pc >= len(instrs):
                t.state = 'exit'
                return ran
            ins = instrs[t.pc]
            if ins.guard is not None:
                p = regs.get(ins.guard)
                if p is None:
                    raise PtxError('line %d: predicate %s read before it was '
                                   'written' % (ins.line, ins.guard))
                if p == ins.neg:
                    t.pc += 1
                    ran = True
                    continue
            fn = ins.fn
            t.steps += 1
            if t.steps > self.max_steps:
                raise PtxError('thread %s of block %s ran more than %d '
                               'instructions (watchdog)' %
                               (t.tid, self.current.ctaid, self.max_steps))
            if fn is None:
                t.pc += 1
                ran = True
                continue
            if isinstance(fn, tuple):
                if fn[0] == 'nbar':
                    t.state = 'bar'
                    t.wait = (fn[1](t), fn[2](t) if fn[2] else None)
                    return ran
                if fn[0] in ('shfl', 'wsync', 'ldmatrix', 'mma'):
                    t.state = 'shfl'
                    t.wait = fn
                    return ran
                if fn[0] == 'mbar_wait':
                    _, d, ak, parity, ph = fn
                    try:
                        bar = self._barrier(t, ak)
                        want = ph(t)
                    except PtxError as err:
                        raise PtxError('line %d: %s' % (ins.line, err))
                    done = ((bar['phase'] & 1) != (want & 1) if parity else
                            bar['phase'] != want)
                    d(t, done)
                    t.pc += 1
                    ran = True
                    if not done:
                        t.state = 'spin'
                        return ran
                    continue
            try:
                nxt = fn(t)
            except PtxError as err:
                raise PtxError('line %d: %s: %s (thread %s, block %s)' %
                               (ins.line, ins.text, err, t.tid,
                                self.current.ctaid))
            ran = True
            if nxt is None:
                t.pc += 1
            elif nxt < 0:
                t.state = 'exit'
                return ran
            else:
                t.pc = nxt

    def _release_barriers(self, threads, waiting):
        """bar.sync id: all live threads of the block (no count) or
        the first `count` threads to arrive (a count given)."""
        at = {}
        for t in threads:
            if t.state == 'bar':
                at.setdefault(t.wait[0], []).append(t)
        released = False
        for bid, group in at.items():
            counts = {t.wait[1] for t in group}
            if len(counts) > 1:
                raise PtxError('bar.sync %d used with different thread counts'
                               % bid)
            count = counts.pop()
            if count is None:
                ready = len(group) == len(waiting)
            else:
                if count % 32 or count <= 0:
                    raise PtxError('bar.sync %d, %d: the count must be a '
                                   'positive multiple of 32' % (bid, count))
                # The first `count` threads to arrive complete the barrier.
                group = group[:count] if len(group) >= count else []
                ready = bool(group)
            if ready:
                _resume(group)
                released = True
        return released

    def _release_shuffles(self, threads):
        released = False
        warps = {}
        for t in threads:
            warps.setdefault(t.warp, []).append(t)
        for warp in warps.values():
            at = [t for t in warp if t.state == 'shfl']
            if not at:
                continue
            others = [t for t in warp if t.state not in ('shfl', 'exit')]
            if others:
                continue
            first = at[0].wait
            member = first[-1]
            mask = member(at[0]) & 0xFFFFFFFF
            lanes = {t.lane: t for t in at}
            if any(t.wait is not first for t in at):
                raise PtxError('lanes of warp %d wait at different shuffles'
                               % at[0].warp)
            matrix = first[0] in ('ldmatrix', 'mma')
            if matrix and len(lanes) != 32:
                raise PtxError('%s: only %d lanes of warp %d arrived; '
                               '.aligned needs all 32' %
                               (first[0], len(lanes), at[0].warp))
            for lane in range(32):
                if mask >> lane & 1 and lane not in lanes:
                    raise PtxError('%s: lane %d of warp %d is in the member '
                                   'mask but exited' %
                                   ('bar.warp.sync' if first[0] == 'wsync'
                                    else 'shfl.sync', lane, at[0].warp))
            if matrix:
                self._warp_matrix(first, lanes)
            elif first[0] != 'wsync':
                self._exchange(first, lanes)
            _resume(at)
            released = True
        return released

    @staticmethod
    def _exchange(first, lanes):
        """shfl.sync of the arrived `lanes` (lane -> thread)."""
        mode, d, dp, a, b, c = first[1:7]
        values = {lane: a(t) for lane, t in lanes.items()}
        for lane, t in lanes.items():
            bval = b(t) & 31
            cv = c(t)
            cval, segmask = cv & 31, (cv >> 8) & 31
            max_lane = (lane & segmask) | (cval & ~segmask & 31)
            min_lane = lane & segmask
            if mode == 'up':
                j = lane - bval
                ok = j >= max_lane
            elif mode == 'down':
                j = lane + bval
                ok = j <= max_lane
            elif mode == 'bfly':
                j = lane ^ bval
                ok = j <= max_lane
            else:
                j = min_lane | (bval & ~segmask & 31)
                ok = j <= max_lane
            if not ok:
                j = lane
            if j not in values:
                raise PtxError('shfl.sync reads lane %d, which is not '
                               'participating' % j)
            d(t, values[j])
            if dp:
                dp(t, ok)


def typ_signed(mods: List[str]) -> bool:
    return any(m in ('s8', 's16') for m in mods)


def _dot16(a_row, b_col, c_bits):
    """f32 bits of sum(a_row[k] * b_col[k]) + c (f16 inputs), rounded once."""
    terms = [f16(x) * f16(y) for x, y in zip(a_row, b_col)]  # exact
    terms.append(f32(c_bits))
    if not all(math.isfinite(v) for v in terms):
        s = sum(terms) if not any(v != v for v in terms) else math.nan
        return bits32(s) if s == s else CANONICAL_NAN32
    s = math.fsum(terms)
    if s == 0:
        return 0x80000000 if all(math.copysign(1, v) < 0 for v in terms) \
            else 0
    # fsum rounds to double once.
    return _rn32_once(s, lambda: sum(Fraction(v) for v in terms))


def _seq(fn):
    """An instruction that falls through."""
    def run(t):
        fn(t)
        return None
    return run


def _round_half_even(x):
    return round(x)


def _float_compare(cmp, x, y):
    unordered = x != x or y != y
    base = cmp.rstrip('u') if cmp not in ('num', 'nan') else cmp
    if cmp == 'num':
        return not unordered
    if cmp == 'nan':
        return unordered
    if unordered:
        return cmp.endswith('u')
    return {'eq': x == y, 'ne': x != y, 'lt': x < y, 'le': x <= y,
            'gt': x > y, 'ge': x >= y}[base]


def _immediate(text, bits):
    text = text.strip()
    m = re.fullmatch(r'0[fF]([0-9a-fA-F]{8})', text)
    if m:
        return int(m.group(1), 16)
    m = re.fullmatch(r'0[dD]([0-9a-fA-F]{16})', text)
    if m:
        return int(m.group(1), 16)
    m = re.fullmatch(r'(-?)(0[xX][0-9a-fA-F]+|\d+)U?', text)
    if m:
        v = int(m.group(2), 0)
        if m.group(1):
            v = -v
        return v & _mask(max(bits, 1)) if bits > 1 else v
    return None
