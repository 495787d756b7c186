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
import json
import os
import sys
from typing import List, Optional


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
    by_name = {}
    for bundle in results.get('bundles', []):
        by_name[os.path.basename(bundle.get('bundle', ''))] = bundle

    kept = []
    for path in args.bundles:
        name = os.path.basename(path)
        ran = os.path.join(args.ran, name)
        if not os.path.exists(ran) or name not in by_name:
            print('results_replay: no results for %s' % name, file=sys.stderr)
            return 1
        with open(path, 'rb') as mine, open(ran, 'rb') as theirs:
            if mine.read() != theirs.read():
                print('results_replay: %s differs from the bundle that was '
                      'run (%s); run it again' % (path, ran), file=sys.stderr)
                return 1
        entry = dict(by_name[name])
        entry['bundle'] = path
        kept.append(entry)

    results['bundles'] = kept
    with open(args.output, 'w') as out:
        json.dump(results, out, indent=2)
    return 0


if __name__ == '__main__':
    sys.exit(main())
