"""Writes the verification bundle of every suite kernel (NVPTX reference and
the curated candidate), for llmptx-runner on a GPU machine:

    python -m llmptx.suite.bundles [--build build | --opt LLMPTX_OPT]
        [--out docs/suite/bundles]

then, where the GPU is:

    llmptx-runner docs/suite/bundles/*.bundle.json -o results.json

Each bundle is the one llm-lower builds (verify=exec, emit-bundles) with
the curated answer as candidate.
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

from llmptx.suite import export

def emit_bundle(opt, mlir_path, answers, workdir,
                lower_options=export.LOWER_OPTIONS):
    """Runs llm-lower (verify=exec, emit-bundles=WORKDIR, no runner) on
    `mlir_path` with the answers of directory `answers` as the model's.
    The bundle's path (None when llm-lower wrote none) and llm-lower's
    messages; raises ExportError when llmptx-opt fails."""
    env = dict(os.environ)
    env['LLMPTX_EXEC_COMMAND'] = '%s -m llmptx.scripted_model --answers %s' % (
        sys.executable, answers)
    env['LLMPTX_RUNNER'] = 'false'
    # The scripted model is this package: found whatever the caller's path.
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    env['PYTHONPATH'] = os.pathsep.join(
        [package_root] +
        [p for p in env.get('PYTHONPATH', '').split(os.pathsep) if p])
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


def make_bundle(opt, mlir_path, answers, outdir):
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
    with open(target, 'w') as out:
        json.dump(bundle, out, indent=1, sort_keys=True)
        out.write('\n')
    return target


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--build', default='build')
    parser.add_argument('--opt', help='the llmptx-opt to run')
    parser.add_argument('--kernels', default='docs/suite/kernels')
    parser.add_argument('--answers', default='docs/suite/answers')
    parser.add_argument('--out', default='docs/suite/bundles')
    args = parser.parse_args(argv)
    opt = args.opt or os.path.join(args.build, 'bin', 'llmptx-opt')
    opt = shutil.which(opt) or opt
    if not os.path.exists(opt):
        print('error: %s not found (build it, or pass --build)' % opt,
              file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(args.kernels, '*.mlir'))):
        try:
            target = make_bundle(opt, path, args.answers, args.out)
        except (export.ExportError, OSError, json.JSONDecodeError) as err:
            print('error: %s' % err, file=sys.stderr)
            return 1
        print(os.path.basename(target))
    return 0


if __name__ == '__main__':
    sys.exit(main())
