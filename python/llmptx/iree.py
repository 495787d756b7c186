"""llmptx-iree: LLM kernels for the CUDA dispatches of an IREE program.

    llmptx-iree INPUT.mlir -o OUT.vmfb [--llm-lower="<llm-lower options>"]
                [--report R.json] [--substitutions DIR] [--harness H.json]
                [--iree-compile PATH] [--work-dir DIR] [-- iree-compile flags]

1. iree-compile INPUT for CUDA (`chip` of --llm-lower, sm_90 by default)
   with one executable per dispatch, dumping each executable's files and
   the executable-targets phase; then IREE's own build, the A/B object,
   OUT with `.iree` before its suffix (OUT.iree.vmfb).
2. Each dispatch becomes a kernel description (lib/Target/KernelSet.h):
   its export, bindings and push constants in IREE's CUDA ABI, IREE's
   launch (the export's workgroup size, its count region, its workgroup
   local memory), its configured MLIR, IREE's PTX as the reference.
3. llmptx-kernels runs the stages of --llm-lower on them (prompts,
   providers, cache, lint, ABI, ptxas, repairs, verification by execution
   with llmptx-runner, optimization rounds, the selection policy).
4. The selected kernels are written as DIR/<executable>.ptx and OUT is
   compiled with --iree-hal-substitute-executable-objects-from=DIR; the
   report lists every dispatch and its decision.

The harness file gives what the program does not: {"tolerance": {...},
"dispatches": {"<executable or export>": {"tolerance": {...},
"constants": [..], "grid": [x, y, z], "bindings": [elements, ...]}}}.

--llm-lower is parsed once, by llmptx-kernels (MLIR's pass-option parser,
as llm-lower's), and IREE is built for the chip of those settings; a key
given twice, or an unclosed quote or brace, is refused first. Files follow
llmptx.files: no output replaces an input, the substitution and work
folders are the tool's own (marked), and only what it made there is ever
replaced or removed. docs/iree.md has the details.
"""

from __future__ import annotations

import argparse
import glob
import math
import os
import re
import shutil
import sys
import tempfile
from typing import Any, Callable, Dict, List, Optional, Tuple

from llmptx import files
from llmptx.cli import ChildFailed, ToolError, run_main, run_tool
from llmptx.mlir_text import UnbalancedText, pass_options
from llmptx.tools import ToolNotFound, find_tool

PROG = 'llmptx-iree'

# The substitution and work folders are the tool's own: this file marks
# them and lists what the tool made there (llmptx.files.WorkFolder).
MARKER = '.llmptx-iree'

# The sm_90 target IREE 3.13 does not know by name: its sm_89 description
# with the sm_90 limits (228 KiB of shared memory per block, 227 usable).
WGP = ('<compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = '
       'b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, '
       'mma = [<NV_MMA_SYNC_F32_16x8x16_F16>, <NV_MMA_SYNC_F16_16x8x16_F16>, '
       '<NV_MMA_SYNC_F32_16x8x16_BF16>, <NV_MMA_SYNC_F32_16x8x32_F8E4M3FN>, '
       '<NV_MMA_SYNC_F32_16x8x32_F8E5M2>, <NV_WMMA_F32_16x16x16_F16>, '
       '<NV_WMMA_F16_16x16x16_F16>], subgroup_size_choices = [32], '
       'max_workgroup_sizes = [1024, 1024, 1024], '
       'max_thread_count_per_workgroup = 1024, '
       'max_workgroup_memory_bytes = {smem}, '
       'max_workgroup_counts = [2147483647, 65535, 65535]>')
SHARED_MEMORY = {'sm_80': 166912, 'sm_86': 101376, 'sm_89': 101376,
                 'sm_90': 232448, 'sm_90a': 232448}

READ_ONLY = 1  # hal.descriptor_flags bit of a ReadOnly binding


class Error(ToolError):
    """A problem the user can fix; printed without a traceback."""


