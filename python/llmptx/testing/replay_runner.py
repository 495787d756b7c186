"""A stand-in for the llmptx-runner binary that answers from recorded results.

    python3 -m llmptx.testing.replay_runner --results R --ran B -o STANDIN \\
        [--state DIR] [--kill-worker-once K] [--kill-worker-always K]
        [--crash-once K] [--hang-once K]

writes STANDIN, an executable script that is run like llmptx-runner
(`STANDIN [runner options] BUNDLE... -o OUT`, or `--probe`, which prints
the recorded device) and writes the recorded
results of its bundles, with results_replay's check: each bundle must be
byte-identical to the one of its name that ran (B). The recorded results
and the digests of B are inside the script, so it travels alone, as the
binary does: llmptx-ray-runner ships it to its Ray workers through the
object store. It runs with the Python that wrote it and imports this
package.

Faults, for the tests of a runner that must survive them, by kernel name
(the bundle's "kernel"); "once" means the first run of that kernel's bundle
that finds no marker in --state, which every run of the stand-in shares:
  --kill-worker-once K / --kill-worker-always K: SIGKILL the process that
      started the stand-in (a Ray worker) before answering;
  --crash-once K: die of SIGSEGV;
  --hang-once K: sleep for an hour.
Each run appends one JSON line to DIR/runs.jsonl (kernel, pid, parent pid,
host, the folder the stand-in and its bundle were in, CUDA_VISIBLE_DEVICES,
the fault it played), so a test can see where every attempt ran.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import stat
import sys
import time
from typing import Any, Dict, List, Optional, Tuple

from llmptx.testing.results_replay import (ReplayError, digests_of_folder,
                                           replay)

FAULTS = ('kill-worker-once', 'kill-worker-always', 'crash-once',
          'hang-once')

_SCRIPT = '''#!%(python)s
# A recorded-results stand-in for llmptx-runner, written by
# `python3 -m llmptx.testing.replay_runner`; it answers only for the bundles
# that ran, byte for byte.
import json
import sys

from llmptx.testing.replay_runner import stand_in_main

sys.exit(stand_in_main(json.loads(%(config)r), sys.argv[1:]))
'''


def _claim_marker(state: Optional[str], name: str) -> bool:
    """True the first time `name` is claimed in `state` (atomically)."""
    if not state:
        return True
    try:
        os.close(os.open(os.path.join(state, name),
                         os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except FileExistsError:
        return False
    return True


def _fault_for(config: Dict[str, Any], kernel: str) -> Optional[str]:
    """The fault this run plays for `kernel`, claiming its marker."""
    for fault in FAULTS:
        if kernel not in config['faults'].get(fault, []):
            continue
        if fault.endswith('-always') or _claim_marker(
                config.get('state'), '%s.%s' % (fault, kernel)):
            return fault
    return None


def _log_run(config: Dict[str, Any], kernel: str, bundle: str,
             fault: Optional[str]) -> None:
    state = config.get('state')
    if not state:
        return
    record = {'kernel': kernel, 'pid': os.getpid(), 'ppid': os.getppid(),
              'host': socket.gethostname(),
              'runner_dir': os.path.dirname(os.path.abspath(sys.argv[0])),
              'bundle_dir': os.path.dirname(os.path.abspath(bundle)),
              'cuda_visible_devices': os.environ.get('CUDA_VISIBLE_DEVICES'),
              'fault': fault}
    with open(os.path.join(state, 'runs.jsonl'), 'a') as handle:
        handle.write(json.dumps(record) + '\n')


def _play(fault: Optional[str]) -> None:
    if fault in ('kill-worker-once', 'kill-worker-always'):
        os.kill(os.getppid(), signal.SIGKILL)
        os._exit(137)
    if fault == 'crash-once':
        os.kill(os.getpid(), signal.SIGSEGV)
    if fault == 'hang-once':
        time.sleep(3600)


def _split_arguments(argv: List[str]) -> Tuple[List[str], Optional[str]]:
    """(bundles, output): llmptx-runner's options other than -o are
    accepted and ignored."""
    bundles: List[str] = []
    output: Optional[str] = None
    i = 0
    while i < len(argv):
        if argv[i] == '-o' and i + 1 < len(argv):
            output = argv[i + 1]
            i += 2
            continue
        if not argv[i].startswith('-'):
            bundles.append(argv[i])
        i += 1
    return bundles, output


def stand_in_main(config: Dict[str, Any], argv: List[str]) -> int:
    """What the written script runs: llmptx-runner's command line, answered
    from config['results'] for bundles whose digest config['ran'] holds."""
    bundles, output = _split_arguments(argv)
    if '--probe' in argv:
        # As llmptx-runner --probe: the device the results were measured on.
        device = config['results'].get('device', {})
        print('device 0: %s\nchip: %s' % (device.get('name', ''),
                                           device.get('chip', '')))
        if not bundles:
            return 0
    if not bundles or output is None:
        print('usage: STANDIN BUNDLE.json... -o results.json',
              file=sys.stderr)
        return 1
    for path in bundles:
        try:
            with open(path) as handle:
                kernel = str(json.load(handle).get('kernel', ''))
        except (OSError, ValueError) as error:
            print('replay_runner: error: %s: %s' % (path, error),
                  file=sys.stderr)
            return 1
        fault = _fault_for(config, kernel)
        _log_run(config, kernel, path, fault)
        _play(fault)
    try:
        replayed = replay(config['results'], config['ran'], bundles)
    except ReplayError as error:
        print('replay_runner: error: %s' % error, file=sys.stderr)
        return 1
    with open(output, 'w') as out:
        json.dump(replayed, out, indent=2)
    print('replay_runner: %d bundle(s) answered from recorded results' %
          len(bundles))
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--results', required=True,
                        help='results.json written by llmptx-runner')
    parser.add_argument('--ran', required=True,
                        help='directory holding the bundles that were run')
    parser.add_argument('-o', dest='output', required=True,
                        help='the stand-in script to write')
    parser.add_argument('--state', metavar='DIR',
                        help='folder for the once-markers and runs.jsonl')
    for fault in FAULTS:
        parser.add_argument('--' + fault, action='append', default=[],
                            metavar='KERNEL')
    args = parser.parse_args(argv)

    with open(args.results) as handle:
        results = json.load(handle)
    faults = {fault: getattr(args, fault.replace('-', '_'))
              for fault in FAULTS}
    if any(faults.values()) and not args.state:
        parser.error('faults need --state')
    config = {'results': results, 'ran': digests_of_folder(args.ran),
              'faults': faults,
              'state': os.path.abspath(args.state) if args.state else None}
    if args.state:
        os.makedirs(args.state, exist_ok=True)
    with open(args.output, 'w') as out:
        out.write(_SCRIPT % {'python': sys.executable,
                             'config': json.dumps(config)})
    mode = os.stat(args.output).st_mode
    os.chmod(args.output, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return 0


if __name__ == '__main__':
    sys.exit(main())
