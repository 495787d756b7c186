"""Produces the PTX objects and the manifest that the benchmark driver reads.

    llmptx-suite-export [--build build | --opt LLMPTX_OPT]
        [--out docs/suite/objects]
        [--kernels docs/suite/kernels] [--cache docs/suite/cache]
        [--select auto|llm] [--verify exec|compile]
        [--results DIR | --runner CMD] [--only NAME ...]

For every kernel module of docs/suite/kernels it runs
`llmptx-opt --llm-lower` with the replay provider on the shipped cache and
takes two objects of the resulting `gpu.binary`: the object at index 0,
the one a host program launches by default (`<kernel>.selected.ptx`), and
the NVPTX reference (`<kernel>.nvptx.ptx`). One `manifest.json` describes,
per kernel, what a launcher needs: the entry, the block size and the grid
as expressions of the problem sizes (from `known_block_size` and
`#llmgen.harness`), every argument (memref element type and shape
expressions, or a scalar's type and value), the PTX parameter list of each
object, and what llm-lower decided (source, candidate, verification level,
reason). When llm-lower kept the reference (the candidate lost, or the
kernel has no answer in the cache yet), object 0 is the NVPTX object: the
manifest's selected entry then names the reference's file and says
`"source": "nvptx"`.

The default is the default policy, `select=auto verify=exec`: the LLM
kernel only where it passed execution equivalence on a GPU and was not
slower. Verification by execution needs `llmptx-runner` on a GPU; on a
machine without one, `--results DIR` replays what a runner printed for
the bundles llm-lower writes (DIR/results.json and the bundles that ran,
DIR/bundles; `llmptx.testing.results_replay`), which is how the shipped
objects are made from test/Suite/Inputs/h200. `--runner CMD` passes any
other `runner=` command. `--select llm --verify compile` forces the LLM
kernel wherever one passed lint, the ABI check and ptxas.

Only the standard library is used.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from typing import Any, Dict, List, Optional, Tuple

from llmptx import files
from llmptx.cli import ToolError, run_main
from llmptx import gpu_binary
from llmptx.mlir_text import UnbalancedText, closing_bracket
from llmptx.tools import ToolNotFound, build_bin, find_tool

MANIFEST_FORMAT = 'llmptx-suite-manifest'
LOWER_OPTIONS = 'chip=sm_90 features=+ptx80'


class ExportError(Exception):
    pass


# ---------------------------------------------------------------------------
# Reading the kernel as written
# ---------------------------------------------------------------------------

def _closing(text, start, path):
    """closing_bracket, its failure an ExportError about `path`."""
    try:
        return closing_bracket(text, start)
    except UnbalancedText as error:
        raise ExportError('%s: %s' % (path, error))


def _split_top(text):
    parts, depth, cur, in_string = [], 0, [], False
    for ch in text:
        if in_string:
            cur.append(ch)
            if ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in '[({<':
            depth += 1
        elif ch in '])}>':
            depth -= 1
        if ch == ',' and depth == 0:
            parts.append(''.join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if ''.join(cur).strip():
        parts.append(''.join(cur).strip())
    return parts


def _strings(text):
    return re.findall(r'"((?:[^"\\]|\\.)*)"', text)


def _parse_memref(type_text):
    m = re.fullmatch(r'memref<([^,>]*?)x?(f16|bf16|f32|f64|i1|i8|i16|i32|'
                     r'i64)\s*(,[^>]*)?>', type_text.strip())
    if not m:
        return None
    if m.group(3):
        raise ExportError('%s: only identity layouts are supported by the '
                          'driver' % type_text)
    dims = [d for d in m.group(1).split('x') if d]
    return m.group(2), dims


def _tolerance(text):
    out = {}
    for key in ('ulp', 'rel', 'abs'):
        m = re.search(r'\b%s\s*=\s*([-+0-9.eE]+)' % key, text)
        if m:
            out[key] = int(m.group(1)) if key == 'ulp' else float(m.group(1))
    return out


def describe_kernel(mlir_text: str, path: str) -> Dict[str, Any]:
    """The gpu.func of a suite module: signature, block, harness."""
    m = re.search(r'gpu\.func\s+@([\w$.]+)\s*\(', mlir_text)
    if not m:
        raise ExportError('%s: no gpu.func' % path)
    name = m.group(1)
    sig_end = _closing(mlir_text, m.end() - 1, path)
    params = _split_top(mlir_text[m.end():sig_end - 1])
    args = []
    for param in params:
        pm = re.fullmatch(r'%([\w$.]+)\s*:\s*(.+)', param.strip(), re.S)
        if not pm:
            raise ExportError('%s: cannot read argument %r' % (path, param))
        arg_name, arg_type = pm.group(1), ' '.join(pm.group(2).split())
        memref = _parse_memref(arg_type)
        if memref:
            args.append({'name': arg_name, 'kind': 'memref',
                         'element': memref[0], 'dims': memref[1]})
        elif arg_type in ('index', 'f32', 'f16', 'bf16', 'f64', 'i32',
                          'i64', 'i16', 'i8'):
            args.append({'name': arg_name, 'kind': 'scalar',
                         'type': arg_type})
        else:
            raise ExportError('%s: argument %%%s has a type the driver does '
                              'not launch (%s)' % (path, arg_name, arg_type))
    rest = mlir_text[sig_end:]
    block = re.search(r'known_block_size\s*=\s*array<i32:\s*(\d+),\s*(\d+),'
                      r'\s*(\d+)>', rest)
    if not block:
        raise ExportError('%s: @%s has no known_block_size' % (path, name))
    hm = re.search(r'#llmgen\.harness<', rest)
    if not hm:
        raise ExportError('%s: @%s has no #llmgen.harness' % (path, name))
    harness = rest[hm.end():_closing(rest, hm.end() - 1, path) - 1]
    fields = {}
    for item in _split_top(harness):
        key, _, value = item.partition('=')
        fields[key.strip()] = value.strip()
    sizes = _strings(fields.get('sizes', '[]'))
    harness_args = _strings(fields.get('args', '[]'))
    grid = _strings(fields.get('grid', '[]'))
    if len(grid) != 3:
        raise ExportError('%s: @%s: the harness needs a grid of three '
                          'expressions' % (path, name))
    if len(harness_args) != len(args):
        raise ExportError('%s: @%s: the harness lists %d args for %d '
                          'arguments' % (path, name, len(harness_args),
                                         len(args)))
    for arg, expr in zip(args, harness_args):
        if arg['kind'] == 'scalar':
            arg['value'] = expr
            continue
        dynamic = [e.strip() for e in expr.split(',')] if expr else []
        shape, k = [], 0
        for dim in arg.pop('dims'):
            if dim == '?':
                if k >= len(dynamic):
                    raise ExportError('%s: @%s: no size for a dynamic '
                                      'dimension of %%%s' % (path, name,
                                                             arg['name']))
                shape.append(dynamic[k])
                k += 1
            else:
                shape.append(dim)
        arg['shape'] = shape
    facts = {}
    fm = re.search(r'\balign\s*=\s*(\d+)', fields.get('facts', ''))
    if fm:
        facts['align'] = int(fm.group(1))
    dm = re.search(r'\bdivisible\s*=\s*\{([^}]*)\}', fields.get('facts', ''))
    if dm:
        facts['divisible'] = {k: int(v) for k, v in re.findall(
            r'(\w+)\s*=\s*(\d+)', dm.group(1))}
    outputs = [int(x) for x in re.findall(r'\d+', fields.get('outputs', ''))]
    return {'name': name, 'block': [int(b) for b in block.groups()],
            'grid': grid, 'sizes': sizes, 'args': args, 'facts': facts,
            'outputs': outputs,
            'tolerance': _tolerance(fields.get('tolerance', ''))}


def abi_params(kernel: Dict[str, Any]) -> List[Tuple[str, int, int, int]]:
    """(role, arg index, dim, bytes) per PTX parameter of the memref ABI."""
    out = []
    for index, arg in enumerate(kernel['args']):
        if arg['kind'] == 'scalar':
            size = {'index': 8, 'i64': 8, 'f64': 8, 'f32': 4, 'i32': 4,
                    'f16': 2, 'bf16': 2, 'i16': 2, 'i8': 1}[arg['type']]
            out.append(('scalar', index, 0, size))
            continue
        out.append(('allocated_ptr', index, 0, 8))
        out.append(('aligned_ptr', index, 0, 8))
        out.append(('offset', index, 0, 8))
        for dim in range(len(arg['shape'])):
            out.append(('size', index, dim, 8))
        for dim in range(len(arg['shape'])):
            out.append(('stride', index, dim, 8))
    return out


_PARAM = re.compile(r'\.param\s+((?:\.align\s+\d+\s+|\.\w+\s+)*)([$\w]+)'
                    r'(?:\[(\d+)\])?')
_TYPE_BYTES = {'u8': 1, 's8': 1, 'b8': 1, 'u16': 2, 's16': 2, 'b16': 2,
               'f16': 2, 'u32': 4, 's32': 4, 'b32': 4, 'f32': 4, 'u64': 8,
               's64': 8, 'b64': 8, 'f64': 8}


def ptx_params(ptx: str, entry: str) -> List[Dict[str, Any]]:
    """[(name, bytes)] of the .entry's parameters."""
    m = re.search(r'\.entry\s+%s\s*\(([^)]*)\)' % re.escape(entry), ptx)
    if not m:
        raise ExportError('no .entry %s in the object' % entry)
    params = []
    for item in m.group(1).split(','):
        item = item.strip()
        if not item:
            continue
        pm = _PARAM.match(item)
        if not pm:
            raise ExportError('cannot read parameter %r' % item)
        types = [t for t in re.findall(r'\.(\w+)', pm.group(1))
                 if t in _TYPE_BYTES]
        size = _TYPE_BYTES[types[0]] if types else 8
        if pm.group(3):
            size *= int(pm.group(3))
        params.append({'name': pm.group(2), 'bytes': size})
    return params


