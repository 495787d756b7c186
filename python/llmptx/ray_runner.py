#===- ray_runner.py - llmptx-runner fanned out over a Ray cluster ---------===#
"""Runs verification bundles on the GPUs of a Ray cluster, one task a bundle.

    llmptx-ray-runner [options] BUNDLE.json... -o RESULTS.json

takes the command line of llmptx-runner, so it is a `runner` for llm-lower
(`runner="llmptx-ray-runner ..."` or LLMPTX_RUNNER). It connects to the
cluster at --address or RAY_ADDRESS, or starts a local one when neither is
given, and submits one Ray task per bundle that asks for one GPU. The
llmptx-runner binary and each bundle travel through Ray's object store;
each task writes them to a private folder on its node and runs the runner
on that one bundle, so a bundle's reference and candidates are always run
and timed on the same GPU in the same task (llmptx.ray_worker).

The results of the tasks are merged, in the order of the bundles given,
into one results file with the content llmptx-runner writes for the same
bundles, each bundle's record naming where it ran (`placement`: host, Ray
node, worker, GPU). A task that dies (its worker killed, its node lost, the
runner killed by a signal, past --task-timeout) is tried again on another
node where there is one, --retries times; a bundle that never ran to the
end gets a bundle error, as llmptx-runner reports a bundle whose reference
could not run, never a verdict.

Exit status as llmptx-runner's: 0 every bundle ran, 1 bad usage, a bundle
error or a failure, 2 no usable GPU (no alive node offers what a task asks
for, or every node's runner found none). docs/ray.md.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, NoReturn, Optional, Sequence

from llmptx import ray_worker
from llmptx.tools import ToolNotFound, find_tool

PROG = 'llmptx-ray-runner'
RESULTS_FORMAT = 'llmptx-verification-results'
PLACEMENT_FORMAT = 'llmptx-ray-placement'

# How long past --task-timeout the driver waits for a task that stopped
# answering before it cancels it (the task kills its runner at the limit).
_CANCEL_GRACE_S = 30.0
# How long --probe waits for its task: llm-lower gives the probe 60 s, a
# local cluster started on demand included.
_PROBE_TIMEOUT_S = 40.0
# How often the cluster's nodes are looked at while tasks wait for one.
_CAPACITY_POLL_S = 2.0
# Ray's label for a node's id, which label selectors can exclude.
_NODE_ID_LABEL = 'ray.io/node-id'


class RayRunnerError(Exception):
    """What ends the command: the message, and the exit status (1, or 2 for
    no usable GPU)."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class RunnerSettings:
    """Everything one call was asked to do."""
    bundles: Sequence[str]
    output: Optional[str]
    probe: bool
    address: Optional[str]
    runner: str
    runner_args: Sequence[str]
    gpus_per_task: float
    cpus_per_task: float
    task_timeout: float
    retries: int
    wait_for_gpus: float
    placement_file: Optional[str]