def device_target(chip: str) -> str:
    """The --iree-hal-target-device value for `chip`."""
    if chip not in SHARED_MEMORY:
        raise Error('chip %s: llmptx-iree knows %s' %
                    (chip, ', '.join(sorted(SHARED_MEMORY))))
    arch = 'sm_90' if chip == 'sm_90a' else chip
    wgp = WGP.replace('{smem}', str(SHARED_MEMORY[chip]))
    return ('#hal.device.target<"cuda", [#hal.executable.target<"cuda", '
            '"cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<'
            'arch = "%s", features = "+ptx84", wgp = %s>}>]>' % (arch, wgp))


def parse_lower_options(text: str) -> Dict[str, Optional[str]]:
    """--llm-lower as MLIR's pass-option parser splits it; a key given twice
    is refused (MLIR would take the last, a shlex split the first: the two
    sides of a build must never disagree), and so is an unclosed quote or
    brace."""
    try:
        pairs = pass_options(text)
    except UnbalancedText as error:
        raise Error('--llm-lower: %s' % error)
    options: Dict[str, Optional[str]] = {}
    for key, value in pairs:
        if key in options:
            raise Error('--llm-lower: %s is given twice (%s and %s): give '
                        'each option once' %
                        (key, _option_text(key, options[key]),
                         _option_text(key, value)))
        options[key] = value
    return options


def _option_text(key: str, value: Optional[str]) -> str:
    shown = key if value is None else '%s=%s' % (key, value)
    return repr(shown if len(shown) <= 80 else shown[:77] + '...')


def stage_settings(kernels_tool: str, lower: str, work: files.WorkFolder
                   ) -> Dict[str, Any]:
    """The settings the kernel stages make of `lower`: llmptx-kernels on an
    empty kernel set parses it with llm-lower's own parser and writes them.
    What this probe must not do is overridden after the user's options
    (the parser keeps the last value of a key): it writes no report and no
    bundles, and an empty set is no strict failure."""
    probe = work.file('options.set.json')
    files.write_json(probe, {'name': 'options', 'kernels': []})
    settings_path = work.file('options.settings.json')
    run_tool([kernels_tool, probe,
              '--llm-lower=%s report= emit-bundles= strict=false' % lower,
              '-o', settings_path], 'llmptx-kernels (reading --llm-lower)')
    settings = files.read_json(settings_path).get('settings')
    if not isinstance(settings, dict) or \
            not isinstance(settings.get('chip'), str):
        raise Error('llmptx-kernels wrote no settings with a chip in %s' %
                    settings_path)
    return settings


def run(command: List[str], what: str) -> None:
    """Runs `command`; its diagnostics are the error when it fails."""
    run_tool(command, what)


# ----------------------------------------------------------------------------
# Reading IREE's IR
# ----------------------------------------------------------------------------

def load_ir() -> Any:
    try:
        from iree.compiler import ir
    except ImportError as error:
        raise Error('the IREE compiler\'s Python package is missing (%s): '
                    'run ./llmptx.sh build, which installs it into '
                    'build/venv, and use build/bin/llmptx-iree' % error)
    return ir


def attribute_names(op: Any) -> List[str]:
    return [a if isinstance(a, str) else a.name for a in op.attributes]


def parse_module(ir: Any, context: Any, path: str) -> Any:
    """`path` parsed with IREE's dialects; its diagnostics are the error."""
    with open(path) as handle:
        text = handle.read()
    try:
        return ir.Module.parse(text, context)
    except Exception as error:  # ir.MLIRError, and ValueError before it
        raise Error('%s: IREE\'s own output does not parse: %s' %
                    (path, str(error).strip()[:2000]))


def walk(op: Any, visit: Callable[[Any], None]) -> None:
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                child = child.operation
                visit(child)
                walk(child, visit)


def constant_of(ir: Any, value: Any) -> Optional[int]:
    """The integer an SSA value is defined to be, or None."""
    owner = getattr(value, 'owner', None)
    if owner is None or not hasattr(owner, 'name'):
        return None
    if owner.name != 'arith.constant':
        return None
    try:
        return ir.IntegerAttr(owner.attributes['value']).value
    except (ValueError, TypeError):
        return None


def int_list(ir: Any, attribute: Any) -> List[int]:
    return [ir.IntegerAttr(item).value for item in ir.ArrayAttr(attribute)]


