#!/usr/bin/env python3
"""What pipelined verification (gpu-jobs) gains when the model and the GPU
both take time.

    build/venv/bin/python3 bench/pipeline/gpu_jobs.py [--model-delay 1]
        [--runner-delay 1] [--jobs 1]

Builds test/Target/Inputs/exec.mlir (three kernels; relu_f16's first answer
fails on the GPU and is repaired once) with `verify=exec`, a scripted model
that waits --model-delay seconds per call (--jobs calls at once) and a
runner that waits --runner-delay seconds per bundle of a call (a GPU of
its own for each call in flight) before answering from the kernels'
recorded H200 results (results_replay). It prints the wall time of
the serial build (gpu-jobs=0: one runner call for all kernels after the
search) and of the pipelined builds (gpu-jobs=1 and 2: each kernel's bundle
goes to the runner as soon as its candidates compile), and checks that
every build emitted the same module.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
INPUTS = os.path.join(ROOT, 'test', 'Target', 'Inputs')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--model-delay', type=float, default=1.0)
    parser.add_argument('--runner-delay', type=float, default=1.0)
    parser.add_argument('--jobs', type=int, default=1,
                        help='model calls in flight (default 1)')
    parser.add_argument('--llmptx-opt',
                        default=os.path.join(ROOT, 'build', 'bin',
                                             'llmptx-opt'))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix='llmptx-gpu-jobs-') as work:
        runner = os.path.join(work, 'runner.sh')
        with open(runner, 'w') as file:
            # --runner-delay per bundle of the call, as one GPU takes.
            file.write('#!/bin/sh\nfor a in "$@"; do case "$a" in '
                       '*.bundle.json) sleep %s;; esac; done\nexec %s -m '
                       'llmptx.testing.results_replay --results %s --ran %s '
                       '"$@"\n' % (args.runner_delay, sys.executable,
                                   os.path.join(INPUTS, 'h200',
                                                'results.json'),
                                   os.path.join(INPUTS, 'h200', 'bundles')))
        os.chmod(runner, 0o755)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith('LLMPTX_')}
        env['LLMPTX_RUNNER'] = runner
        env['LLMPTX_EXEC_COMMAND'] = (
            '%s -m llmptx.testing.scripted_model --answers %s --delay %s' % (
                sys.executable, os.path.join(INPUTS, 'answers', 'exec'),
                args.model_delay))
        outputs = []
        for gpu_jobs in (0, 1, 2):
            out = os.path.join(work, 'out%d.mlir' % gpu_jobs)
            start = time.perf_counter()
            done = subprocess.run(
                [args.llmptx_opt, os.path.join(INPUTS, 'exec.mlir'),
                 '--llm-lower=provider=exec cache=off verify=exec repairs=1 '
                 'jobs=%d gpu-jobs=%d' % (args.jobs, gpu_jobs), '-o', out],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            seconds = time.perf_counter() - start
            if done.returncode != 0:
                sys.exit('gpu_jobs: llmptx-opt failed: %s' %
                         done.stderr.decode(errors='replace')[-2000:])
            outputs.append(out)
            print('gpu-jobs=%d: %.2f s' % (gpu_jobs, seconds))
        same = all(filecmp.cmp(outputs[0], other, shallow=False)
                   for other in outputs[1:])
        print('the same module from every build: %s' % ('yes' if same
                                                         else 'NO'))
        return 0 if same else 1


if __name__ == '__main__':
    sys.exit(main())