class _ArgumentParser(argparse.ArgumentParser):
    """argparse that reports bad usage through the one error handler, with
    status 1: status 2 means "no GPU" to llm-lower."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise RayRunnerError(message)


def parse_arguments(argv: Optional[List[str]]) -> RunnerSettings:
    parser = _ArgumentParser(
        prog=PROG, description=__doc__.splitlines()[0],
        epilog='Exit status: 0 every bundle ran, 1 bad usage or a bundle '
        'that failed, 2 no usable GPU. docs/ray.md.')
    parser.add_argument('bundles', nargs='*', metavar='BUNDLE.json')
    parser.add_argument('-o', dest='output', metavar='RESULTS.json',
                        help='the merged results')
    parser.add_argument('--probe', action='store_true',
                        help="print the device of one node's GPU as "
                        "llmptx-runner --probe does (chip=auto), and exit")
    parser.add_argument('--address', help='the Ray cluster (default: '
                        '$RAY_ADDRESS; neither: start a local cluster)')
    parser.add_argument('--runner', metavar='PATH',
                        help='the llmptx-runner to ship to the nodes '
                        '(default: on PATH, else build/bin of the checkout)')
    parser.add_argument('--runner-arg', action='append', default=[],
                        metavar='ARG', help="an option for llmptx-runner, "
                        "repeatable (`--runner-arg=--ncu`)")
    parser.add_argument('--num-gpus-per-task', type=float, default=1.0,
                        metavar='N', help='GPUs a task asks Ray for (1; 0 '
                        'for clusters without GPUs, e.g. tests)')
    parser.add_argument('--num-cpus-per-task', type=float, default=1.0,
                        metavar='N', help='CPUs a task asks Ray for (1)')
    parser.add_argument('--task-timeout', type=float, default=1800.0,
                        metavar='SECONDS', help='time limit of one attempt '
                        'from its start on a node (1800; 0: none)')
    parser.add_argument('--retries', type=int, default=1, metavar='N',
                        help='attempts after the first for a task that dies '
                        '(1)')
    parser.add_argument('--wait-for-gpus', type=float, default=0.0,
                        metavar='SECONDS', help='how long tasks may wait '
                        'while no alive node offers what they ask for '
                        '(e.g. for an autoscaler) before the call gives up '
                        '(0)')
    parser.add_argument('--placement-file', metavar='PATH',
                        help='write where each bundle ran to PATH instead '
                        'of into the results (for a reader that predates '
                        'the placement field)')
    args = parser.parse_args(argv)
    missing = [name for name, given in (('BUNDLE.json', args.bundles),
                                        ('-o', args.output)) if not given]
    if missing and not args.probe:
        parser.error('the following arguments are required: ' +
                     ', '.join(missing))
    if args.num_gpus_per_task < 0 or args.num_cpus_per_task < 0:
        parser.error('--num-gpus-per-task and --num-cpus-per-task must not '
                     'be negative')
    if args.retries < 0 or args.task_timeout < 0 or args.wait_for_gpus < 0:
        parser.error('--retries, --task-timeout and --wait-for-gpus must '
                     'not be negative')
    try:
        runner = find_tool('llmptx-runner', explicit=args.runner)
    except ToolNotFound as error:
        raise RayRunnerError(str(error)) from None
    return RunnerSettings(
        bundles=tuple(args.bundles), output=args.output, probe=args.probe,
        address=args.address or os.environ.get('RAY_ADDRESS') or None,
        runner=runner, runner_args=tuple(args.runner_arg),
        gpus_per_task=args.num_gpus_per_task,
        cpus_per_task=args.num_cpus_per_task,
        task_timeout=args.task_timeout, retries=args.retries,
        wait_for_gpus=args.wait_for_gpus,
        placement_file=args.placement_file)


#===----------------------------------------------------------------------===#
# One bundle's tasks
#===----------------------------------------------------------------------===#


@dataclass(eq=False)
class BundleJob:
    """One bundle: what a failure record needs of it, and its attempts."""
    path: str
    data: bytes
    ref: Any = None  # the bundle in the object store
    kernel: str = ''
    reference: str = ''
    candidates: List[str] = field(default_factory=list)
    attempts: int = 0
    failures: List[str] = field(default_factory=list)
    failed_nodes: List[str] = field(default_factory=list)
    last_failure: str = ray_worker.DIED
    # The attempt in flight.
    generator: Any = None
    excluded_nodes: List[str] = field(default_factory=list)
    started: Optional[Dict[str, Any]] = None
    started_at: Optional[float] = None
    cancel_reason: Optional[str] = None
    # How it ended: the outcome of the attempt that ran, or why none did.
    outcome: Optional[Dict[str, Any]] = None
    error: Optional[str] = None

    @classmethod
    def read(cls, path: str) -> 'BundleJob':
        try:
            with open(path, 'rb') as handle:
                data = handle.read()
        except OSError as error:
            raise RayRunnerError('%s: %s' % (path, error.strerror)) from None
        job = cls(path=path, data=data)
        try:
            bundle = json.loads(data)
            job.kernel = str(bundle.get('kernel', ''))
            job.reference = str(bundle.get('reference', {}).get('name', ''))
            job.candidates = [str(candidate.get('name', ''))
                              for candidate in bundle.get('candidates', [])]
        except (ValueError, AttributeError, TypeError):
            pass  # the runner says what is wrong with it
        return job

    def where(self) -> str:
        """"node 3f2a9c1e (gpu-host-4)" of the attempt in flight."""
        if not self.started:
            return 'not started'
        return 'node %s (%s)' % (self.started['node_id'][:8],
                                 self.started['hostname'])


def _describe_task_error(error: BaseException) -> str:
    """A Ray error in a sentence: the worker died, the node was lost, ..."""
    words = {
        'WorkerCrashedError': 'the Ray worker died',
        'NodeDiedError': 'the node was lost',
        'TaskCancelledError': 'the task was cancelled',
        'OutOfMemoryError': 'the node ran out of memory',
        'ObjectLostError': 'its result was lost',
        'OwnerDiedError': 'its result was lost',
    }
    name = type(error).__name__
    if name in words:
        return '%s (%s)' % (words[name], name)
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    return '%s: %s' % (name, lines[-1][:300] if lines else 'no message')


class ClusterCapacity:
    """The alive nodes of the cluster that can take one task."""

    def __init__(self, ray: Any, settings: RunnerSettings) -> None:
        self.ray = ray
        self.gpus = settings.gpus_per_task
        self.cpus = settings.cpus_per_task
        self.nodes: List[Dict[str, Any]] = []

    def refresh(self) -> None:
        self.nodes = [node for node in self.ray.nodes() if node.get('Alive')]

    def fitting(self) -> List[str]:
        """The ids of the alive nodes whose resources hold one task."""
        return [node['NodeID'] for node in self.nodes
                if node['Resources'].get('GPU', 0) >= self.gpus and
                node['Resources'].get('CPU', 0) >= self.cpus]

    def wait(self, seconds: float) -> None:
        """Waits up to `seconds` for a node that can take a task; exit
        status 2 when none comes."""
        self.refresh()
        deadline = time.monotonic() + seconds
        while not self.fitting():
            if time.monotonic() >= deadline:
                raise RayRunnerError('no usable GPU: ' + self.describe(),
                                     status=2)
            time.sleep(min(_CAPACITY_POLL_S,
                           max(0.0, deadline - time.monotonic())))
            self.refresh()

    def describe(self) -> str:
        request = '%g GPU(s) and %g CPU(s)' % (self.gpus, self.cpus)
        nodes = ', '.join(
            '%s (%g GPU, %g CPU)' % (node['NodeID'][:8],
                                     node['Resources'].get('GPU', 0),
                                     node['Resources'].get('CPU', 0))
            for node in self.nodes) or 'none'
        return 'no alive node of the Ray cluster offers %s (nodes: %s)' % (
            request, nodes)


class BundleFanOut:
    """The bundles of one call as Ray tasks: submitted at once, watched,
    tried again elsewhere when they die, given up after --retries."""

    def __init__(self, ray: Any, settings: RunnerSettings,
                 jobs: List[BundleJob]) -> None:
        self.ray = ray
        self.settings = settings
        self.jobs = jobs
        self.capacity = ClusterCapacity(ray, settings)
        self.in_flight: Dict[Any, BundleJob] = {}
        self.capacity_checked = 0.0
        self.no_capacity_since: Optional[float] = None
        # The runner and the bundles go to the nodes through the object
        # store: put once here, fetched by each node that runs a task.
        with open(settings.runner, 'rb') as handle:
            self.runner_ref = ray.put(handle.read())
        for job in jobs:
            job.ref = ray.put(job.data)
        ray.cloudpickle.register_pickle_by_value(ray_worker)
        self.task = ray.remote(ray_worker.run_bundle)

    def run(self) -> None:
        self.capacity.wait(self.settings.wait_for_gpus)
        for job in self.jobs:
            self._submit(job)
        while self.in_flight:
            ready, _ = self.ray.wait(list(self.in_flight), num_returns=1,
                                     timeout=1.0)
            for generator in ready:
                job = self.in_flight.pop(generator)
                if self._read_item(job):
                    self.in_flight[generator] = job
            self._watch_deadlines()
            self._watch_capacity()

    def _submit(self, job: BundleJob, new_attempt: bool = True) -> None:
        """Starts an attempt of `job`, away from the nodes where earlier
        attempts failed when another node can take it."""
        if new_attempt:
            job.attempts += 1
        elsewhere = [node for node in self.capacity.fitting()
                     if node not in job.failed_nodes]
        job.excluded_nodes = list(job.failed_nodes) if elsewhere else []
        options: Dict[str, Any] = dict(
            num_gpus=self.settings.gpus_per_task,
            num_cpus=self.settings.cpus_per_task, max_retries=0,
            num_returns='streaming',
            name='llmptx-runner %s' % os.path.basename(job.path))
        if job.excluded_nodes:
            options['label_selector'] = {
                _NODE_ID_LABEL: '!in(%s)' % ','.join(job.excluded_nodes)}
        job.generator = self.task.options(**options).remote(
            self.runner_ref, job.ref, job.path,
            list(self.settings.runner_args), self.settings.task_timeout)
        job.started = job.started_at = job.cancel_reason = None
        self.in_flight[job.generator] = job

    def _read_item(self, job: BundleJob) -> bool:
        """Takes the next item of `job`'s task; True while it has more."""
        try:
            item = self.ray.get(next(job.generator))
        except StopIteration:
            self._attempt_failed(job, 'the task ended without an outcome')
            return False
        except Exception as error:  # Ray's errors, and what the task raised
            self._attempt_failed(job, job.cancel_reason or
                                 _describe_task_error(error))
            return False
        if job.started is None:
            job.started, job.started_at = item, time.monotonic()
            return True
        self._attempt_finished(job, item)
        return False

    def _attempt_finished(self, job: BundleJob,
                          outcome: Dict[str, Any]) -> None:
        kind = outcome['kind']
        if kind == ray_worker.RAN:
            job.outcome = outcome
        elif kind == ray_worker.REJECTED:
            # A bundle the runner refuses is refused on every node.
            job.outcome = outcome
            job.error = 'the runner rejected the bundle on %s: %s' % (
                job.where(), _last_lines(outcome.get('log', '')))
        elif kind == ray_worker.NO_GPU:
            self._attempt_failed(job, _last_lines(outcome.get('log', ''), 1)
                                 or 'the runner found no GPU',
                                 ray_worker.NO_GPU)
        else:
            log = _last_lines(outcome.get('log', ''))
            self._attempt_failed(job, outcome['reason'] +
                                 (': ' + log if log else ''), kind)

    def _attempt_failed(self, job: BundleJob, reason: str,
                        kind: str = ray_worker.DIED) -> None:
        """Records why the attempt in flight ended; tries again while
        attempts remain, elsewhere when it can."""
        job.failures.append('attempt %d on %s: %s' % (job.attempts,
                                                      job.where(), reason))
        job.last_failure = kind
        if job.started and job.started['node_id'] not in job.failed_nodes:
            job.failed_nodes.append(job.started['node_id'])
        if job.attempts <= self.settings.retries:
            self.capacity.refresh()
            self._submit(job)
            return
        job.error = ('no attempt ran to the end (%d of %d): %s' %
                     (job.attempts, job.attempts, '; '.join(job.failures)))

    def _watch_deadlines(self) -> None:
        """Cancels attempts that ran past --task-timeout and stopped
        answering (the task kills its runner at the limit itself)."""
        if self.settings.task_timeout <= 0:
            return
        limit = self.settings.task_timeout + _CANCEL_GRACE_S
        now = time.monotonic()
        for generator, job in self.in_flight.items():
            if (job.started_at is not None and job.cancel_reason is None and
                    now - job.started_at > limit):
                job.cancel_reason = ('ran past the task time limit (%g s) '
                                     'and was cancelled' %
                                     self.settings.task_timeout)
                self.ray.cancel(generator, force=True)

    def _watch_capacity(self) -> None:
        """Tasks that wait for a node: a task kept from every node that can
        take it is submitted again without that restriction; when no node
        can take any, the waiting ones fail after --wait-for-gpus."""
        now = time.monotonic()
        waiting = [job for job in self.in_flight.values()
                   if job.started is None]
        if not waiting or now - self.capacity_checked < _CAPACITY_POLL_S:
            return
        self.capacity_checked = now
        self.capacity.refresh()
        fitting = self.capacity.fitting()
        for job in waiting:
            if job.excluded_nodes and fitting and all(
                    node in job.excluded_nodes for node in fitting):
                self._replace_attempt(job)
        if fitting:
            self.no_capacity_since = None
            return
        if self.no_capacity_since is None:
            self.no_capacity_since = now
        if now - self.no_capacity_since < self.settings.wait_for_gpus:
            return
        for job in waiting:
            self.in_flight.pop(job.generator, None)
            self.ray.cancel(job.generator)
            job.failures.append('attempt %d: %s' % (
                job.attempts, self.capacity.describe()))
            job.last_failure = ray_worker.NO_GPU
            job.error = 'no attempt ran to the end: ' + '; '.join(
                job.failures)

    def _replace_attempt(self, job: BundleJob) -> None:
        """Submits the waiting attempt of `job` again, allowed anywhere."""
        self.in_flight.pop(job.generator, None)
        self.ray.cancel(job.generator)
        job.failed_nodes = []
        self._submit(job, new_attempt=False)


