"""A stand-in for llmptx-ray-runner in tests without Ray (runner-ray.test).

    python3 fake_ray_runner.py --log LOG --results R --ran B [RAY OPTIONS]
        BUNDLE... -o OUT

records its command line (one JSON line in LOG), answers the bundles from
the recorded results R with results_replay's byte-for-byte check against
the bundles that ran (B), and gives every bundle record the `placement`
llmptx-ray-runner adds (docs/ray.md): a node, a worker, an H100 whose
device record differs from the results' H200.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import List


def main(argv: List[str]) -> int:
    log = argv[argv.index('--log') + 1]
    results = argv[argv.index('--results') + 1]
    ran = argv[argv.index('--ran') + 1]
    out = argv[argv.index('-o') + 1]
    with open(log, 'a') as file:
        file.write(json.dumps(argv) + '\n')
    bundles = [arg for arg in argv if arg.endswith('.bundle.json')]
    done = subprocess.run(
        [sys.executable, '-m', 'llmptx.testing.results_replay', '--results',
         results, '--ran', ran] + bundles + ['-o', out])
    if done.returncode != 0:
        return done.returncode
    with open(out) as file:
        merged = json.load(file)
    device = dict(merged['device'], name='NVIDIA H100 80GB HBM3',
                  driver_version=12080)
    for index, record in enumerate(merged['bundles']):
        record['placement'] = {
            'hostname': 'gpu-%d' % index, 'node_id': '3f2a9c1e%04d' % index,
            'node_ip': '10.0.0.%d' % (4 + index), 'worker_pid': 812 + index,
            'cuda_visible_devices': str(index), 'gpu': device['name'],
            'gpu_uuid': 'GPU-5d1c-%d' % index, 'device': device,
            'attempts': 2, 'failures': ['attempt 1 on node 9e0b: worker died'],
            'task_seconds': 7.912}
    with open(out + '.tmp', 'w') as file:
        json.dump(merged, file, indent=2)
    os.replace(out + '.tmp', out)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
