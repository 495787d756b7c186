"""The merge rules of llmptx-ray-runner on plain data (no Ray): the tasks'
results of one bundle each become the one file llmptx-runner writes."""

import json

from llmptx import ray_worker
from llmptx.ray_runner import BundleJob, ResultsMerge

DEVICE = {'name': 'NVIDIA H200', 'chip': 'sm_90', 'sm': 90}


def task_results(bundle_path, kernel, note, sanitizer_ran, device=DEVICE):
    """What llmptx-runner writes for one bundle, as the runner's writer
    orders the fields."""
    results = {'format': 'llmptx-verification-results', 'version': 1,
               'device': device,
               'sanitizer': {'ran': sanitizer_ran,
                             'note': 'compute-sanitizer: /cuda/bin/cs; '
                                     '%s: racecheck skipped' % bundle_path},
               'sass_note': 'ptxas or nvdisasm not found; no SASS statistics',
               'bundles': [{'bundle': bundle_path, 'kernel': kernel,
                            'reference': 'nvptx', 'wall_seconds': 1.5,
                            'candidates': [{'name': 's0r0',
                                            'verdict': 'pass',
                                            'shapes': []}]}]}
    if note:
        results['ncu_note'] = note
    return json.dumps(results, indent=2)


def ran(path, kernel, node, note='', sanitizer_ran=False, device=DEVICE):
    job = BundleJob(path=path, data=b'{}', kernel=kernel, reference='nvptx',
                    candidates=['s0r0'], attempts=1)
    job.started = {'hostname': 'gpu-%s' % node, 'node_id': node * 8,
                   'node_ip': '10.0.0.1', 'worker_pid': 42,
                   'cuda_visible_devices': '0'}
    private = '/tmp/llmptx-ray-x%s/%s' % (node, path.split('/')[-1])
    job.outcome = {'kind': ray_worker.RAN, 'status': 0, 'log': '',
                   'bundle_path': private, 'seconds': 1.25,
                   'gpu': {'name': 'NVIDIA H200', 'uuid': 'GPU-%s' % node},
                   'results': task_results(private, kernel, note,
                                           sanitizer_ran, device)}
    return job


def failed(path, kernel):
    job = BundleJob(path=path, data=b'{}', kernel=kernel, reference='nvptx',
                    candidates=['s0r0', 's1r0'], attempts=2)
    job.failures = ['attempt 1 on node aaaaaaaa (gpu-a): the Ray worker died '
                    '(WorkerCrashedError)',
                    'attempt 2 on node bbbbbbbb (gpu-b): the Ray worker died '
                    '(WorkerCrashedError)']
    job.error = 'no attempt ran to the end (2 of 2): ' + '; '.join(
        job.failures)
    return job


jobs = [ran('b/k1.bundle.json', 'k1', 'a', note='ncu not found'),
        failed('b/k2.bundle.json', 'k2'),
        ran('b/k3.bundle.json', 'k3', 'b', note='ncu not found',
            sanitizer_ran=True, device=dict(DEVICE, name='NVIDIA H100'))]
merged = ResultsMerge(jobs).merged()
print(json.dumps(merged, indent=1))
