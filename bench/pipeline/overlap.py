#!/usr/bin/env python3
"""Measures how llm-lower overlaps model calls.

Builds a gpu.module of K copies of a vector-add kernel, answers every call
through the exec provider with a scripted model that waits DELAY seconds,
runs `llmptx-opt --llm-lower` with `samples=S`, and prints the wall time of
the run against the sum of the model-call latencies in its report. A ratio
well below 1 means the calls ran concurrently.

    build/venv/bin/python3 bench/pipeline/overlap.py --kernels 4 \
        --samples 4 --delay 0.5

It runs on a Python with the llmptx package (the build's virtual
environment, docs/python.md): the scripted model is
llmptx.testing.scripted_model, and llmptx-opt is found as every script finds
a tool of the build (llmptx.tools), unless --llmptx-opt names one.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from llmptx.tools import find_tool

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ANSWER = os.path.join(ROOT, 'test', 'Target', 'Inputs', 'answers', 'repair',
                      'vadd.r1.txt')

KERNEL = '''
    gpu.func @{name}(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>,
                     %n: index) kernel
        attributes {{known_block_size = array<i32: 256, 1, 1>}} {{
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {{
        %x = memref.load %a[%i] : memref<?xf32>
        %y = memref.load %b[%i] : memref<?xf32>
        %s = arith.addf %x, %y : f32
        memref.store %s, %c[%i] : memref<?xf32>
      }}
      gpu.return
    }}
'''


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--llmptx-opt', help='the llmptx-opt to run (a path '
                        'or a command on PATH)')
    parser.add_argument('--kernels', type=int, default=4)
    parser.add_argument('--samples', type=int, default=4)
    parser.add_argument('--delay', type=float, default=0.5)
    parser.add_argument('--jobs', type=int, default=0)
    args = parser.parse_args()
    opt = find_tool('llmptx-opt', explicit=args.llmptx_opt)

    work = tempfile.mkdtemp(prefix='llmptx-overlap-')
    try:
        answers = os.path.join(work, 'answers')
        os.mkdir(answers)
        names = ['k%d' % i for i in range(args.kernels)]
        good = open(ANSWER).read()
        for name in names:
            with open(os.path.join(answers, name + '.txt'), 'w') as out:
                out.write(good.replace('vadd', name))
        module = os.path.join(work, 'kernels.mlir')
        with open(module, 'w') as out:
            out.write('module attributes {gpu.container_module} {\n'
                      '  gpu.module @kernels {\n')
            for name in names:
                out.write(KERNEL.format(name=name))
            out.write('  }\n}\n')

        report = os.path.join(work, 'report.json')
        env = dict(os.environ)
        env['LLMPTX_EXEC_COMMAND'] = (
            '%s -m llmptx.testing.scripted_model --answers %s --delay %g' %
            (sys.executable, answers, args.delay))
        env['LLMPTX_PROGRESS'] = '0'
        options = ('provider=exec cache=off select=llm repairs=0 samples=%d '
                   'jobs=%d report=%s' % (args.samples, args.jobs, report))
        command = [opt, module, '--llm-lower=' + options,
                   '-o', os.path.join(work, 'out.mlir')]
        start = time.monotonic()
        run = subprocess.run(command, env=env, capture_output=True, text=True)
        wall = time.monotonic() - start
        if run.returncode != 0:
            sys.stderr.write(run.stderr)
            return 1
        kernels = json.load(open(report))['kernels']
        latencies = [a['latency_ms'] / 1000.0 for k in kernels
                     for a in k['attempts']]
        selected = sum(1 for k in kernels if k['selected'] == 'llm')
        total = sum(latencies)
        print('kernels %d, samples %d, model calls %d, scripted delay %.2f s'
              % (args.kernels, args.samples, len(latencies), args.delay))
        print('sum of call latencies %.2f s' % total)
        print('wall time of llmptx-opt %.2f s' % wall)
        print('wall / sum %.3f (1.0 = no overlap)' % (wall / total))
        print('kernels from the LLM: %d of %d' % (selected, len(kernels)))
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
