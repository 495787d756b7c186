#!/usr/bin/env python3
"""CPU-side checks of the Hopper GEMMs in bench/hopper (no GPU, no torch).

    python3 bench/hopper/selfcheck.py

1. Shared-memory addressing: where TMA's 128B swizzle puts every element of
   the A and B boxes, against where wgmma reads each element of each k16
   step through the kernels' own descriptors (decoded from the constants
   in the .cu: start address, LBO, SBO, layout), on CUTLASS's canonical
   layouts (cute make_gmma_desc: K-major SW128 ((8,m),(T,2k)):((8T,SBO),(1,T));
   MN-major SW128 ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)), T = 8 halves, and the
   XOR of address bits 4-6 with bits 7-9). A control with B's LBO and SBO
   swapped must fail.
2. The accumulator fragment of m64nNk16 (PTX ISA: row 16 w + l / 4 + 8 (j / 2),
   column 8 i + 2 (l % 4) + j % 2 for d[4 i + j]) and the epilogues' index
   arithmetic: every element of the tile exactly once.
3. The persistent tile order of hgemm_tma: every tile exactly once.
4. The mbarrier pipelines of both kernels, run under random interleavings
   of the producer, the consumer warps and the TMA completions (parity
   waits, expect_tx byte counts, arrival counts): no stage overwritten
   while an MMA may read it, every MMA reads the K step it expects, no
   deadlock.
5. Budgets: shared memory (with the 1024 alignment slack) against the
   launch block, transaction bytes against the boxes, setmaxnreg against
   the registers the CTA holds for any entry count from 145 to 168.
"""

import os
import random
import re
import sys

from launch_block import launch_block_from_source

HERE = os.path.dirname(os.path.abspath(__file__))
FAST = os.path.join(HERE, "hgemm_tma.cu")
SIMPLE = os.path.join(HERE, "hgemm_tma_simple.cu")

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def defines(path):
    """#define NAME VALUE of a .cu, values evaluated (C casts stripped)."""
    out = {}
    for line in open(path):
        m = re.match(r"#define\s+(\w+)\s+(.*?)\s*(//.*)?$", line)
        if not m:
            continue
        expr = m.group(2)
        expr = expr.replace("(unsigned long long)", "").replace("1ull", "1")
        for k, v in out.items():
            expr = re.sub(r"\b%s\b" % k, str(v), expr)
        try:
            out[m.group(1)] = int(eval(expr, {"__builtins__": {}}))  # noqa: S307
        except Exception:  # noqa: BLE001
            pass
    return out


# ---------------------------------------------------------------------------
# 1. Swizzle and descriptors
# ---------------------------------------------------------------------------
def swz128(addr):
    """128B swizzle as a function of the shared address: 16-byte chunk
    index (bits 4-6) XOR the 128-byte row index within 1024 (bits 7-9)."""
    return addr ^ (((addr >> 7) & 7) << 4)


def tma_box_place(dst, rows, inner, elem=2):
    """{(row, col): byte address} of a TMA box with 128B swizzle, inner
    extent `inner` elements (128 bytes), `rows` rows, at 1024-aligned dst."""
    assert dst % 1024 == 0 and inner * elem == 128
    return {(r, c): swz128(dst + r * 128 + c * elem) for r in range(rows) for c in range(inner)}


def decode(desc):
    start = (desc & 0x3FFF) << 4
    lbo = ((desc >> 16) & 0x3FFF) << 4
    sbo = ((desc >> 32) & 0x3FFF) << 4
    base_off = (desc >> 49) & 7
    layout = (desc >> 62) & 3
    return start, lbo, sbo, base_off, layout


