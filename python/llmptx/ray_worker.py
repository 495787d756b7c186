#===- ray_worker.py - One bundle through llmptx-runner on a Ray node ------===#
"""What a Ray task of `llmptx-ray-runner` does on the node it lands on.

`run_bundle` receives the llmptx-runner binary and one verification bundle
as bytes (from Ray's object store, not a shared file system), writes them to
a private folder of its own, runs the runner on that one bundle, so the
reference and every candidate of it run on the one GPU Ray gave the task,
and hands back the runner's results with where it ran.

It is a generator with two items: first where it started (host, Ray node,
worker, the GPU Ray assigned), so the driver knows the node of an attempt
even when the worker dies and can time the attempt from its start; then the
outcome. The driver (llmptx.ray_runner) pickles this module by value, so
the nodes need Python and Ray but not the llmptx package; it uses only the
standard library and Ray.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, Iterator, List, Optional

# The outcomes of an attempt (the second item's "kind").
RAN = 'ran'            # the runner wrote results (exit status 0 or 1)
NO_GPU = 'no-gpu'      # exit status 2: no usable GPU or driver on this node
REJECTED = 'rejected'  # exit status 1 and no results: bad bundle or usage
DIED = 'died'          # killed by a signal, or an exit status it never uses
TIMEOUT = 'timeout'    # ran past the task's time limit and was killed

# The runner runs through this: it asks the kernel to kill it when the Ray
# worker that started it dies (a killed worker, a lost node), so no runner
# is left on a GPU that Ray hands to the next task, then becomes the runner.
_DEATH_SIGNAL_SHIM = (
    'import ctypes, os, signal, sys\n'
    'ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG\n'
    'if os.getppid() != int(sys.argv[1]):\n'
    '    os._exit(137)\n'
    'os.execv(sys.argv[2], sys.argv[2:])\n')

# How much of the runner's output comes back (its summary, its errors).
_LOG_TAIL_BYTES = 8192


def _started_record() -> Dict[str, Any]:
    """Where this attempt runs: host, Ray node and worker, and the GPU Ray
    assigned (CUDA_VISIBLE_DEVICES, which Ray sets for num_gpus tasks)."""
    import ray  # on the node, inside the task

    context = ray.get_runtime_context()
    node_ip = ray.util.get_node_ip_address()  # type: ignore[no-untyped-call]
    return {
        'hostname': socket.gethostname(),
        'node_id': context.get_node_id(),
        'node_ip': node_ip,
        'worker_pid': os.getpid(),
        'cuda_visible_devices': os.environ.get('CUDA_VISIBLE_DEVICES', ''),
    }


def _gpu_identity() -> Dict[str, str]:
    """The name and UUID nvidia-smi gives for the first GPU of
    CUDA_VISIBLE_DEVICES; empty when there is none or no nvidia-smi."""
    visible = os.environ.get('CUDA_VISIBLE_DEVICES', '').split(',')[0].strip()
    smi = shutil.which('nvidia-smi')
    if not visible or not smi:
        return {}
    try:
        out = subprocess.run(
            [smi, '--query-gpu=name,uuid', '--format=csv,noheader', '-i',
             visible], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    fields = [field.strip() for field in out.stdout.strip().split(',')]
    if out.returncode != 0 or len(fields) != 2:
        return {}
    return {'name': fields[0], 'uuid': fields[1]}


def _tail(data: bytes) -> str:
    return data[-_LOG_TAIL_BYTES:].decode('utf-8', 'replace')


def _run_runner(command: List[str], folder: str,
                timeout: float) -> Dict[str, Any]:
    """Runs `command` in its own session; kills the session at `timeout`."""
    process = subprocess.Popen(command, cwd=folder, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        output, _ = process.communicate(timeout=timeout if timeout > 0 else
                                        None)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return {'kind': TIMEOUT, 'status': None, 'log': _tail(output),
                'reason': 'the runner ran past the task time limit (%g s) '
                          'and was killed' % timeout}
    status = process.returncode
    record: Dict[str, Any] = {'status': status, 'log': _tail(output)}
    if status < 0:
        record['kind'] = DIED
        record['reason'] = 'the runner was killed by signal %d' % -status
    elif status not in (0, 1, 2):
        record['kind'] = DIED
        record['reason'] = 'the runner exited with status %d' % status
    else:
        record['kind'] = NO_GPU if status == 2 else RAN
    return record


def _write_runner(runner: bytes, folder: str) -> str:
    """The runner's bytes as an executable of `folder`; its path."""
    path = os.path.join(folder, 'llmptx-runner')
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o700),
              'wb') as handle:
        handle.write(runner)
    return path


def _shim(runner_path: str) -> List[str]:
    """The command that runs `runner_path` (its arguments follow) so that
    it dies with this worker."""
    return [sys.executable, '-c', _DEATH_SIGNAL_SHIM, str(os.getpid()),
            runner_path]


def probe(runner: bytes, runner_args: List[str],
          timeout: float) -> Dict[str, Any]:
    """The Ray task of `--probe`: llmptx-runner --probe on the GPU Ray gave
    it, with where it ran."""
    record = _started_record()
    folder = tempfile.mkdtemp(prefix='llmptx-ray-')
    try:
        command = _shim(_write_runner(runner, folder)) + list(
            runner_args) + ['--probe']
        record.update(_run_runner(command, folder, timeout))
        return record
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_bundle(runner: bytes, bundle: bytes, bundle_name: str,
               runner_args: List[str],
               timeout: float) -> Iterator[Dict[str, Any]]:
    """The Ray task: where it started, then the outcome of llmptx-runner on
    `bundle` (saved as `bundle_name`) with `runner_args` before it."""
    yield _started_record()
    started = time.monotonic()
    folder = tempfile.mkdtemp(prefix='llmptx-ray-')
    try:
        runner_path = _write_runner(runner, folder)
        bundle_path = os.path.join(folder, os.path.basename(bundle_name))
        with open(bundle_path, 'wb') as handle:
            handle.write(bundle)
        results_path = os.path.join(folder, 'results.json')
        command = _shim(runner_path) + list(runner_args) + [
            bundle_path, '-o', results_path]
        outcome = _run_runner(command, folder, timeout)
        results: Optional[str] = None
        if outcome['kind'] == RAN and os.path.exists(results_path):
            with open(results_path, encoding='utf-8') as handle:
                results = handle.read()
        if outcome['kind'] == RAN and results is None:
            outcome['kind'] = REJECTED
        outcome['results'] = results
        outcome['bundle_path'] = bundle_path
        outcome['gpu'] = _gpu_identity()
        outcome['seconds'] = time.monotonic() - started
        yield outcome
    finally:
        shutil.rmtree(folder, ignore_errors=True)
