"""Writes the verification bundle of every suite kernel (NVPTX reference and
the curated candidate), for llmptx-runner on a GPU machine:

    llmptx-suite-bundles [--build build | --opt LLMPTX_OPT]
        [--out docs/suite/bundles]

then, where the GPU is:

    llmptx-runner docs/suite/bundles/*.bundle.json -o results.json

Each bundle is the one llm-lower builds (verify=exec, emit-bundles) with
the curated answer as candidate. A kernel without an answer yet (no
`<kernel>.txt` in the answers folder) has no candidate and so no bundle:
it is named and skipped.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
from typing import List, Optional, Tuple

from llmptx import files
from llmptx.cli import ToolError, run_main
from llmptx.suite import export
from llmptx.tools import ToolNotFound, build_bin, find_tool


def emit_bundle(opt: str, mlir_path: str, answers: str, workdir: str,
                lower_options: str = export.LOWER_OPTIONS
                ) -> Tuple[Optional[str], str]:
    """Runs llm-lower (verify=exec, emit-bundles=WORKDIR, no runner) on
    `mlir_path` with the answers of directory `answers` as the model's.
    The bundle's path (None when llm-lower wrote none) and llm-lower's
    messages; raises ExportError when llmptx-opt fails."""
    env = dict(os.environ)
    # The scripted model runs on this interpreter, which has the package.
    env['LLMPTX_EXEC_COMMAND'] = (
        '%s -m llmptx.testing.scripted_model --answers %s' %
        (sys.executable, answers))
    env['LLMPTX_RUNNER'] = 'false'
    options = ('%s provider=exec model=curated cache=off repairs=0 '
               'verify=exec select=llm emit-bundles=%s' %
               (lower_options, workdir))
    proc = subprocess.run([opt, mlir_path, '--llm-lower=' + options, '-o',
                           os.devnull], capture_output=True, text=True,
                          env=env)
    if proc.returncode != 0:
        raise export.ExportError('%s: llmptx-opt failed:\n%s' %
                                 (mlir_path, proc.stderr.strip()))
    found = glob.glob(os.path.join(workdir, '*.bundle.json'))
    return found[0] if found else None, proc.stderr


def make_bundle(opt: str, mlir_path: str, answers: str, outdir: str) -> str:
    name = os.path.basename(mlir_path)[:-len('.mlir')]
    with tempfile.TemporaryDirectory() as work:
        path, log = emit_bundle(opt, mlir_path, answers, work)
        if path is None:
            raise export.ExportError('%s: llm-lower wrote no bundle:\n%s'
                                     % (mlir_path, log.strip()))
        with open(path) as handle:
            bundle = json.load(handle)
    bundle['comment'] = ('built by llm-lower (verify=exec, emit-bundles) from '
                         'docs/suite/kernels/%s.mlir with the curated answer'
                         % name)
    target = os.path.join(outdir, '%s.bundle.json' % name)
    files.write_text(target, json.dumps(bundle, indent=1, sort_keys=True) +
                     '\n')
    return target


def main(argv: Optional[List[str]] = None) -> int:
    return run_main('llmptx-suite-bundles', lambda: _main(argv))


def _main(argv: Optional[List[str]]) -> int:
    parser = argparse.ArgumentParser(prog='llmptx-suite-bundles',
                                     description=__doc__.splitlines()[0])
    parser.add_argument('--build',
                        help='build directory with bin/llmptx-opt (default: '
                        'llmptx-opt on PATH, else build/bin of the checkout)')
    parser.add_argument('--opt', help='the llmptx-opt to run (a path or a '
                        'command on PATH)')
    parser.add_argument('--kernels', default='docs/suite/kernels')
    parser.add_argument('--answers', default='docs/suite/answers')
    parser.add_argument('--out', default='docs/suite/bundles')
    args = parser.parse_args(argv)
    try:
        opt = find_tool('llmptx-opt', build_bin(args.build), args.opt)
    except ToolNotFound as error:
        raise ToolError(str(error), 2)
    os.makedirs(args.out, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(args.kernels, '*.mlir'))):
        name = os.path.basename(path)[:-len('.mlir')]
        if not os.path.exists(os.path.join(args.answers, name + '.txt')):
            print('%s: no answer in %s, no bundle' % (name, args.answers))
            continue
        try:
            target = make_bundle(opt, path, args.answers, args.out)
        except (export.ExportError, OSError, json.JSONDecodeError) as err:
            raise ToolError(str(err))
        print(os.path.basename(target))
    return 0


if __name__ == '__main__':
    sys.exit(main())
