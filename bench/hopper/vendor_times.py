#!/usr/bin/env python3
"""What a user would pick instead, timed the way llmptx-runner times a
kernel: the study's GEMM through torch.matmul (cuBLAS) and its attention
through torch's scaled_dot_product_attention, on the same GPU, in the same
device session as the runner's results they are compared with.

    python3 bench/hopper/vendor_times.py [--json FILE] [--runs 30]

Timing: CUDA events around one call, the L2 cache flushed before every run
(a write of a buffer twice the L2's size), 5 warm-up calls, the median and
the 10th and 90th percentiles of --runs. Shapes are the study's timing
shapes (bench/hopper/study/*.mlir): GEMM M = N = K = 4096, f16 inputs, with
an f32 result (what the study's kernel writes) and with an f16 result (the
usual cuBLAS call); attention B*H = 64, S = 4096, D = 64, f16, not causal
(the harness passes causal = S % 2), with SDPA's flash backend and with its
default choice.
"""

import argparse
import json
import statistics
import sys


def timed(torch, fn, runs, flush):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        flush.zero_()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return {"median_ms": statistics.median(times),
            "p10_ms": times[len(times) // 10],
            "p90_ms": times[(9 * len(times)) // 10], "runs": runs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures here too")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    try:
        import torch
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError as e:
        print("error: needs torch with CUDA: %s" % e, file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("error: no CUDA device", file=sys.stderr)
        return 2
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 64 << 20) or (64 << 20)
    flush = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
    results = {"device": props.name, "torch": torch.__version__,
               "cuda": torch.version.cuda}

    n = 4096
    a = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
    b = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
    c16 = torch.empty(n, n, device="cuda", dtype=torch.float16)
    gemm_flops = 2.0 * n * n * n
    entries = {"gemm_cublas_f16_out": lambda: torch.matmul(a, b, out=c16)}
    try:
        c32 = torch.empty(n, n, device="cuda", dtype=torch.float32)
        torch.mm(a, b, out_dtype=torch.float32, out=c32)
        entries["gemm_cublas_f32_out"] = (
            lambda: torch.mm(a, b, out_dtype=torch.float32, out=c32))
    except (TypeError, RuntimeError) as e:
        results["gemm_cublas_f32_out_unavailable"] = str(e)
    for name, fn in entries.items():
        r = timed(torch, fn, args.runs, flush)
        r["tflops"] = gemm_flops / (r["median_ms"] * 1e-3) / 1e12
        results[name] = r

    bh, s, d = 64, 4096, 64
    q, k, v = (torch.rand(1, bh, s, d, device="cuda", dtype=torch.float16) * 2 - 1
               for _ in range(3))
    attn_flops = 4.0 * bh * s * s * d

    def sdpa():
        return F.scaled_dot_product_attention(q, k, v, scale=0.125)

    for name, backend in (("attention_sdpa_flash", SDPBackend.FLASH_ATTENTION),
                          ("attention_sdpa_default", None)):
        if backend is None:
            r = timed(torch, sdpa, args.runs, flush)
        else:
            with sdpa_kernel(backend):
                r = timed(torch, sdpa, args.runs, flush)
        r["tflops"] = attn_flops / (r["median_ms"] * 1e-3) / 1e12
        results[name] = r

    for key, r in results.items():
        if isinstance(r, dict):
            print("%-26s %9.4f ms (p10 %.4f, p90 %.4f)  %6.1f TFLOP/s"
                  % (key, r["median_ms"], r["p10_ms"], r["p90_ms"], r["tflops"]))
        else:
            print("%-26s %s" % (key, r))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