def wgmma_a_kmajor(desc, m_ext=64, k_ext=16):
    """{(m, k): address} wgmma reads for A, K-major, 128B swizzle."""
    start, lbo, sbo, base_off, layout = decode(desc)
    assert layout == 1 and base_off == 0
    return {(m, k): swz128(start + (m % 8) * 128 + (m // 8) * sbo + k * 2)
            for m in range(m_ext) for k in range(k_ext)}


def wgmma_b_mnmajor(desc, n_ext, k_ext=16):
    """{(k, n): address} wgmma reads for B, MN-major (trans-b), 128B swizzle."""
    start, lbo, sbo, base_off, layout = decode(desc)
    assert layout == 1 and base_off == 0
    return {(k, n): swz128(start + (n % 64) * 2 + (n // 64) * lbo + (k % 8) * 128 + (k // 8) * sbo)
            for k in range(k_ext) for n in range(n_ext)}


def make_desc(addr, hi):
    return hi | ((addr & 0x3FFFF) >> 4)


def check_fast_descriptors(d, swap_b=False):
    """Every consumer, every k16 step of a stage of hgemm_tma."""
    ok = True
    hi_b = d["HG_DESC_B_HI"]
    if swap_b:
        lbo = (hi_b >> 16) & 0x3FFF
        sbo = (hi_b >> 32) & 0x3FFF
        hi_b = (hi_b & ~((0x3FFF << 16) | (0x3FFF << 32))) | (sbo << 16) | (lbo << 32)
    base = 3 * 1024  # any 1024-aligned dynamic shared base
    for s in range(d["HG_STAGES"]):
        sa = base + s * d["HG_STAGE_BYTES"]
        # what TMA wrote: A box {64, 128} at sa, B boxes {64, 64} at sa + A + 8192 j
        a_at = tma_box_place(sa, 128, 64)
        b_at = {}
        for j in range(4):
            for (k, n), addr in tma_box_place(sa + d["HG_A_BYTES"] + j * d["HG_B_BOX_BYTES"],
                                              64, 64).items():
                b_at[(k, 64 * j + n)] = addr
        assert len(set(a_at.values())) == len(a_at) and len(set(b_at.values())) == len(b_at)
        for cw in range(2):
            da = make_desc(sa + cw * 8192, d["HG_DESC_A_HI"])
            db = make_desc(sa + d["HG_A_BYTES"], hi_b)
            for kk in range(4):
                ra = wgmma_a_kmajor(da + 2 * kk)
                for (m, k), addr in ra.items():
                    if addr != a_at[(64 * cw + m, 16 * kk + k)]:
                        ok = False
                        break
                rb = wgmma_b_mnmajor(db + 128 * kk, 256)
                for (k, n), addr in rb.items():
                    if addr != b_at[(16 * kk + k, n)]:
                        ok = False
                        break
    return ok


def check_simple_descriptors(d):
    ok = True
    base = 5 * 1024
    for s in range(d["HS_STAGES"]):
        sa = base + s * d["HS_STAGE_BYTES"]
        a_at = tma_box_place(sa, 128, 64)
        b_at = {}
        for j in range(2):
            for (k, n), addr in tma_box_place(sa + d["HS_A_BYTES"] + j * d["HS_B_BOX_BYTES"],
                                              64, 64).items():
                b_at[(k, 64 * j + n)] = addr
        for h in range(2):
            da = make_desc(sa + 8192 * h, d["HS_DESC_A_HI"])
            for bx in range(2):
                db = make_desc(sa + d["HS_A_BYTES"] + d["HS_B_BOX_BYTES"] * bx, d["HS_DESC_B_HI"])
                for kk in range(4):
                    for (m, k), addr in wgmma_a_kmajor(da + 2 * kk).items():
                        ok &= addr == a_at[(64 * h + m, 16 * kk + k)]
                    for (k, n), addr in wgmma_b_mnmajor(db + 128 * kk, 64).items():
                        ok &= addr == b_at[(16 * kk + k, 64 * bx + n)]
    return ok


# ---------------------------------------------------------------------------
# 2. Fragments and epilogues
# ---------------------------------------------------------------------------
def fragment(t, r):
    """m64nNk16 f32 accumulator: thread t (0..127) register r -> (row, col)."""
    w, l = t // 32, t % 32
    i, j = r // 4, r % 4
    return 16 * w + l // 4 + 8 * (j // 2), 8 * i + 2 * (l % 4) + (j % 2)


def check_fast_epilogue():
    """hgemm_tma: r0 = 64 cw + 16 warp + lane / 4, col0 = (lane % 4) * 2;
    d[4i], d[4i+1] -> (r0, col0 + 8i (+1)); d[4i+2], d[4i+3] -> r0 + 8."""
    seen = {}
    for cw in range(2):
        for t in range(128):
            warp, lane = t // 32, t % 32
            r0 = 64 * cw + warp * 16 + (lane >> 2)
            col0 = (lane & 3) * 2
            for i in range(32):
                for reg, (row, col) in ((4 * i, (r0, col0 + 8 * i)), (4 * i + 1, (r0, col0 + 8 * i + 1)),
                                        (4 * i + 2, (r0 + 8, col0 + 8 * i)),
                                        (4 * i + 3, (r0 + 8, col0 + 8 * i + 1))):
                    fr, fc = fragment(t, reg)
                    if (64 * cw + fr, fc) != (row, col):
                        return False
                    seen[(row, col)] = seen.get((row, col), 0) + 1
    return len(seen) == 128 * 256 and set(seen.values()) == {1}


def check_simple_epilogue():
    seen = {}
    for t in range(128):
        warp, lane = t // 32, t % 32
        r0 = warp * 16 + (lane >> 2)
        col0 = (lane & 3) * 2
        for h in range(2):
            for bx in range(2):
                for i in range(8):
                    for reg, (row, col) in ((4 * i, (r0, col0 + 8 * i)),
                                            (4 * i + 1, (r0, col0 + 8 * i + 1)),
                                            (4 * i + 2, (r0 + 8, col0 + 8 * i)),
                                            (4 * i + 3, (r0 + 8, col0 + 8 * i + 1))):
                        fr, fc = fragment(t, reg)  # the m64n64 fragment
                        R, C = 64 * h + row, 64 * bx + col
                        if (64 * h + fr, 64 * bx + fc) != (R, C):
                            return False
                        seen[(R, C)] = seen.get((R, C), 0) + 1
    return len(seen) == 128 * 128 and set(seen.values()) == {1}


# ---------------------------------------------------------------------------
# 3. Tile order
# ---------------------------------------------------------------------------
def tile_coords(t, tilesM, tilesN, groupM):
    per_group = groupM * tilesN
    group = t // per_group
    first_m = group * groupM
    rows = min(tilesM - first_m, groupM)
    inn = t - group * per_group
    return first_m + inn % rows, inn // rows


def check_tiles(groupM):
    for tilesM in list(range(1, 40)) + [64]:
        for tilesN in list(range(1, 20)) + [32]:
            n = tilesM * tilesN
            seen = set()
            grid = min(132, n)
            for b in range(grid):
                for t in range(b, n, grid):
                    tm, tn = tile_coords(t, tilesM, tilesN, groupM)
                    if not (0 <= tm < tilesM and 0 <= tn < tilesN) or (tm, tn) in seen:
                        return False
                    seen.add((tm, tn))
            if len(seen) != n:
                return False
    return True


# ---------------------------------------------------------------------------
# 4. Pipelines under random interleavings
# ---------------------------------------------------------------------------
class MBarrier:
    def __init__(self, count):
        self.count = count
        self.pending = count
        self.tx = 0
        self.completed = 0  # phases completed

    def _maybe_complete(self):
        if self.pending == 0 and self.tx == 0:
            self.completed += 1
            self.pending = self.count

    def arrive(self):
        assert self.pending > 0
        self.pending -= 1
        self._maybe_complete()

    def arrive_expect_tx(self, nbytes):
        self.tx += nbytes
        self.arrive()

    def complete_tx(self, nbytes):
        self.tx -= nbytes
        assert self.tx >= 0, "more bytes than expected"
        self._maybe_complete()

    def try_wait_parity(self, parity):
        # the phase of parity `parity` has completed: current phase parity differs
        return (self.completed & 1) != parity


class Sim:
    """Actors are generators yielding a predicate; the scheduler runs a
    random actor whose predicate holds, or completes a random TMA."""

    def __init__(self, rng):
        self.rng = rng
        self.actors = []
        self.tma = []  # pending (stage, box, content, bar, bytes)
        self.errors = []

    def run(self, limit=10 ** 6):
        waiting = [(a, None) for a in self.actors]
        steps = 0
        while waiting or self.tma:
            steps += 1
            if steps > limit:
                self.errors.append("step limit")
                return
            ready = [i for i, (a, p) in enumerate(waiting) if p is None or p()]
            choices = len(ready) + len(self.tma)
            if choices == 0:
                self.errors.append("deadlock")
                return
            c = self.rng.randrange(choices)
            if c >= len(ready):
                k = c - len(ready)
                stage, box, content, bar, nbytes = self.tma.pop(k)
                self.smem[stage][box] = content
                bar.complete_tx(nbytes)
                continue
            i = ready[c]
            a, _ = waiting[i]
            try:
                p = next(a)
                waiting[i] = (a, p)
            except StopIteration:
                waiting.pop(i)


def simulate_fast(rng, stages=4, tilesM=2, tilesN=3, kTiles=5, grid=2, nboxes_of=None, bug=None):
    """bug (controls that must fail): 'early_release' (a stage released
    right after its MMAs are issued), 'producer_parity' (the producer waits
    empty with the consumers' parity), 'short_tx' (expect_tx one box short)."""
    sim = Sim(rng)
    full = [MBarrier(1) for _ in range(stages)]
    empty = [MBarrier(8) for _ in range(stages)]
    sim.smem = [dict() for _ in range(stages)]
    inflight = [[] for _ in range(stages)]  # (warp id) reading each stage
    numTiles = tilesM * tilesN
    block = 0

    def tiles():
        return range(block, numTiles, grid)

    def boxes_for(t):
        return 4 if nboxes_of is None else nboxes_of(t)

    def producer():
        s, phase = 0, 0
        for t in tiles():
            nb = boxes_for(t)
            for kt in range(kTiles):
                par = phase if bug == "producer_parity" else phase ^ 1
                yield (lambda s=s, par=par: empty[s].try_wait_parity(par))
                full[s].arrive_expect_tx(16384 + 8192 * (nb - (bug == "short_tx")))
                for box in range(1 + nb):
                    if inflight[s]:
                        sim.errors.append(f"stage {s} overwritten while warps {inflight[s]} read it")
                    sim.smem[s][box] = ("writing", t, kt)
                    sim.tma.append((s, box, (t, kt), full[s], 16384 if box == 0 else 8192))
                    if bug == "short_tx" and box == 1:
                        sim.tma[-1] = sim.tma[-1][:4] + (0,)
                yield None
                s += 1
                if s == stages:
                    s, phase = 0, phase ^ 1

    def consumer(w):
        s, phase = 0, 0
        for t in tiles():
            nb = boxes_for(t)
            prev = -1
            groups = []  # stages read by committed, unfinished wgmma groups
            for kt in range(kTiles):
                yield (lambda s=s, ph=phase: full[s].try_wait_parity(ph))
                for box in range(1 + nb):
                    if sim.smem[s].get(box) != (t, kt):
                        sim.errors.append(f"warp {w} read stage {s} box {box} = "
                                          f"{sim.smem[s].get(box)}, wanted {(t, kt)}")
                inflight[s].append(w)
                groups.append(s)
                if bug == "early_release":
                    empty[s].arrive()
                yield None
                if prev >= 0 and bug == "early_release":
                    for g in groups[:-1]:
                        inflight[g].remove(w)
                    groups = groups[-1:]
                elif prev >= 0:
                    # wait_group 1: all but the newest group are done
                    for g in groups[:-1]:
                        inflight[g].remove(w)
                    groups = groups[-1:]
                    empty[prev].arrive()
                prev = s
                s += 1
                if s == stages:
                    s, phase = 0, phase ^ 1
                yield None
            for g in groups:
                inflight[g].remove(w)
            groups = []
            if prev >= 0 and bug != "early_release":
                empty[prev].arrive()
            yield None  # epilogue

    sim.actors = [producer()] + [consumer(w) for w in range(8)]
    sim.run()
    return sim.errors


def simulate_simple(rng, stages=3, kTiles=7, nb=2):
    sim = Sim(rng)
    full = [MBarrier(1) for _ in range(stages)]
    sim.smem = [dict() for _ in range(stages)]
    inflight = [[] for _ in range(stages)]
    bar = {"arrived": 0, "gen": 0}

    def load(s, kt):
        full[s].arrive_expect_tx(16384 + 8192 * nb)
        for box in range(1 + nb):
            if inflight[s]:
                sim.errors.append(f"stage {s} overwritten while warps {inflight[s]} read it")
            sim.smem[s][box] = ("writing", kt)
            sim.tma.append((s, box, ("k", kt), full[s], 16384 if box == 0 else 8192))

    def syncthreads():
        g = bar["gen"]
        bar["arrived"] += 1
        if bar["arrived"] == 4:
            bar["arrived"] = 0
            bar["gen"] += 1
        yield (lambda: bar["gen"] != g)

    def warp(w):
        if w == 0:
            pass  # barriers initialized before the first __syncthreads
        yield from syncthreads()
        if w == 0:
            for kt in range(min(stages, kTiles)):
                load(kt, kt)
        s, phase = 0, 0
        for kt in range(kTiles):
            yield (lambda s=s, ph=phase: full[s].try_wait_parity(ph))
            for box in range(1 + nb):
                if sim.smem[s].get(box) != ("k", kt):
                    sim.errors.append(f"warp {w} read stage {s} box {box} = {sim.smem[s].get(box)}")
            inflight[s].append(w)
            yield None
            inflight[s].remove(w)  # wait_group 0
            yield from syncthreads()
            if w == 0 and kt + stages < kTiles:
                load(s, kt + stages)
            s += 1
            if s == stages:
                s, phase = 0, phase ^ 1

    sim.actors = [warp(w) for w in range(4)]
    sim.run()
    return sim.errors


def main():
    d = defines(FAST)
    ds = defines(SIMPLE)
    src = open(FAST).read()
    srcs = open(SIMPLE).read()

    # the k16 increments and consumer offsets the model assumes are the code's
    check("da + 2 * kk" in src and "db + 128 * kk" in src and "sa + cw * 8192" in src,
          "hgemm_tma: descriptor increments as modelled")
    check("da0 + 2 * kk" in srcs and "db0 + 128 * kk" in srcs and "sa + 8192" in srcs,
          "hgemm_tma_simple: descriptor increments as modelled")

    # descriptor constants, decoded
    for name, hi, want in (("A", d["HG_DESC_A_HI"], (16, 1024, 1)), ("B", d["HG_DESC_B_HI"], (8192, 1024, 1))):
        _, lbo, sbo, base_off, layout = decode(hi)
        check((lbo, sbo, layout) == want and base_off == 0,
              f"hgemm_tma desc {name}: LBO {lbo}, SBO {sbo}, layout {layout}")
        print(f"hgemm_tma descriptor {name}: 0x{hi:016x} (LBO {lbo}, SBO {sbo}, layout {layout} = 128B)")
    check(ds["HS_DESC_A_HI"] == d["HG_DESC_A_HI"] and ds["HS_DESC_B_HI"] == d["HG_DESC_B_HI"],
          "both kernels use the same descriptor constants")

    check(check_fast_descriptors(d), "hgemm_tma: wgmma reads = TMA writes (A and B, all k16 steps)")
    check(not check_fast_descriptors(d, swap_b=True), "control: B with LBO/SBO swapped is caught")
    check(check_simple_descriptors(ds), "hgemm_tma_simple: wgmma reads = TMA writes")
    check(check_fast_epilogue(), "hgemm_tma: epilogue covers the 128 x 256 tile once")
    check(check_simple_epilogue(), "hgemm_tma_simple: epilogue covers the 128 x 128 tile once")
    check(check_tiles(d["HG_GROUP_M"]), "hgemm_tma: persistent tile order visits every tile once")

    rng = random.Random(7)
    errs = []
    for trial in range(300):
        nbo = None if trial % 3 else (lambda t: 1 + t % 4)
        errs += simulate_fast(rng, tilesM=1 + trial % 3, tilesN=1 + trial % 4,
                              kTiles=1 + trial % 9, grid=1 + trial % 2, nboxes_of=nbo)
    check(not errs, f"hgemm_tma pipeline (300 random interleavings): {errs[:3]}")
    for bug in ("early_release", "producer_parity", "short_tx"):
        errs = []
        for trial in range(50):
            errs += simulate_fast(rng, tilesM=2, tilesN=2, kTiles=6, grid=1, bug=bug)
        check(bool(errs), f"control: the pipeline simulation catches '{bug}'")
        print(f"control {bug}: caught ({errs[0] if errs else 'nothing'})")
    errs = []
    for trial in range(300):
        errs += simulate_simple(rng, kTiles=1 + trial % 11, nb=1 + trial % 2)
    check(not errs, f"hgemm_tma_simple pipeline (300 random interleavings): {errs[:3]}")
    # a broken parity must be caught: consumers waiting the wrong parity
    # (the control shows the simulation can fail)
    broken = MBarrier(1)
    check(broken.try_wait_parity(1) and not broken.try_wait_parity(0),
          "mbarrier model: a fresh barrier passes parity 1, blocks parity 0")

    # budgets
    lb, lbs = launch_block_from_source(FAST), launch_block_from_source(SIMPLE)
    need = d["HG_BAR_OFFSET"] + 8 * 2 * d["HG_STAGES"]
    check(d["HG_BAR_OFFSET"] == d["HG_STAGES"] * d["HG_STAGE_BYTES"], "hgemm_tma: barriers after the ring")
    check(1008 + need <= lb["dynamic_shared_bytes"] <= 232448,
          f"hgemm_tma: {lb['dynamic_shared_bytes']} dynamic bytes hold 1008 slack + {need}")
    needs = ds["HS_BAR_OFFSET"] + 8 * ds["HS_STAGES"]
    check(ds["HS_BAR_OFFSET"] == ds["HS_STAGES"] * ds["HS_STAGE_BYTES"], "simple: barriers after the ring")
    check(1008 + needs <= lbs["dynamic_shared_bytes"] and 2 * (lbs["dynamic_shared_bytes"] + 1024) <= 233472,
          f"hgemm_tma_simple: {lbs['dynamic_shared_bytes']} bytes, two blocks per SM")
    for L, name in ((lb, "hgemm_tma"), (lbs, "hgemm_tma_simple")):
        a, b = L["tensor_maps"]
        check(a["box"] == [128, 64] and b["box"] == [64, 64] and a["arg"] == 0 and b["arg"] == 1,
              f"{name}: tensor map boxes")
        check(a["box"][0] * a["box"][1] * 2 == 16384 and b["box"][0] * b["box"][1] * 2 == 8192,
              f"{name}: box bytes = expect_tx terms")
        check(all(m["swizzle"] == "128B" and m["box"][1] * 2 == 128 for m in (a, b)),
              f"{name}: inner box 128 bytes = the 128B swizzle span")
    check(d["HG_A_BYTES"] == 16384 and d["HG_B_BOX_BYTES"] == 8192 and
          d["HG_STAGE_BYTES"] == 16384 + 4 * 8192, "hgemm_tma: stage bytes")
    # setmaxnreg.inc draws on the CTA's pool (384 x the entry's registers
    # rounded up to 8); the entry may get 145..168 registers (ptxas 168,
    # nvJitLink 157): the split must fit the smallest pool and increase
    # from the largest count
    need = 128 * d["HG_PRODUCER_REGS"] + 256 * d["HG_CONSUMER_REGS"]
    check(need <= 384 * 152 and d["HG_CONSUMER_REGS"] >= 168 and d["HG_PRODUCER_REGS"] <= 145,
          f"setmaxnreg: 128 x {d['HG_PRODUCER_REGS']} + 256 x {d['HG_CONSUMER_REGS']} = {need} "
          f"<= 384 x 152, inc >= 168")
    for v in (d["HG_PRODUCER_REGS"], d["HG_CONSUMER_REGS"]):
        check(v % 8 == 0 and 24 <= v <= 256, f"setmaxnreg count {v}: a multiple of 8 in 24..256")
    check(lb["block"] == [384, 1, 1] and lbs["block"] == [128, 1, 1], "blocks")

    print()
    if failures:
        print(f"{len(failures)} check(s) FAILED")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