def _last_lines(log: str, count: int = 3) -> str:
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    return ' / '.join(lines[-count:])


#===----------------------------------------------------------------------===#
# The merged results
#===----------------------------------------------------------------------===#


def _placement(job: BundleJob, device: Optional[Dict[str, Any]],
               merged_device: Dict[str, Any]) -> Dict[str, Any]:
    """Where `job`'s last attempt ran: host, Ray node, worker, GPU."""
    placement: Dict[str, Any] = {}
    started = job.started or {}
    for key in ('hostname', 'node_id', 'node_ip', 'worker_pid',
                'cuda_visible_devices'):
        if key in started:
            placement[key] = started[key]
    gpu = (job.outcome or {}).get('gpu') or {}
    name = (device or {}).get('name') or gpu.get('name')
    if name:
        placement['gpu'] = name
    if gpu.get('uuid'):
        placement['gpu_uuid'] = gpu['uuid']
    if device and device != merged_device:
        placement['device'] = device
    placement['attempts'] = job.attempts
    if job.failures:
        placement['failures'] = list(job.failures)
    if job.outcome and 'seconds' in job.outcome:
        placement['task_seconds'] = round(job.outcome['seconds'], 3)
    return placement


def _failure_record(job: BundleJob) -> Dict[str, Any]:
    """A bundle that never ran, as llmptx-runner writes a bundle whose
    reference could not run: an error and no verdicts."""
    return {'bundle': job.path, 'kernel': job.kernel,
            'reference': job.reference, 'error': job.error,
            'wall_seconds': 0.0,
            'candidates': [{'name': name, 'verdict': 'skipped',
                            'shapes': []} for name in job.candidates]}


