"""What the Ray runner's tests read of its results.

  same SERIAL RAY [--except KERNEL]...  the results without their placement
      equal the serial run's, top level and every bundle (but those named)
  spread RAY RUNS                       how many Ray nodes and workers ran
      the bundles, what CUDA_VISIBLE_DEVICES was, and whether every runner
      ran in a private folder of its task (RUNS: the stand-in's runs.jsonl)
  attempts RAY                          each bundle that took more than one
      attempt or failed: its verdicts, its attempts and where they ran
"""

import json
import sys


def load(path):
    with open(path) as handle:
        return json.load(handle)


def same(serial_path, ray_path, excepted):
    serial, ray = load(serial_path), load(ray_path)
    for bundle in ray['bundles']:
        bundle.pop('placement')
    top = {k: v for k, v in ray.items() if k != 'bundles'}
    if top != {k: v for k, v in serial.items() if k != 'bundles'}:
        print('top level differs')
    if len(ray['bundles']) != len(serial['bundles']):
        print('bundle count differs: %d, serial %d' % (
            len(ray['bundles']), len(serial['bundles'])))
    count = 0
    for mine, theirs in zip(ray['bundles'], serial['bundles']):
        if mine['kernel'] in excepted:
            continue
        if mine != theirs:
            print('differs: %s' % mine['bundle'])
        else:
            count += 1
    print('same as the serial run: %d bundle(s), in its order' % count)


def spread(ray_path, runs_path):
    placements = [b['placement'] for b in load(ray_path)['bundles']]
    print('nodes: %d' % len({p['node_id'] for p in placements}))
    print('workers: %d' % len({(p['node_id'], p['worker_pid'])
                               for p in placements}))
    print('CUDA_VISIBLE_DEVICES: %s' % sorted(
        {p['cuda_visible_devices'] for p in placements}))
    print('GPU: %s' % sorted({p.get('gpu', '') for p in placements}))
    with open(runs_path) as handle:
        runs = [json.loads(line) for line in handle]
    private = all(run['runner_dir'] == run['bundle_dir'] and
                  '/llmptx-ray-' in run['runner_dir'] for run in runs)
    folders = len({run['runner_dir'] for run in runs})
    print('runs: %d, each in a private folder with its bundle: %s, '
          'folders: %d' % (len(runs), private, folders))


def attempts(ray_path):
    for bundle in load(ray_path)['bundles']:
        placement = bundle['placement']
        if placement['attempts'] == 1 and 'error' not in bundle:
            continue
        verdicts = ','.join(c['verdict'] for c in bundle['candidates'])
        failures = placement.get('failures', [])
        nodes = [f.split(' on node ')[1].split()[0] for f in failures
                 if ' on node ' in f]
        if 'error' not in bundle:
            nodes.append(placement['node_id'][:8])
        print('%s: %s after %d attempt(s), %s node(s)' % (
            bundle['kernel'], verdicts, placement['attempts'],
            len(set(nodes))))
        for failure in failures:
            print('  ' + failure)
        if 'error' in bundle:
            print('  error: ' + bundle['error'])


def main(argv):
    if argv[0] == 'same':
        excepted = [argv[i + 1] for i, a in enumerate(argv) if a == '--except']
        same(argv[1], argv[2], excepted)
    elif argv[0] == 'spread':
        spread(argv[1], argv[2])
    elif argv[0] == 'attempts':
        attempts(argv[1])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