# ---------------------------------------------------------------------------
# Running llm-lower and collecting the objects
# ---------------------------------------------------------------------------

def _property(header, key):
    m = re.search(r'\b%s = "([^"]*)"' % re.escape(key), header)
    return m.group(1) if m else None


def lower(opt: str, mlir_path: str, cache: str, select: str, verify: str,
          runner: Optional[str], workdir: str) -> Tuple[str, Dict[str, Any], str]:
    out = os.path.join(workdir, 'out.mlir')
    report = os.path.join(workdir, 'report.json')
    options = ('%s provider=replay model=curated cache=read cache-dir=%s '
               'repairs=0 select=%s verify=%s report=%s' %
               (LOWER_OPTIONS, cache, select, verify, report))
    env = dict(os.environ)
    if runner:
        # Through the environment: the command may hold quotes and spaces.
        env['LLMPTX_RUNNER'] = runner
    proc = subprocess.run([opt, mlir_path, '--llm-lower=' + options, '-o',
                           out], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise ExportError('%s: llmptx-opt failed (%d):\n%s' %
                          (mlir_path, proc.returncode, proc.stderr.strip()))
    with open(out) as handle:
        text = handle.read()
    with open(report) as handle:
        rep = json.load(handle)
    return text, rep, proc.stderr


# A replay miss names the cache key and folder; the manifest says what it
# means, so that it does not change with the prompt templates or the path.
_NO_ANSWER = re.compile(r'no valid candidate: sample \d+: provider-error '
                        r'\(replay: no cache entry for ')


def _reason(text: str) -> str:
    if _NO_ANSWER.match(text):
        return ('no candidate: the replay cache has no answer for this '
                'kernel (docs/suite/README.md: adding an answer)')
    return text


def export_kernel(opt: str, mlir_path: str, cache: str, outdir: str,
                  select: str, verify: str,
                  runner: Optional[str]) -> Dict[str, Any]:
    with open(mlir_path) as handle:
        kernel = describe_kernel(handle.read(), mlir_path)
    with tempfile.TemporaryDirectory() as work:
        text, report, _ = lower(opt, mlir_path, cache, select, verify, runner,
                                work)
    objects = list(gpu_binary.parse_objects(text))
    if len(objects) != 2:
        raise ExportError('%s: expected one gpu.binary with two objects, '
                          'found %d objects' % (mlir_path, len(objects)))
    # Object 0 is what the program launches unless told otherwise
    # (--llmgen-select-object=index=1 switches it): the benchmark's
    # "select=auto" column. The reference is the NVPTX object; when object 0
    # is the reference itself, both slots name one file.
    selected = objects[0]
    reference = next((o for o in reversed(objects)
                      if _property(o[2], 'llmgen.source') == 'nvptx'), None)
    if reference is None:
        raise ExportError('%s: no NVPTX object in the gpu.binary' % mlir_path)
    selected_source = _property(selected[2], 'llmgen.source')
    if selected_source == 'nvptx':
        selected = reference
    entry = kernel['name']
    info = next((k for k in report.get('kernels', [])
                 if k.get('name') == entry), {})
    record = dict(kernel)
    record['source'] = os.path.basename(mlir_path)
    record['entry'] = entry
    record['objects'] = {}
    for slot, obj in (('nvptx', reference), ('selected', selected)):
        ptx = obj[3].decode('utf-8')
        fname = '%s.%s.ptx' % (entry, 'nvptx' if obj is reference else slot)
        if slot == 'nvptx' or obj is not reference:
            files.write_text(os.path.join(outdir, fname), ptx)
        record['objects'][slot] = {'file': fname,
                                   'params': ptx_params(ptx, entry)}
    record['selected'] = {
        'source': selected_source,
        'candidate': info.get('candidate') or '',
        'verification': info.get('verification', ''),
        'reason': _reason(info.get('reason', '')),
    }
    expected = [size for _, _, _, size in abi_params(kernel)]
    for slot, obj in record['objects'].items():
        got = [p['bytes'] for p in obj['params']]
        if got != expected:
            raise ExportError('%s: the %s object\'s parameters (%s bytes) do '
                              'not match the memref ABI of the signature '
                              '(%s)' % (mlir_path, slot, got, expected))
    return record


def replay_runner(results_dir: str) -> str:
    """The runner= command that answers from DIR/results.json for the
    bundles of DIR/bundles (llmptx.testing.results_replay)."""
    results = os.path.join(results_dir, 'results.json')
    ran = os.path.join(results_dir, 'bundles')
    for path in (results, ran):
        if not os.path.exists(path):
            raise ExportError('--results %s: no %s' % (results_dir, path))
    return '%s -m llmptx.testing.results_replay --results %s --ran %s' % (
        sys.executable, os.path.abspath(results), os.path.abspath(ran))


def main(argv: Optional[List[str]] = None) -> int:
    return run_main('llmptx-suite-export', lambda: _main(argv))


def _main(argv: Optional[List[str]]) -> int:
    parser = argparse.ArgumentParser(prog='llmptx-suite-export',
                                     description=__doc__.splitlines()[0])
    parser.add_argument('--build',
                        help='build directory with bin/llmptx-opt (default: '
                        'llmptx-opt on PATH, else build/bin of the checkout)')
    parser.add_argument('--opt', help='the llmptx-opt to run (a path or a '
                        'command on PATH)')
    parser.add_argument('--kernels', default='docs/suite/kernels')
    parser.add_argument('--cache', default='docs/suite/cache')
    parser.add_argument('--out', default='docs/suite/objects')
    parser.add_argument('--select', default='auto', choices=['auto', 'llm'])
    parser.add_argument('--verify', default='exec',
                        choices=['exec', 'compile'])
    runner = parser.add_mutually_exclusive_group()
    runner.add_argument('--runner', help='runner= of llm-lower (verify=exec '
                        'on a GPU elsewhere)')
    runner.add_argument('--results', metavar='DIR',
                        help='replay a runner\'s results: DIR/results.json '
                        'for the bundles in DIR/bundles (no GPU needed)')
    parser.add_argument('--only', action='append', default=[],
                        help='export only this kernel (repeatable)')
    args = parser.parse_args(argv)

    try:
        opt = find_tool('llmptx-opt', build_bin(args.build), args.opt)
    except ToolNotFound as error:
        raise ToolError(str(error), 2)
    try:
        runner_command = (replay_runner(args.results) if args.results
                          else args.runner)
    except ExportError as err:
        raise ToolError(str(err), 2)
    os.makedirs(args.out, exist_ok=True)
    paths = sorted(os.path.join(args.kernels, f)
                   for f in os.listdir(args.kernels) if f.endswith('.mlir'))
    if args.only:
        paths = [p for p in paths
                 if os.path.basename(p)[:-5] in args.only]
    kernels = []
    for path in paths:
        try:
            kernels.append(export_kernel(opt, path, args.cache, args.out,
                                         args.select, args.verify,
                                         runner_command))
        except (ExportError, OSError, json.JSONDecodeError) as err:
            raise ToolError(str(err))
        rec = kernels[-1]
        print('%s: object 0 %s (%s, verification %s)' %
              (rec['entry'], rec['selected']['source'],
               rec['selected']['candidate'] or '-',
               rec['selected']['verification'] or 'none'))
    lowering = ('%s provider=replay model=curated repairs=0 select=%s '
                'verify=%s' % (LOWER_OPTIONS, args.select, args.verify))
    if args.results:
        # The data, not the path (which differs between checkouts).
        with open(os.path.join(args.results, 'results.json'), 'rb') as handle:
            digest = hashlib.sha256(handle.read()).hexdigest()[:16]
        lowering += (' runner=results_replay (recorded results.json, sha256 '
                     '%s...)' % digest)
    elif args.runner:
        lowering += ' runner=(given)'
    manifest = {'format': MANIFEST_FORMAT, 'version': 2,
                'lowering': lowering, 'kernels': kernels}
    files.write_text(os.path.join(args.out, 'manifest.json'),
                     json.dumps(manifest, indent=1, sort_keys=True) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