def _merge_notes(notes: List[str]) -> str:
    """One note from the tasks': the parts of each in order, those that
    every task says alike (no compute-sanitizer, no ptxas) once."""
    parts: List[str] = []
    for note in notes:
        for part in note.split('; '):
            if part and part not in parts:
                parts.append(part)
    return '; '.join(parts)


class ResultsMerge:
    """The tasks' results as the one file llmptx-runner would write."""

    def __init__(self, jobs: List[BundleJob]) -> None:
        self.jobs = jobs
        # The job of each record of the merged results.
        self.owners: List[BundleJob] = []
        self.parsed: List[Optional[Dict[str, Any]]] = []
        for job in jobs:
            self.parsed.append(self._parse(job))

    @staticmethod
    def _parse(job: BundleJob) -> Optional[Dict[str, Any]]:
        if job.error is not None or not job.outcome:
            return None
        # The runner names the bundle by the path it was given, the task's
        # private copy; the merged results name the path this call was given.
        text = (job.outcome.get('results') or '').replace(
            json.dumps(job.outcome['bundle_path'])[1:-1],
            json.dumps(job.path)[1:-1])
        try:
            results = json.loads(text)
        except ValueError as error:
            job.error = 'unreadable results from the runner on %s: %s' % (
                job.where(), error)
            return None
        if not isinstance(results, dict) or results.get(
                'format') != RESULTS_FORMAT:
            job.error = 'the runner on %s wrote no %s' % (job.where(),
                                                         RESULTS_FORMAT)
            return None
        if not results.get('bundles'):
            job.error = 'the runner on %s wrote no record of the bundle' % (
                job.where())
            return None
        return results

    @staticmethod
    def _top_level(ran: List[Dict[str, Any]]) -> Dict[str, Any]:
        """The device of the first bundle that ran (each bundle's own, when
        it differs, is in its placement), and the tasks' notes merged."""
        first = ran[0] if ran else {}
        merged: Dict[str, Any] = {
            'format': first.get('format', RESULTS_FORMAT),
            'version': first.get('version', 1),
            'device': first.get('device', {
                'name': '', 'chip': '', 'sm': 0, 'l2_bytes': 0,
                'memory_bytes': 0, 'multiprocessors': 0,
                'driver_version': 0}),
            'sanitizer': {'ran': any(r.get('sanitizer', {}).get('ran', False)
                                     for r in ran)}}
        note = _merge_notes([r.get('sanitizer', {}).get('note', '')
                             for r in ran])
        if note:
            merged['sanitizer']['note'] = note
        for key in ('sass_note', 'ncu_note'):
            note = _merge_notes([r.get(key, '') for r in ran])
            if note:
                merged[key] = note
        return merged

    def merged(self) -> Dict[str, Any]:
        """The merged results, each bundle's record with its placement."""
        merged = self._top_level([results for results in self.parsed
                                  if results is not None])
        device = merged['device']
        bundles = []
        self.owners = []
        for job, results in zip(self.jobs, self.parsed):
            records = results['bundles'] if results else [_failure_record(job)]
            own_device = results.get('device') if results else None
            for record in records:
                record['placement'] = _placement(job, own_device, device)
                bundles.append(record)
                self.owners.append(job)
        merged['bundles'] = bundles
        return merged