def parse_layout(text: str) -> Tuple[int, List[bool]]:
    """Binding flags and the constant count of a #hal.pipeline.layout."""
    constants = re.search(r'constants\s*=\s*(\d+)', text)
    bindings = re.findall(r'#hal\.pipeline\.binding<([^>]*)>', text)
    return (int(constants.group(1)) if constants else 0,
            ['ReadOnly' in binding for binding in bindings])


def read_executables(ir: Any, context: Any,
                     phase_path: str) -> List[Dict[str, Any]]:
    """Every CUDA executable of the executable-targets phase: its export,
    launch, layout and the push constants of its dispatch sites."""
    module = parse_module(ir, context, phase_path)
    executables, sites = [], {}

    def visit(op):
        if op.name == 'hal.executable':
            executables.append(read_executable(ir, op))
        elif op.name == 'stream.cmd.dispatch':
            read_site(ir, op, sites)

    walk(module.operation, visit)
    for executable in executables:
        executable['sites'] = sites.get(executable['name'], [])
    return executables


def read_executable(ir: Any, op: Any) -> Dict[str, Any]:
    name = ir.StringAttr(op.attributes['sym_name']).value
    executable = {'name': name, 'exports': []}

    def visit(child):
        if child.name != 'hal.executable.export':
            return
        names = attribute_names(child)
        export = {
            'name': ir.StringAttr(child.attributes['sym_name']).value,
            'layout': str(child.attributes['layout']),
            'workgroup_size': (int_list(ir, child.attributes['workgroup_size'])
                               if 'workgroup_size' in names else None),
            'local_memory': (ir.IntegerAttr(
                child.attributes['workgroup_local_memory']).value
                if 'workgroup_local_memory' in names else 0),
            'count': None,
        }
        # The count region's hal.return: constant when the shapes are.
        for block in child.regions[0].blocks:
            for inner in block.operations:
                inner = inner.operation
                if inner.name == 'hal.return':
                    export['count'] = [constant_of(ir, v)
                                       for v in inner.operands]
        executable['exports'].append(export)

    walk(op, visit)
    return executable


def read_site(ir: Any, op: Any, sites: Dict[str, List[Any]]) -> None:
    """The push constants of one stream.cmd.dispatch (None: not constant)."""
    segments = list(ir.DenseI32ArrayAttr(op.attributes['operandSegmentSizes']))
    operands = list(op.operands)
    start = segments[0]
    constants = [(constant_of(ir, value), str(value.type))
                 for value in operands[start:start + segments[1]]]
    for entry in ir.ArrayAttr(op.attributes['entry_points']):
        executable = str(entry).split('::')[0].lstrip('@')
        sites.setdefault(executable, []).append(constants)


def element_name(element: Any) -> str:
    text = str(element)
    return {'i1': 'i8', 'index': 'i64'}.get(text, text)


