#!/usr/bin/env python3
"""A warm `llmptx-opt --llm-lower` next to the conventional compile.

    build/venv/bin/python3 bench/pipeline/warm_build.py [--runs 7]
        [--set examples|suite|all] [--llmptx-opt PATH]

For each set of modules (docs/examples/kernels.mlir; the kernels of
docs/suite), one cold build fills a private copy of the set's answer cache
with its compile verdicts and (suite, verify=exec) the runner's results,
replayed from the suite's recorded H200 results by results_replay. Then
whole-process runs of the same llmptx-opt binary alternate, a sweep over
the set's modules each:

  conventional  -gpu-lower-to-nvvm-pipeline (cubin-format=isa, the same chip
                and PTX features)
  warm          --llm-lower with the replay provider on the filled cache and
                the same runner command, which now records a call and fails

and the script prints the median wall time of each and their ratio. Neither
writes a report (its atomic rewrite with fsync is the disk's time, not the
compiler's); one more warm sweep with `report=` checks that no compile check
or bundle missed the cache, and a runner call during any warm sweep is an
error, so the figure is that of builds that ran neither ptxas nor the
runner.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

# (name, modules, llm-lower options, conventional pipeline options, cache)
SETS: Dict[str, Tuple[List[str], str, str, str]] = {
    'examples': (
        [os.path.join(ROOT, 'docs', 'examples', 'kernels.mlir')],
        'provider=replay model=curated',
        # The NVPTX backend needs PTX ISA 7.8 for sm_90 (llm-lower's
        # default); upstream's pipeline defaults to 6.0 and stops.
        'cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa '
        'opt-level=3',
        os.path.join(ROOT, 'docs', 'examples', 'cache')),
    'suite': (
        sorted(os.path.join(ROOT, 'docs', 'suite', 'kernels', name)
               for name in os.listdir(os.path.join(ROOT, 'docs', 'suite',
                                                   'kernels'))
               if name.endswith('.mlir')),
        'chip=sm_90 features=+ptx80 provider=replay model=curated '
        'repairs=0 verify=exec',
        'cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa '
        'opt-level=3',
        os.path.join(ROOT, 'docs', 'suite', 'cache')),
}

H200 = os.path.join(ROOT, 'test', 'Suite', 'Inputs', 'h200')


def run(command: List[str], env: Dict[str, str]) -> float:
    """Wall seconds of one whole process; a failure stops the benchmark."""
    start = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit('warm_build: %s failed (exit %d): %s' % (
            ' '.join(command[:3]), done.returncode,
            done.stderr.decode(errors='replace')[-2000:]))
    return elapsed


def misses(report: str) -> Tuple[int, int]:
    """(compile, bundle) cache misses of every module in `report`."""
    with open(report) as file:
        modules = json.load(file).get('modules', [])
    compile_misses = bundle_misses = 0
    for module in modules:
        counts = module.get('verification_cache', {})
        compile_misses += counts.get('compile_misses', 0)
        bundle_misses += counts.get('bundle_misses', 0)
    return compile_misses, bundle_misses


def bench_set(name: str, opt: str, runs: int, work: str) -> None:
    modules, options, conventional, answers = SETS[name]
    cache = os.path.join(work, name + '-cache')
    shutil.copytree(answers, cache)
    env = dict(os.environ)
    for variable in list(env):
        if variable.startswith('LLMPTX_'):
            del env[variable]
    env['LLMPTX_PROGRESS'] = '0'
    python = sys.executable
    # One runner command for both builds (the cache knows the GPU a runner
    # command reached last): the recorded results until `armed` exists,
    # then a failure.
    armed = os.path.join(work, name + '-armed')
    called = os.path.join(work, name + '-called')
    runner = os.path.join(work, name + '-runner.sh')
    with open(runner, 'w') as file:
        file.write('#!/bin/sh\n[ -e %s ] && { echo "warm build called the '
                   'runner" >&2; touch %s; exit 1; }\nexec %s -m '
                   'llmptx.testing.results_replay --results %s --ran %s "$@"\n'
                   % (armed, called, python,
                      os.path.join(H200, 'results.json'),
                      os.path.join(H200, 'bundles')))
    os.chmod(runner, 0o755)
    cold_env = dict(env, LLMPTX_RUNNER=runner)
    warm_env = cold_env
    llm = options + ' cache=readwrite cache-dir=' + cache

    def llm_command(module: str, report: str = '') -> List[str]:
        return [opt, module, '--llm-lower=%s%s' % (
            llm, ' report=' + report if report else ''), '-o', os.devnull]

    def conventional_command(module: str) -> List[str]:
        return [opt, module, '-gpu-lower-to-nvvm-pipeline=' + conventional,
                '-o', os.devnull]

    cold_report = os.path.join(work, name + '-cold.json')
    for module in modules:
        run(llm_command(module, cold_report), cold_env)
    open(armed, 'w').close()
    conventional_times: List[float] = []
    warm_times: List[float] = []
    for _ in range(runs):
        conventional_times.append(
            sum(run(conventional_command(module), env)
                for module in modules))
        warm_times.append(sum(run(llm_command(module), warm_env)
                              for module in modules))
    warm_report = os.path.join(work, name + '-warm.json')
    for module in modules:
        run(llm_command(module, warm_report), warm_env)
    compile_misses, bundle_misses = misses(warm_report)
    if compile_misses or bundle_misses or os.path.exists(called):
        sys.exit('warm_build: the warm %s build missed the cache (%d compile '
                 'checks, %d bundles%s)' % (
                     name, compile_misses, bundle_misses,
                     ', the runner was called' if os.path.exists(called)
                     else ''))
    conventional_ms = 1000 * statistics.median(conventional_times)
    warm_ms = 1000 * statistics.median(warm_times)
    print('%-8s %2d module(s), %d runs each: conventional %.1f ms, warm '
          'llm-lower %.1f ms, ratio %.2f' % (
              name, len(modules), runs, conventional_ms, warm_ms,
              warm_ms / conventional_ms))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=7,
                        help='interleaved runs of each (default 7)')
    parser.add_argument('--set', choices=['examples', 'suite', 'all'],
                        default='all')
    parser.add_argument('--llmptx-opt',
                        default=os.path.join(ROOT, 'build', 'bin',
                                             'llmptx-opt'))
    args = parser.parse_args()
    if args.runs < 1:
        parser.error('--runs must be at least 1')
    if not os.access(args.llmptx_opt, os.X_OK):
        parser.error('no llmptx-opt at %s' % args.llmptx_opt)
    names = list(SETS) if args.set == 'all' else [args.set]
    with tempfile.TemporaryDirectory(prefix='llmptx-warm-') as work:
        for name in names:
            bench_set(name, args.llmptx_opt, args.runs, work)
    return 0


if __name__ == '__main__':
    sys.exit(main())