#===----------------------------------------------------------------------===#
# The command
#===----------------------------------------------------------------------===#


def _connect(settings: RunnerSettings) -> Any:
    """Ray, connected to the cluster asked for or to a new local one."""
    try:
        import ray
    except ImportError:
        raise RayRunnerError("Ray is not installed in this Python (%s): "
                             "pip install 'llmptx[ray]'" % sys.executable)
    # What the raylets say of a dead worker reaches the driver's output; no
    # colour codes in a log that llm-lower keeps.
    os.environ.setdefault('RAY_COLOR_PREFIX', '0')
    common: Dict[str, Any] = dict(logging_level=logging.ERROR,
                                  log_to_driver=False)
    try:
        if settings.address:
            ray.init(address=settings.address, **common)
        else:
            ray.init(address='local', include_dashboard=False, **common)
    except Exception as error:  # ConnectionError, RuntimeError, ...
        raise RayRunnerError('cannot %s: %s' % (
            'connect to the Ray cluster at %s' % settings.address
            if settings.address else 'start a local Ray cluster',
            _last_lines(str(error), 1))) from None
    return ray


def _write_json(path: str, value: Any) -> None:
    """Writes `value` as llmptx-runner writes JSON (two-space indent,
    UTF-8, a final newline), atomically."""
    folder = os.path.dirname(os.path.abspath(path))
    handle = tempfile.NamedTemporaryFile('w', encoding='utf-8', dir=folder,
                                         prefix='.ray-runner-', delete=False)
    try:
        with handle:
            handle.write(json.dumps(value, indent=2, ensure_ascii=False) +
                         '\n')
        os.replace(handle.name, path)
    except OSError as error:
        os.unlink(handle.name)
        raise RayRunnerError('cannot write %s: %s' % (path, error.strerror))


