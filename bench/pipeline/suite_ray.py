#!/usr/bin/env python3
"""The suite built through the serial runner and through `runner=ray` on one
GPU machine: wall times and selections (issue 31; docs/ray.md, "Measured").

    python3 bench/pipeline/suite_ray.py --tools DIR --out DIR CONFIG...

The fourteen suite kernels that have a curated answer (docs/suite/answers)
go into one gpu.module (docs/suite/kernels/*.mlir, their gpu.module bodies
side by side: the prompts, and so the cache keys, are each kernel's own),
lowered by one `llmptx-opt --llm-lower` with `chip=sm_90 features=+ptx80
verify=exec select=auto`, whole process timed. CONFIG is one of

    serial-replay   answers from the shipped cache (provider=replay), the
                    runner next to llmptx-opt, one runner call (gpu-jobs=0)
    ray-replay      the same through runner=ray (RAY_ADDRESS: a cluster
                    started beforehand, e.g. `ray start --head`)
    serial-model-gN the answers from a scripted model that takes --delay
                    seconds per call, --jobs calls at once (provider=exec,
                    cache off), the runner next to llmptx-opt, gpu-jobs=N
    ray-model-gN    the same through runner=ray

Each build leaves CONFIG.mlir, CONFIG.report.json and CONFIG.log in --out
and one line in --out/builds.jsonl: wall seconds, and per kernel what was
selected and the candidate's speedup. `--compare` prints the table of every
build in --out and says whether each build selected what the first did.
llmptx-opt needs its libraries (LD_LIBRARY_PATH) and ptxas; runner=ray
needs llmptx-ray-runner on PATH, a Python that imports ray and llmptx.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SUITE = os.path.join(ROOT, 'docs', 'suite')
OPTIONS = 'chip=sm_90 features=+ptx80 verify=exec select=auto'


def gpu_module_body(text):
    """What is between the braces of the file's gpu.module, comments out."""
    text = '\n'.join(line for line in text.splitlines()
                     if not line.lstrip().startswith('//'))
    start = text.index('{', text.index('gpu.module'))
    depth = 0
    for position in range(start, len(text)):
        if text[position] == '{':
            depth += 1
        elif text[position] == '}':
            depth -= 1
            if depth == 0:
                return text[start + 1:position]
    raise ValueError('unbalanced gpu.module')


def suite_module(path):
    kernels = sorted(os.path.basename(p)[:-4] for p in
                     glob.glob(os.path.join(SUITE, 'answers', '*.txt')))
    bodies = []
    for kernel in kernels:
        with open(os.path.join(SUITE, 'kernels', kernel + '.mlir')) as f:
            bodies.append('    // %s\n%s' % (kernel, gpu_module_body(f.read())))
    with open(path, 'w') as f:
        f.write('module attributes {gpu.container_module} {\n'
                '  gpu.module @suite {\n%s\n  }\n}\n' % '\n'.join(bodies))
    return kernels


def build(args, config, module):
    match = re.fullmatch(r'(serial|ray)-(replay|model-g(\d+))', config)
    if not match:
        sys.exit('suite_ray.py: unknown configuration %r' % config)
    runner = ('ray' if match.group(1) == 'ray'
              else os.path.join(args.tools, 'llmptx-runner'))
    options = [OPTIONS, "runner='%s'" % runner]
    env = dict(os.environ)
    if match.group(2) == 'replay':
        options += ['provider=replay', 'model=curated', 'cache=read',
                    'cache-dir=' + os.path.join(SUITE, 'cache'), 'gpu-jobs=0']
    else:
        env['LLMPTX_EXEC_COMMAND'] = (
            '%s -m llmptx.testing.scripted_model --answers %s --delay %g'
            % (sys.executable, os.path.join(SUITE, 'answers'), args.delay))
        options += ['provider=exec', 'model=curated', 'cache=off',
                    'repairs=0', 'jobs=%d' % args.jobs,
                    'gpu-jobs=' + match.group(3)]
    out = os.path.join(args.out, config)
    options.append('report=%s.report.json' % out)
    command = [os.path.join(args.tools, 'llmptx-opt'), module,
               '--llm-lower=' + ' '.join(options), '-o', out + '.mlir']
    start = time.monotonic()
    with open(out + '.log', 'w') as log:
        rc = subprocess.call(command, cwd=ROOT, env=env, stdout=log,
                             stderr=subprocess.STDOUT)
    wall = time.monotonic() - start
    record = {'config': config, 'rc': rc, 'wall_s': round(wall, 2),
              'command': ' '.join(command), 'kernels': {}}
    if rc == 0:
        with open(out + '.report.json') as f:
            report = json.load(f)
        for kernel in report['kernels']:
            speedups = [c['timing']['speedup']
                        for c in kernel.get('candidates', []) if 'timing' in c]
            record['kernels'][kernel['name']] = {
                'selected': kernel['selected'],
                'answer': [a['status'] for a in kernel['attempts']],
                'speedup': max(speedups, default=None),
                'placement': [c.get('placement', {}).get('hostname')
                              for c in kernel.get('candidates', [])
                              if c.get('placement')]}
    with open(os.path.join(args.out, 'builds.jsonl'), 'a') as f:
        f.write(json.dumps(record) + '\n')
    print('%-18s rc %d  %.1f s' % (config, rc, wall), flush=True)
    return rc


def compare(out):
    with open(os.path.join(out, 'builds.jsonl')) as f:
        builds = [json.loads(line) for line in f if line.strip()]
    if not builds:
        return 1
    first = builds[0]
    print('| build | rc | wall (s) | answers compiled | selected llm | '
          'same selections as %s |' % first['config'])
    print('| --- | --- | --- | --- | --- | --- |')
    same_all = True
    for b in builds:
        selected = {k: v['selected'] for k, v in b['kernels'].items()}
        base = {k: v['selected'] for k, v in first['kernels'].items()}
        same = selected == base and b['rc'] == 0
        same_all &= same
        compiled = sum(v['answer'] == ['compiled']
                       for v in b['kernels'].values())
        print('| %s | %d | %.1f | %d | %d of %d | %s |'
              % (b['config'], b['rc'], b['wall_s'], compiled,
                 sum(v == 'llm' for v in selected.values()), len(selected),
                 'yes' if same else 'NO: ' + ', '.join(
                     '%s %s/%s' % (k, base.get(k), selected.get(k))
                     for k in sorted(set(base) | set(selected))
                     if base.get(k) != selected.get(k))))
    return 0 if same_all else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('configs', nargs='*')
    parser.add_argument('--tools', help='folder of llmptx-opt and llmptx-runner')
    parser.add_argument('--out', required=True)
    parser.add_argument('--delay', type=float, default=8.0,
                        help='seconds per scripted model call (default 8)')
    parser.add_argument('--jobs', type=int, default=2,
                        help='model calls in flight (default 2)')
    parser.add_argument('--compare', action='store_true')
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.configs:
        if not args.tools:
            sys.exit('suite_ray.py: --tools is needed to build')
        module = os.path.join(args.out, 'suite.mlir')
        kernels = suite_module(module)
        print('%d kernels: %s' % (len(kernels), ' '.join(kernels)), flush=True)
        for config in args.configs:
            build(args, config, module)
    return compare(args.out) if args.compare else 0


if __name__ == '__main__':
    sys.exit(main())
