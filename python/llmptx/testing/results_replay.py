"""A `runner` for llm-lower that answers from results computed elsewhere.

Verification by execution in two steps, for a GPU that llm-lower cannot
reach with a command (a batch queue, another site):

 1. llmptx-opt ... --llm-lower="... emit-bundles=B" writes the bundles;
 2. on the GPU machine: llmptx-runner B/*.json -o results.json, and bring
    results.json back next to a copy of the bundles it ran;
 3. llmptx-opt ... --llm-lower="... verify=exec emit-bundles=B2
        runner='python3 -m llmptx.testing.results_replay --results results.json
                --ran B'"

llm-lower appends the bundle paths and `-o OUT`. Each bundle must be
byte-identical to the one of the same name in --ran (same kernels, same
candidates), otherwise this exits with status 1 and says which differs, so
stale results are never applied. The results of the bundles asked for are
written to OUT.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import sys
from typing import Any, Dict, List, Mapping, Optional


class ReplayError(Exception):
    """A bundle has no recorded results, or differs from the one that ran."""


def digest(data: bytes) -> str:
    """What identifies a bundle that ran: the SHA-256 of its bytes."""
    return hashlib.sha256(data).hexdigest()


def digests_of_folder(folder: str) -> Dict[str, str]:
    """The digest of every file of `folder` (the bundles that ran), by name."""
    digests = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            with open(path, 'rb') as handle:
                digests[name] = digest(handle.read())
    return digests


def replay(results: Mapping[str, Any], ran: Mapping[str, str],
           bundle_paths: List[str]) -> Dict[str, Any]:
    """The recorded `results` narrowed to `bundle_paths`, in their order,
    each entry naming its bundle by the path given. `ran` maps the name of
    each bundle that ran to its digest; a bundle whose bytes differ, or that
    has no recorded results, raises ReplayError."""
    by_name = {}
    for bundle in results.get('bundles', []):
        by_name[os.path.basename(bundle.get('bundle', ''))] = bundle
    kept = []
    for path in bundle_paths:
        name = os.path.basename(path)
        if name not in ran or name not in by_name:
            raise ReplayError('no results for %s' % name)
        with open(path, 'rb') as handle:
            if digest(handle.read()) != ran[name]:
                raise ReplayError('%s differs from the bundle that was run '
                                  '(%s); run it again' % (path, name))
        entry = copy.deepcopy(by_name[name])
        entry['bundle'] = path
        kept.append(entry)
    replayed = dict(copy.deepcopy(dict(results)))
    replayed['bundles'] = kept
    return replayed


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--results', required=True,
                        help='results.json written by llmptx-runner')
    parser.add_argument('--ran', required=True,
                        help='directory holding the bundles that were run')
    parser.add_argument('-o', dest='output', required=True)
    parser.add_argument('bundles', nargs='+')
    args = parser.parse_args(argv)

    with open(args.results) as handle:
        results = json.load(handle)
    try:
        replayed = replay(results, digests_of_folder(args.ran), args.bundles)
    except ReplayError as error:
        print('results_replay: %s' % error, file=sys.stderr)
        return 1
    with open(args.output, 'w') as out:
        json.dump(replayed, out, indent=2)
    return 0


if __name__ == '__main__':
    sys.exit(main())