def _report(owners: List[BundleJob], records: List[Dict[str, Any]],
            placements: List[Dict[str, Any]]) -> None:
    """Per bundle where it ran and what its runner said; errors on stderr."""
    said = set()
    for job, record, placement in zip(owners, records, placements):
        print('%s: %s on %s (node %s, GPU %s, CUDA_VISIBLE_DEVICES=%s), '
              'attempt %d' % (
                  record['bundle'], record.get('kernel', ''),
                  placement.get('hostname', '-'),
                  placement.get('node_id', '-')[:8],
                  placement.get('gpu', '-'),
                  placement.get('cuda_visible_devices', '') or '-',
                  placement['attempts']))
        if job.outcome and id(job) not in said:
            said.add(id(job))
            for line in job.outcome.get('log', '').rstrip().splitlines():
                print('  ' + line)
    sys.stdout.flush()
    for record in records:
        if record.get('error'):
            print('%s: error: %s: %s' % (PROG, record['bundle'],
                                         record['error']), file=sys.stderr)


def run_probe(ray: Any, settings: RunnerSettings) -> int:
    """--probe: llmptx-runner --probe in one task that asks for what a
    bundle's task asks for; its output, the node it ran on, its status."""
    ClusterCapacity(ray, settings).wait(settings.wait_for_gpus)
    ray.cloudpickle.register_pickle_by_value(ray_worker)
    task = ray.remote(ray_worker.probe).options(
        num_gpus=settings.gpus_per_task, num_cpus=settings.cpus_per_task,
        max_retries=settings.retries, name='llmptx-runner --probe')
    with open(settings.runner, 'rb') as handle:
        ref = task.remote(handle.read(), list(settings.runner_args),
                          _PROBE_TIMEOUT_S)
    ready, _ = ray.wait([ref], timeout=_PROBE_TIMEOUT_S + 5)
    if not ready:
        ray.cancel(ref, force=True)
        raise RayRunnerError('the probe task did not answer within %g s' %
                             (_PROBE_TIMEOUT_S + 5))
    try:
        record = ray.get(ref)
    except Exception as error:  # Ray's errors, and what the task raised
        raise RayRunnerError('the probe task failed: ' +
                             _describe_task_error(error)) from None
    sys.stdout.write(record.get('log', ''))
    print('ray node: %s (%s), CUDA_VISIBLE_DEVICES=%s' % (
        record['node_id'], record['hostname'],
        record['cuda_visible_devices'] or '-'))
    sys.stdout.flush()
    if record['kind'] in (ray_worker.DIED, ray_worker.TIMEOUT):
        raise RayRunnerError('the probe: ' + record['reason'])
    return int(record['status'])


