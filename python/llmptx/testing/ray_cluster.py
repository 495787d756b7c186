"""A Ray cluster on this machine for as long as one command runs.

    python3 -m llmptx.testing.ray_cluster [--nodes N] [--cpus-per-node C]
        [--gpus-per-node G] -- COMMAND [ARG...]

starts a head node that runs no tasks and N worker nodes (separate raylets
on loopback, each a Ray node with its own id) of C CPUs and G GPUs each,
runs COMMAND with RAY_ADDRESS naming the cluster, stops the cluster and
exits with COMMAND's status. The GPUs are Ray resources only: Ray schedules
`num_gpus` tasks on them and sets CUDA_VISIBLE_DEVICES, so the tests of
llmptx-ray-runner run its GPU path on a machine without one; what runs
there must not touch a GPU (the recorded-results stand-in of
llmptx.testing.replay_runner does not). Only the processes this cluster
started are stopped, never another Ray on the machine.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from typing import Any, List, Optional


def _stop_on_sigterm(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--nodes', type=int, default=3)
    parser.add_argument('--cpus-per-node', type=int, default=1)
    parser.add_argument('--gpus-per-node', type=int, default=1)
    parser.add_argument('command', nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ['--'] else args.command
    if not command:
        parser.error('no command to run')

    import ray
    from ray.cluster_utils import Cluster

    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    cluster = Cluster(initialize_head=True, head_node_args={
        'num_cpus': 0, 'num_gpus': 0, 'include_dashboard': False})
    try:
        for _ in range(args.nodes):
            cluster.add_node(num_cpus=args.cpus_per_node,
                             num_gpus=args.gpus_per_node)
        cluster.wait_for_nodes()
        env = dict(os.environ, RAY_ADDRESS=cluster.address)
        return subprocess.run(command, env=env).returncode
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()  # type: ignore[no-untyped-call]


if __name__ == '__main__':
    sys.exit(main())
