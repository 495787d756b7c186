"""The MLP of test/Inputs/iree/mlp.mlir in PyTorch, timed on the GPU: what a
user would run instead of the IREE program (cuBLAS SGEMM without TF32, then
bias + erf-GELU and a row softmax as PyTorch's kernels).

    python3 bench/iree/mlp_torch.py [--m 4096 --k 1024 --n 4096]

Prints the median of 50 timed calls (CUDA events) and each part's time.
"""

import argparse
import json

import torch


def median_ms(function, runs=50):
    for _ in range(5):
        function()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        function()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return sorted(times)[len(times) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--m', type=int, default=4096)
    parser.add_argument('--k', type=int, default=1024)
    parser.add_argument('--n', type=int, default=4096)
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    generator = torch.Generator(device='cuda').manual_seed(1234)
    x = torch.randn(args.m, args.k, device='cuda', generator=generator)
    w = torch.randn(args.k, args.n, device='cuda', generator=generator) / 32
    b = torch.randn(args.n, device='cuda', generator=generator)
    h = torch.nn.functional.gelu(x @ w + b)
    report = {
        'shape': [args.m, args.k, args.n],
        'mlp_ms': median_ms(lambda: torch.softmax(
            torch.nn.functional.gelu(torch.addmm(b, x, w)), dim=1)),
        'sgemm_bias_ms': median_ms(lambda: torch.addmm(b, x, w)),
        'gelu_ms': median_ms(lambda: torch.nn.functional.gelu(h)),
        'softmax_ms': median_ms(lambda: torch.softmax(h, dim=1)),
    }
    print(json.dumps(report, indent=1))


if __name__ == '__main__':
    main()