def run(settings: RunnerSettings) -> int:
    jobs = [BundleJob.read(path) for path in settings.bundles]
    ray = _connect(settings)
    try:
        if settings.probe:
            status = run_probe(ray, settings)
            if not jobs or status != 0:
                return status
        BundleFanOut(ray, settings, jobs).run()
    finally:
        ray.shutdown()
    if all(job.last_failure == ray_worker.NO_GPU and job.outcome is None
           for job in jobs):
        raise RayRunnerError('no usable GPU on the nodes that ran the '
                             'tasks: ' + jobs[0].failures[-1], status=2)
    merge = ResultsMerge(jobs)
    merged = merge.merged()
    records = merged['bundles']
    assert settings.output is not None  # parse_arguments requires it
    placements = [record['placement'] for record in records]
    if settings.placement_file:
        for record in records:
            del record['placement']
        _write_json(settings.placement_file, {
            'format': PLACEMENT_FORMAT, 'version': 1,
            'bundles': [{'bundle': record['bundle'], 'placement': placement}
                        for record, placement in zip(records, placements)]})
    _write_json(settings.output, merged)
    _report(merge.owners, records, placements)
    return 1 if any(record.get('error') for record in records) else 0


def main(argv: Optional[List[str]] = None) -> int:
    try:
        return run(parse_arguments(argv))
    except RayRunnerError as error:
        print('%s: error: %s' % (PROG, error), file=sys.stderr)
        return error.status
    except KeyboardInterrupt:
        print('%s: error: interrupted' % PROG, file=sys.stderr)
        return 1
    except Exception as error:  # never a traceback: say what went wrong
        print('%s: error: internal error: %s: %s' % (
            PROG, type(error).__name__, error), file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