def element_bytes(name: str) -> int:
    match = re.search(r'(\d+)', name)
    return max(1, int(match.group(1)) // 8) if match else 4


def read_subspans(ir: Any, context: Any, configured_path: str
                  ) -> Tuple[Dict[int, Any], List[str]]:
    """The views of each binding in the configured executable, and the
    dispatch function's text (what the dispatch computes)."""
    module = parse_module(ir, context, configured_path)
    views, functions = {}, []

    def visit(op):
        if op.name == 'func.func':
            functions.append(str(op))
        if op.name != 'hal.interface.binding.subspan':
            return
        binding = ir.IntegerAttr(op.attributes['binding']).value
        memref = ir.MemRefType(op.results[0].type)
        flags = ir.IntegerAttr(op.attributes['descriptor_flags']).value \
            if 'descriptor_flags' in attribute_names(op) else 0
        alignment = ir.IntegerAttr(op.attributes['alignment']).value \
            if 'alignment' in attribute_names(op) else 0
        offset_values = list(op.operands)
        offset = constant_of(ir, offset_values[0]) if offset_values else 0
        element = element_name(memref.element_type)
        view = {'type': re.sub(r', #hal\.descriptor_type<[^>]*>', '',
                               str(memref)),
                'element': element, 'offset': offset,
                'read_only': bool(flags & READ_ONLY),
                'alignment': alignment, 'elements': None}
        if memref.has_static_shape:
            strides = None
            try:
                strides = list(ir.StridedLayoutAttr(memref.layout).strides)
            except (ValueError, TypeError):
                pass
            shape = list(memref.shape)
            if not shape:
                view['elements'] = 1
            elif strides and all(s >= 0 for s in strides):
                view['elements'] = 1 + sum((d - 1) * s
                                           for d, s in zip(shape, strides))
            else:
                count = 1
                for d in shape:
                    count *= d
                view['elements'] = count
        views.setdefault(binding, []).append(view)

    walk(module.operation, visit)
    return views, functions


# ----------------------------------------------------------------------------
# Dispatches as kernel descriptions
# ----------------------------------------------------------------------------

def describe_dispatch(executable: Dict[str, Any], views: Dict[int, Any],
                      functions: List[str], ptx: str, harness: Dict[str, Any]
                      ) -> Tuple[Optional[Dict[str, Any]], str]:
    """The KernelSet entry of one executable, or (None, why not)."""
    name = executable['name']
    if len(executable['exports']) != 1:
        return None, ('%d exports: only single-export executables are '
                      'substituted' % len(executable['exports']))
    export = executable['exports'][0]
    entry = export['name']
    own = dict(harness.get('dispatches', {}).get(name, {}))
    own.update(harness.get('dispatches', {}).get(entry, {}))
    if not re.search(r'\.entry\s+%s\s*\(' % re.escape(entry), ptx):
        return None, 'IREE\'s PTX has no .entry %s' % entry
    block = export['workgroup_size']
    if not block:
        return None, 'the export states no workgroup size'
    grid = own.get('grid') or export['count']
    if not grid or any(g is None for g in grid):
        return None, ('the workgroup count depends on the workload (dynamic '
                      'shapes): give "grid" for %s in the harness file' % name)
    constant_count, read_only = parse_layout(export['layout'])

    extents = own.get('bindings')
    if extents is not None and len(extents) != len(read_only):
        return None, ('the harness gives %d binding size(s) for %d '
                      'binding(s)' % (len(extents), len(read_only)))
    args, facts = [], []
    for binding, readonly in enumerate(read_only):
        seen = views.get(binding, [])
        if not seen:
            return None, 'binding %d is never viewed' % binding
        elements = {v['element'] for v in seen}
        if len(elements) != 1:
            return None, ('binding %d is viewed with several element types '
                          '(%s)' % (binding, ', '.join(sorted(elements))))
        element = seen[0]['element']
        size = element_bytes(element)
        if extents is not None:
            extent = extents[binding]
        elif any(v['elements'] is None or v['offset'] is None for v in seen):
            return None, ('binding %d has a dynamic shape or offset: give '
                          '"bindings" (elements per binding), "constants" '
                          'and "grid" for %s in the harness file' %
                          (binding, name))
        elif any(v['offset'] % size for v in seen):
            return None, ('binding %d is viewed at an offset that is not a '
                          'multiple of its element size' % binding)
        else:
            extent = max(v['offset'] // size + v['elements'] for v in seen)
        alignment = min(v['alignment'] or size for v in seen)
        access = 'read' if readonly else 'readwrite'
        args.append({'kind': 'buffer', 'element': element,
                     'elements': extent, 'access': access,
                     'alignment': alignment,
                     'type': 'memref<%dx%s>' % (extent, element)})
        described = ', '.join(
            '%s at byte offset %s' % (v['type'], 'dynamic' if v['offset'] is
                                      None else v['offset']) for v in seen)
        facts.append(
            'parameter %d (binding %d): pointer to %d %s elements, %s; the '
            'dispatch views %s; the pointer is %d-byte aligned (IREE\'s '
            'binding alignment); it may point into a larger allocation, so '
            'touch no byte outside these views' %
            (len(args) - 1, binding, extent, element,
             'read-only' if readonly else 'written (it may also be read)',
             described, alignment))

    values = own.get('constants')
    harness_values = values is not None
    if values is None and constant_count:
        site_values = [[value for value, _ in site]
                       for site in executable['sites']]
        if not site_values or any(v is None for v in site_values[0]):
            return None, ('its %d push constant(s) are not constant at the '
                          'dispatch site: give "constants" for %s in the '
                          'harness file' % (constant_count, name))
        if any(site != site_values[0] for site in site_values):
            return None, ('its dispatch sites pass different push constants: '
                          'give "constants" for %s in the harness file' % name)
        values = site_values[0]
    values = list(values or [])
    if len(values) != constant_count:
        return None, ('%d push constant value(s) for %d constant(s)' %
                      (len(values), constant_count))
    for index, value in enumerate(values):
        args.append({'kind': 'scalar', 'element': 'i32',
                     'value': str(value)})
        facts.append(
            'parameter %d (push constant %d): a 32-bit value, %s' %
            (len(args) - 1, index,
             'which may differ between calls (verification uses %d)' % value
             if harness_values else
             '%d at every dispatch of this program' % value))

    smem = export['local_memory']
    grid_text = (', '.join(map(str, grid)) if not own.get('grid') else
                 'from the workload: it varies between calls; verification '
                 'uses %s' % ', '.join(map(str, grid)))
    launch_facts = (
        'IREE launches this dispatch with block (%s) and grid (%s), and %d '
        'bytes of dynamic shared memory (the extern .shared array; its size '
        'is fixed by IREE, so more shared memory must be declared statically, '
        'at most 48 KiB); launches with another %s do not happen.\n'
        % (', '.join(map(str, block)), grid_text, smem,
           'block size' if own.get('grid') else 'configuration'))
    intent = (
        'This is an IREE dispatch (executable %s, export %s), not a gpu.func: '
        'the MLIR below is IREE\'s configured dispatch function, which reads '
        'and writes its operands through hal.interface.binding.subspan views '
        'of the bindings. In IREE\'s CUDA ABI, binding K is .param K, a .u64 '
        'global pointer (the subspan\'s byte offset is added inside the '
        'kernel), and the push constants follow as 32-bit parameters. The '
        'lowering_config and translation_info attributes are IREE\'s own '
        'tiling choices; you need not follow them.' % (name, entry))
    kernel = {'name': entry, 'reference_ptx': ptx, 'reference_kind': 'iree',
              'source': '\n\n'.join(functions), 'intent': intent,
              'args': args, 'stated_facts': facts,
              'launch_facts': launch_facts,
              'launch': {'grid': grid, 'block': block,
                         'dynamic_shared_bytes': smem}}
    tolerance = own.get('tolerance', harness.get('tolerance'))
    if tolerance:
        kernel['tolerance'] = tolerance
    return kernel, ''


# ----------------------------------------------------------------------------
# The harness file
# ----------------------------------------------------------------------------

TOLERANCE_KEYS = ('ulp', 'rel', 'abs')
DISPATCH_KEYS = ('tolerance', 'constants', 'grid', 'bindings')


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + '...'


def _integer(value: Any, where: str, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or \
            not low <= value <= high:
        raise Error('%s: expected an integer from %d to %d (%s), got %s' %
                    (where, low, high, what, _shown(value)))
    return value


def _integers(value: Any, where: str, low: int, high: int, what: str,
              count: Optional[int] = None) -> List[int]:
    if not isinstance(value, list) or (count is not None and
                                       len(value) != count):
        raise Error('%s: expected a list of %sintegers (%s), got %s' %
                    (where, '%d ' % count if count else '', what,
                     _shown(value)))
    return [_integer(item, '%s[%d]' % (where, index), low, high, what)
            for index, item in enumerate(value)]


def _object(value: Any, where: str, keys: Tuple[str, ...]) -> Dict[str, Any]:
    if not isinstance(value, dict):
        raise Error('%s: expected an object, got %s' % (where, _shown(value)))
    for key in value:
        if key not in keys:
            raise Error('%s: unknown key %s (known: %s)' %
                        (where, _shown(key), ', '.join(keys)))
    return value


def _tolerance(value: Any, where: str) -> None:
    _object(value, where, TOLERANCE_KEYS)
    if 'ulp' in value:
        _integer(value['ulp'], where + '.ulp', 0, 1 << 30, 'ulps')
    for key in ('rel', 'abs'):
        number = value.get(key, 0)
        if isinstance(number, bool) or not isinstance(number, (int, float)) \
                or not math.isfinite(number) or number < 0:
            raise Error('%s.%s: expected a number >= 0, got %s' %
                        (where, key, _shown(number)))


def read_harness(path: str) -> Dict[str, Any]:
    """The harness file, its shape checked whole before it is used: an error
    names the file and the value (`h.json: dispatches.d0.grid[1]: ...`)."""
    harness = _object(files.read_json(path), path,
                      ('tolerance', 'dispatches'))
    if 'tolerance' in harness:
        _tolerance(harness['tolerance'], path + ': tolerance')
    dispatches = harness.get('dispatches', {})
    if not isinstance(dispatches, dict):
        raise Error('%s: dispatches: expected an object, got %s' %
                    (path, _shown(dispatches)))
    for name, own in dispatches.items():
        where = '%s: dispatches.%s' % (path, name)
        _object(own, where, DISPATCH_KEYS)
        if 'tolerance' in own:
            _tolerance(own['tolerance'], where + '.tolerance')
        if 'constants' in own:
            _integers(own['constants'], where + '.constants', -(1 << 31),
                      (1 << 32) - 1, '32-bit push constants')
        if 'grid' in own:
            _integers(own['grid'], where + '.grid', 1, (1 << 31) - 1,
                      'workgroup counts', 3)
        if 'bindings' in own:
            _integers(own['bindings'], where + '.bindings', 1, 1 << 40,
                      'elements per binding')
    return harness


# ----------------------------------------------------------------------------
# The driver
# ----------------------------------------------------------------------------

def find_iree_compile(given: Optional[str]) -> str:
    """--iree-compile as given (an error when it is not an executable file,
    never another compiler in its place), else the first one found."""
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise Error('--iree-compile %s: not an executable file' % given)
        return given
    candidates = [os.environ.get('LLMPTX_IREE_COMPILE'),
                  os.path.join(sys.prefix, 'bin', 'iree-compile'),
                  shutil.which('iree-compile')]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and \
                os.access(candidate, os.X_OK):
            return candidate
    raise Error('iree-compile not found: give --iree-compile, set '
                'LLMPTX_IREE_COMPILE, or run ./llmptx.sh build (it installs '
                'IREE into build/venv)')


def with_suffix(path: str, tag: str) -> str:
    stem, extension = os.path.splitext(path)
    return '%s.%s%s' % (stem, tag, extension or '.vmfb')


def candidate_summary(candidate: Dict[str, Any]) -> Dict[str, Any]:
    summary = {'name': candidate.get('name'),
               'level': candidate.get('level'),
               'verdict': candidate.get('exec_verdict', 'not run')}
    if 'exec_details' in candidate:
        summary['details'] = candidate['exec_details']
    timing = candidate.get('timing')
    if timing:
        summary['speedup'] = timing.get('speedup')
        summary['speedup_ci95'] = timing.get('speedup_ci95')
        summary['iree_ms'] = timing.get('reference_ms')
        summary['llm_ms'] = timing.get('candidate_ms')
        summary['comparison'] = timing.get('comparison')
    return summary


def main(argv: Optional[List[str]] = None) -> int:
    return run_main(PROG, lambda: _main(argv))


def _main(argv: Optional[List[str]]) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = []
    if '--' in argv:
        at = argv.index('--')
        argv, extra = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument('input')
    parser.add_argument('-o', dest='output', required=True)
    parser.add_argument('--llm-lower', default='',
                        help='the options of llmptx-opt --llm-lower')
    parser.add_argument('--report', help='write the decisions here (JSON)')
    parser.add_argument('--substitutions',
                        help='directory of the selected PTX (default: '
                             'OUT without its suffix, .substitutions)')
    parser.add_argument('--harness', help='facts the program lacks (JSON)')
    parser.add_argument('--iree-compile', help='the iree-compile to use')
    parser.add_argument('--work-dir', help='keep the intermediate files here')
    parser.add_argument('--tools-dir', help='the folder of llmptx-kernels '
                        '(default: on PATH, else build/bin of the checkout)')
    args = parser.parse_args(argv)
    return IreeBuild(args, extra).run()


class IreeBuild:
    """One run of llmptx-iree: everything is checked before the first
    iree-compile call (options, inputs, harness, outputs, folders), then
    steps 1 to 4 of the module's docstring run as stage methods."""

    def __init__(self, args: argparse.Namespace, extra: List[str]) -> None:
        self.args, self.extra = args, extra
        self.options = parse_lower_options(args.llm_lower)
        files.regular_file(args.input, 'the input')
        self.harness = read_harness(args.harness) if args.harness else {}
        self.output = os.path.abspath(args.output)
        self.reference_vmfb = with_suffix(self.output, 'iree')
        self.substitutions_path = os.path.abspath(
            args.substitutions or
            os.path.splitext(self.output)[0] + '.substitutions')
        self.inputs = [('the input', args.input), ('--harness', args.harness)]
        files.check_outputs(
            self.inputs,
            [('-o', self.output), ('IREE\'s own build', self.reference_vmfb),
             ('--report', args.report)],
            [('--substitutions', self.substitutions_path),
             ('--work-dir', args.work_dir)])
        self.substitutions = files.WorkFolder(
            self.substitutions_path, PROG, MARKER, '--substitutions',
            self.inputs)
        self.work_dir = args.work_dir and files.WorkFolder(
            args.work_dir, PROG, MARKER, '--work-dir', self.inputs)
        self.ir = load_ir()
        self.iree_compile = find_iree_compile(args.iree_compile)
        try:
            self.kernels_tool = find_tool('llmptx-kernels', args.tools_dir)
        except ToolNotFound as error:
            raise Error('%s (build the project first)' % error)

    def run(self) -> int:
        if self.work_dir:
            return self.build(self.work_dir.open())
        with tempfile.TemporaryDirectory(prefix='llmptx-iree-') as temporary:
            return self.build(files.WorkFolder(
                temporary, PROG, MARKER, 'the work folder').open())

    def build(self, work: files.WorkFolder) -> int:
        self.work = work
        for path in (self.output, self.reference_vmfb, self.args.report,
                     self.substitutions_path):
            if path:
                work.adopt(path)
        settings = stage_settings(self.kernels_tool, self.args.llm_lower,
                                  work)
        self.chip = settings['chip']
        self.base = [self.iree_compile, self.args.input,
                     '--iree-hal-target-device=' + device_target(self.chip),
                     '--iree-hal-link-executables=false'] + self.extra
        executables, dump = self.compile_iree()
        dispatches, kernels = self.describe(executables, dump)
        decisions = self.run_stages(kernels)
        self.substitute(dispatches, decisions)
        self.write_report(dispatches)
        return 0

    def compile_iree(self) -> Tuple[List[Dict[str, Any]], str]:
        """1. The executables and the executable-targets phase (this build's
        module only carries dump paths in its debug info, so it is not
        kept), then IREE's own build as a user makes it: the A/B object."""
        dump = self.work.folder('executables')
        phases = self.work.folder('phases')
        run(self.base + ['--iree-hal-dump-executable-files-to=' + dump,
                         '--dump-compilation-phases-to=' + phases,
                         '-o', self.work.file('dumped.vmfb')], 'iree-compile')
        with files.staged(self.reference_vmfb) as staged:
            run(self.base + ['-o', staged], 'iree-compile')
        phase = glob.glob(os.path.join(phases, '*.executable-targets.mlir'))
        if len(phase) != 1:
            raise Error('iree-compile wrote no executable-targets phase in %s'
                        % phases)
        self.context = self.ir.Context()
        return read_executables(self.ir, self.context, phase[0]), dump

    def describe(self, executables: List[Dict[str, Any]], dump: str
                 ) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
        """2. One kernel description per dispatch."""
        dispatches, kernels = [], []
        for executable in executables:
            name = executable['name']
            exports = [export['name'] for export in executable['exports']]
            entry = {'name': exports[0] if len(exports) == 1 else name,
                     'executable': name, 'exports': exports}
            dispatches.append(entry)
            if files.file_name_component(name) != name:
                # IREE substitutes DIR/<executable>.ptx: the name must be a
                # file name as it is.
                entry.update(selected='iree', reason='its name is not a '
                             'plain file name, so it cannot be substituted')
                continue
            configured = glob.glob(os.path.join(dump,
                                                'configured_*_%s.mlir' % name))
            ptx_files = glob.glob(os.path.join(dump, '*_%s_*.ptx' % name))
            if len(configured) != 1 or len(ptx_files) != 1:
                entry.update(selected='iree', reason='IREE dumped no single '
                             'configured module and PTX for it')
                continue
            ptx = files.read_text(ptx_files[0])
            views, functions = read_subspans(self.ir, self.context,
                                             configured[0])
            kernel, why_not = describe_dispatch(executable, views, functions,
                                                ptx, self.harness)
            if kernel is None:
                entry.update(selected='iree', reason=why_not)
                continue
            entry['launch'] = kernel['launch']
            entry['bindings'] = [a for a in kernel['args']
                                 if a['kind'] == 'buffer']
            kernels.append(kernel)
        return dispatches, kernels

    def run_stages(self, kernels: List[Dict[str, Any]]
                   ) -> Dict[str, Dict[str, Any]]:
        """3. The stages of llm-lower, on the same --llm-lower whose chip
        IREE was built for."""
        if not kernels:
            return {}
        set_path = self.work.file('kernels.json')
        result_path = self.work.file('decisions.json')
        if os.path.lexists(result_path):
            os.unlink(result_path)
        stem = os.path.splitext(os.path.basename(self.args.input))[0]
        files.write_json(set_path, {'name': stem, 'kernels': kernels})
        failure = None
        try:
            run_tool([self.kernels_tool, set_path,
                      '--llm-lower=' + self.args.llm_lower, '-o', result_path],
                     'llmptx-kernels', capture=False)
        except ChildFailed as error:
            # Exit status 1 with its decisions written: strict refused a
            # dispatch that fell back; anything else is the error itself.
            if error.returncode != 1 or not os.path.isfile(result_path):
                raise
            failure = error
        decided = files.read_json(result_path)
        chip = (decided.get('settings') or {}).get('chip') \
            if isinstance(decided, dict) else None
        if chip != self.chip:
            raise Error('llmptx-kernels compiled for %s, IREE was built for '
                        '%s' % (chip, self.chip))
        if failure:
            raise Error('llmptx-kernels: exit status 1 (strict: a dispatch '
                        'fell back to IREE\'s kernel)')
        return {k['name']: k for k in decided.get('kernels', [])
                if isinstance(k, dict) and 'name' in k}

    def substitute(self, dispatches: List[Dict[str, Any]],
                   decisions: Dict[str, Dict[str, Any]]) -> None:
        """4. Substitutions (the folder's earlier files removed first: a
        stale one would be substituted) and the substituted build."""
        self.substitutions.open().remove_listed()
        for entry in dispatches:
            record = decisions.get(entry['name'])
            if record is None:
                continue
            entry['reason'] = record.get('reason', '')
            entry['verification'] = record.get('verification')
            entry['candidates'] = [candidate_summary(c)
                                   for c in record.get('candidates', [])]
            entry['attempts'] = len(record.get('attempts', []))
            if 'exec_note' in record:
                entry['exec_note'] = record['exec_note']
            if record.get('selected') == 'llm' and record.get('ptx'):
                path = self.substitutions.file(entry['executable'] + '.ptx')
                files.write_text(path, record['ptx'])
                entry.update(selected='llm', candidate=record.get('candidate'),
                             substitution=path)
            else:
                entry['selected'] = 'iree'
        with files.staged(self.output) as staged:
            run(self.base + ['--iree-hal-substitute-executable-objects-from=' +
                             self.substitutions_path, '-o', staged],
                'iree-compile (substituted)')

    def write_report(self, dispatches: List[Dict[str, Any]]) -> None:
        for entry in dispatches:
            print('llmptx-iree: %-12s %-4s %s' % (
                entry['executable'], entry.get('selected', 'iree'),
                entry.get('reason', '')), file=sys.stderr)
        if self.args.report:
            files.write_json(self.args.report, {
                'input': os.path.abspath(self.args.input),
                'output': self.output, 'reference_vmfb': self.reference_vmfb,
                'substitutions': self.substitutions_path, 'chip': self.chip,
                'iree_compile': self.iree_compile,
                'llm_lower': self.args.llm_lower, 'dispatches': dispatches})


if __name__ == '__main__':
    sys.exit(main())
