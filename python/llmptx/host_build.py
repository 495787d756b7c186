#===- host_build.py - Build a host program around its gpu.binary ----------===#
"""Builds an executable from the output of `llmptx-opt --llm-lower`.

The input is a module with host code (func.func with gpu.alloc, gpu.memcpy,
gpu.launch_func ...) and the `gpu.binary` ops that llm-lower made of its
`gpu.module`s. The host side is lowered to LLVM with Debian's MLIR 22 tools,
compiled to an object, and linked with a C (or C++) driver that calls the
program's `_mlir_ciface_*` functions and with libllmptx_gpu_runtime.so, which
implements the `mgpu*` functions on the CUDA driver:

    llmptx-host-build out.mlir --driver main.c -o prog [--object 1]

(`python3 -m llmptx.host_build` is the same command.)

Without --driver the program is its own: it defines `func.func @main()`
(no arguments, no results), as MLIR's GPU integration tests do, and the
executable runs it and exits 0.

The executable finds the runtime through an `$ORIGIN` rpath, and the runtime
is copied next to it, so the two can be copied together to a GPU machine
that has only the NVIDIA driver. Only the standard library is used.

Files (llmptx.files): the executable and the runtime's copy never replace
the program, the driver or the runtime; both are written through a
temporary file and a rename. --keep DIR is made by the tool, or an empty
folder, or one it made before (its `.llmptx-host-build` marker lists what
it wrote there); any other folder is refused.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import re
import sys
import tempfile
from typing import Dict, List, Optional, Sequence, Tuple

from llmptx import files
from llmptx.cli import ToolError, run_main, run_tool
from llmptx.mlir_text import UnbalancedText, closing_bracket, skip_string
from llmptx.tools import ToolNotFound, find_llvm_tool, find_tool

PROG = 'llmptx-host-build'
RUNTIME_NAME = 'libllmptx_gpu_runtime.so'
# The --keep folder's marker (llmptx.files.WorkFolder).
MARKER = '.llmptx-host-build'

# Host lowering for MLIR 22, run by llmptx-opt (MLIR 22's passes and the
# project's own). gpu-to-llvm lowers gpu.alloc/memcpy/memset/dealloc only
# when they are async, so gpu-async-region first turns the synchronous ones
# into async ops on one stream per function (waited for where the
# function's synchronous semantics need it); llmgen-host-async then joins
# several dependencies into one and makes host-shared allocations
# synchronous, the only forms gpu-to-llvm lowers. Host linalg ops on
# memrefs (linalg.fill) and vector ops (vector.print) lower to loops and to
# the print calls the runtime library defines. The async dialect's
# async.execute regions become coroutines calling the mlirAsyncRuntime*
# functions (also in the runtime library): after gpu-to-llvm, as the GPU ops
# inside them are lowered where they stand and the outlined coroutines must
# not meet gpu-to-llvm's function conversion, and before convert-scf-to-cf,
# as an async.execute region must stay one block.
def host_pipeline(bare_pointers: bool = False) -> str:
    """The pass pipeline of the host side; `bare_pointers` matches
    kernels lowered with llm-lower's bare-pointers option."""
    bare = 'true' if bare_pointers else 'false'
    return ('builtin.module('
            'func.func(gpu-async-region),'
            'llmgen-host-async,'
            'convert-linalg-to-loops,'
            'convert-vector-to-scf,'
            'expand-strided-metadata,'
            'lower-affine,'
            f'gpu-to-llvm{{use-bare-pointers-for-kernels={bare}}},'
            'async-to-async-runtime,'
            'async-runtime-ref-counting,'
            'async-runtime-ref-counting-opt,'
            'convert-scf-to-cf,'
            'convert-async-to-llvm,'
            'convert-vector-to-llvm,'
            'convert-cf-to-llvm,'
            'convert-arith-to-llvm,'
            'convert-index-to-llvm,'
            'finalize-memref-to-llvm,'
            'convert-func-to-llvm,'
            'reconcile-unrealized-casts)')

_CXX_SUFFIXES = ('.cc', '.cpp', '.cxx', '.C')


class BuildError(ToolError):
    """A step failed; the message says which and why."""


#===----------------------------------------------------------------------===#
# --object N: the offloading handler of every gpu.binary
#===----------------------------------------------------------------------===#

_BINARY = re.compile(r'\bgpu\.binary\s+@([\w$.-]+|"[^"]*")')


def _closing(text, start):
    """closing_bracket, its failure a BuildError."""
    try:
        return closing_bracket(text, start)
    except UnbalancedText as error:
        raise BuildError(f'{error} in gpu.binary')


def _skip_string(text, start):
    """skip_string, its failure a BuildError."""
    try:
        return skip_string(text, start)
    except UnbalancedText as error:
        raise BuildError(f'{error} in gpu.binary')


def _count_objects(text, start, end):
    """The #gpu.object entries directly inside the list text[start:end]."""
    count = 0
    i = start + 1
    while i < end - 1:
        ch = text[i]
        if ch == '"':
            i = _skip_string(text, i)
            continue
        if text.startswith('#gpu.object<', i):
            count += 1
            i = _closing(text, i + len('#gpu.object'))
            continue
        i += 1
    return count


def select_object(text: str, index: int) -> Tuple[str, List[str]]:
    """Makes every gpu.binary load object `index` (#gpu.select_object<N>).

    Returns the new text and the names of the binaries. A binary with fewer
    objects is an error.
    """
    out = []
    names = []
    pos = 0
    for match in _BINARY.finditer(text):
        if match.start() < pos:
            continue
        name = match.group(1)
        i = match.end()
        while i < len(text) and text[i].isspace():
            i += 1
        handler_start = handler_end = i
        if text.startswith('<', i):
            handler_end = _closing(text, i)
        j = handler_end
        while j < len(text) and text[j].isspace():
            j += 1
        if not text.startswith('[', j):
            raise BuildError(f'gpu.binary @{name}: expected its object list')
        list_end = _closing(text, j)
        objects = _count_objects(text, j, list_end)
        if index >= objects:
            raise BuildError(f'gpu.binary @{name} has {objects} object(s); '
                             f'--object {index} is out of range')
        current = re.search(r'select_object<(\d+)', text[handler_start:
                                                         handler_end])
        if ('launch = {' in text[j:list_end] and
                index != (int(current.group(1)) if current else 0)):
            # The objects need different launches: switching only the
            # handler would run a kernel under the other object's launch.
            raise BuildError(
                f'gpu.binary @{name}: its objects record their own launch '
                f'configurations, which --object cannot rewrite; run '
                f'`llmptx-opt --llmgen-select-object=index={index}` on the '
                f'input and build its output without --object')
        out.append(text[pos:handler_start])
        out.append(f'<#gpu.select_object<{index}>> ')
        pos = j
        names.append(name)
    out.append(text[pos:])
    if not names:
        raise BuildError('--object: the input has no gpu.binary (in the '
                         'printed form `gpu.binary @name [...]`)')
    return ''.join(out), names


#===----------------------------------------------------------------------===#
# Tools
#===----------------------------------------------------------------------===#


def find_runtime(explicit: Optional[str] = None) -> str:
    """libllmptx_gpu_runtime.so: --runtime, $LLMPTX_GPU_RUNTIME, or the lib/
    folder next to the bin/ of the build's llmptx-opt."""
    if explicit:
        if not os.path.lexists(explicit):
            raise BuildError(f'--runtime {explicit}: no such file')
        return files.regular_file(explicit, '--runtime')
    from_env = os.environ.get('LLMPTX_GPU_RUNTIME')
    if from_env:
        if not os.path.lexists(from_env):
            raise BuildError(f'LLMPTX_GPU_RUNTIME={from_env}: no such file')
        return files.regular_file(from_env, 'LLMPTX_GPU_RUNTIME=')
    try:
        opt = find_tool('llmptx-opt')
    except ToolNotFound:
        opt = None
    if opt:
        candidate = os.path.join(os.path.dirname(os.path.realpath(opt)),
                                 os.pardir, 'lib', RUNTIME_NAME)
        if os.path.isfile(candidate):
            return os.path.normpath(candidate)
    raise BuildError(f'{RUNTIME_NAME} not found (build it with ninja, then '
                     'pass --runtime PATH or set LLMPTX_GPU_RUNTIME)')


def _run(command, what, verbose):
    """A step: run_tool's error (the step's own message, capped; a crash as
    one line naming the tool and the signal) as a BuildError."""
    try:
        return run_tool(command, what, verbose=verbose)
    except ToolError as error:
        raise BuildError(str(error))


#===----------------------------------------------------------------------===#
# The build
#===----------------------------------------------------------------------===#

# An operation at the start of a line of the lowered module (results first).
_OPERATION = re.compile(r'^\s*(?:%[^=]*=\s*)?"?([a-z_][\w]*\.[\w.]+)',
                        re.MULTILINE)
# What may remain after the host pipeline: the LLVM dialect, and the ops
# that mlir-translate's GPU translation handles itself.
_TRANSLATED = re.compile(r'llvm\.|gpu\.binary$|gpu\.launch_func$|'
                         r'builtin\.module$|'
                         r'builtin\.unrealized_conversion_cast$')


def unlowered_operations(lowered_text: str) -> Dict[str, Tuple[int, str]]:
    """The first line of each kind of op the pipeline could not lower."""
    found = {}
    for match in _OPERATION.finditer(lowered_text):
        name = match.group(1)
        if _TRANSLATED.match(name):
            continue
        if name not in found:
            line = lowered_text.count('\n', 0, match.start()) + 1
            text = lowered_text[match.start():].split('\n', 1)[0].strip()
            found[name] = (line, text)
    return found


_GPU_MODULE = re.compile(r'^\s*gpu\.module\s+@([\w$.-]+)', re.MULTILINE)

# The program's own entry point, renamed so that a C main can call it: an
# MLIR `@main` returns nothing, which would leave the exit status undefined.
PROGRAM_MAIN = 'llmptx_program_main'
_MAIN_SYMBOL = re.compile(r'@main\b')
_MAIN_DEFINITION = re.compile(r'^\s*func\.func\s+@main\s*\(\s*\)\s*(\{|attributes)',
                              re.MULTILINE)


def own_main(text: str) -> Tuple[str, str]:
    """The text with `@main` renamed and the C main that calls it; an error
    when the program defines no `func.func @main()`."""
    if not _MAIN_DEFINITION.search(text):
        raise BuildError('no --driver and no `func.func @main()` (without '
                         'arguments or results) in the program')
    if PROGRAM_MAIN in text:
        raise BuildError(f'the program already uses the name {PROGRAM_MAIN}')
    stub = (f'void {PROGRAM_MAIN}(void);\n'
            f'int main(void) {{ {PROGRAM_MAIN}(); return 0; }}\n')
    return _MAIN_SYMBOL.sub('@' + PROGRAM_MAIN, text), stub


def build(input_path: str, driver: Optional[str], output: str,
          object_index: Optional[int] = None, runtime: Optional[str] = None,
          tools_dir: Optional[str] = None, compiler: Optional[str] = None,
          link_args: Sequence[str] = (), keep_dir: Optional[str] = None,
          verbose: bool = False, bare_pointers: bool = False) -> str:
    """Runs every step; returns the path of the executable."""
    return HostBuild(input_path, driver, output, object_index, runtime,
                     tools_dir, compiler, link_args, keep_dir, verbose,
                     bare_pointers).run()


class HostBuild:
    """One build: every input, output and tool is checked before the first
    step, then the steps run as methods (lower, translate, optimize and
    generate code, link), each a child tool."""

    def __init__(self, input_path: str, driver: Optional[str], output: str,
                 object_index: Optional[int], runtime: Optional[str],
                 tools_dir: Optional[str], compiler: Optional[str],
                 link_args: Sequence[str], keep_dir: Optional[str],
                 verbose: bool, bare_pointers: bool) -> None:
        self.input_path, self.output = input_path, output
        self.link_args, self.verbose = link_args, verbose
        self.bare_pointers, self.keep_dir = bare_pointers, keep_dir
        text = files.read_text(input_path)
        if driver is not None:
            if not os.path.lexists(driver):
                raise BuildError(f'--driver {driver}: no such file')
            # A C source beyond the reader's limit (a 16 GiB sparse file)
            # would keep the compiler busy for minutes: refused like one.
            files.regular_file(driver, '--driver', files.MAX_DOCUMENT_BYTES)
        left = _GPU_MODULE.search(text)
        if left:
            raise BuildError(f'{input_path} still has gpu.module '
                             f'@{left.group(1)}: run `llmptx-opt --llm-lower` '
                             'on it first')
        self.rewritten = object_index is not None or driver is None
        if object_index is not None:
            text, _ = select_object(text, object_index)
        self.stub = None
        if driver is None:
            text, self.stub = own_main(text)
        self.text, self.driver = text, driver
        self.runtime = find_runtime(runtime)
        self.local_runtime = os.path.join(
            os.path.dirname(os.path.abspath(output)), RUNTIME_NAME)
        self.inputs = [('the program', input_path), ('--driver', driver),
                       ('the runtime', self.runtime)]
        outputs = [('-o', output)]
        if not files.same_file(self.local_runtime, self.runtime):
            outputs.append(("the runtime's copy", self.local_runtime))
        files.check_outputs(self.inputs, outputs, [('--keep', keep_dir)])
        self.keep = keep_dir and files.WorkFolder(
            keep_dir, PROG, MARKER, '--keep', self.inputs)
        try:
            self.host_opt = find_tool('llmptx-opt')
            self.mlir_translate = find_llvm_tool('mlir-translate', tools_dir)
            self.llvm_opt = find_llvm_tool('opt', tools_dir)
            self.llc = find_llvm_tool('llc', tools_dir)
        except ToolNotFound as error:
            raise BuildError(str(error))
        if compiler is None:
            variable, default = (('CXX', 'c++')
                                 if driver and driver.endswith(_CXX_SUFFIXES)
                                 else ('CC', 'cc'))
            compiler = os.environ.get(variable) or default
        self.compiler = compiler

    def run(self) -> str:
        if self.keep:
            self.keep.open()
            for path in (self.output, self.local_runtime):
                self.keep.adopt(path)
            self.steps(self.keep)
            return self.output
        with tempfile.TemporaryDirectory(prefix='llmptx-host-build-') as work:
            self.steps(files.WorkFolder(work, PROG, MARKER,
                                        'the work folder').open())
        return self.output

    def steps(self, work: files.WorkFolder) -> None:
        driver = self.driver
        if self.stub is not None:
            driver = work.file('main.c')
            files.write_text(driver, self.stub)
        # Diagnostics name the user's file unless the text was rewritten.
        host = self.input_path
        if self.rewritten:
            host = work.file('host.mlir')
            files.write_text(host, self.text)
        obj = self.code(host, work)
        self.link(driver, obj)

    def code(self, host: str, work: files.WorkFolder) -> str:
        """The host side as an object file: lowered, translated to LLVM IR,
        optimized, compiled."""
        lowered = work.file('host.llvm.mlir')
        _run([self.host_opt, host,
              f'--pass-pipeline={host_pipeline(self.bare_pointers)}', '-o',
              lowered], os.path.basename(self.host_opt), self.verbose)
        left = unlowered_operations(files.read_text(lowered))
        if left:
            details = '\n'.join(f'  {name} (line {line}: {text})'
                                for name, (line, text) in left.items())
            raise BuildError('the host pipeline left operations it cannot '
                             f'lower (see docs/host-programs.md, Limits):\n'
                             f'{details}')
        llvm_ir = work.file('host.ll')
        _run([self.mlir_translate, '--mlir-to-llvmir', lowered, '-o',
              llvm_ir], os.path.basename(self.mlir_translate), self.verbose)
        # opt first, as mlir-translate's output is meant to be optimized
        # before code generation: llc alone fails on some of it (the
        # coroutines of the async dialect).
        optimized = work.file('host.opt.ll')
        _run([self.llvm_opt, '-O2', '-S', llvm_ir, '-o', optimized],
             os.path.basename(self.llvm_opt), self.verbose)
        obj = work.file('host.o')
        _run([self.llc, '-O2', '-filetype=obj', '-relocation-model=pic',
              optimized, '-o', obj], os.path.basename(self.llc), self.verbose)
        return obj

    def link(self, driver: str, obj: str) -> None:
        """The executable, with the runtime next to it: it looks for the
        library in its own folder first, so the two travel together."""
        if not (os.path.isfile(self.local_runtime) and
                (files.same_file(self.local_runtime, self.runtime) or
                 filecmp.cmp(self.local_runtime, self.runtime,
                             shallow=False))):
            # Through a temporary file and a rename: builds that share an
            # output folder never link against a half-written copy.
            files.write_bytes(self.local_runtime,
                              files.read_bytes(self.runtime, 'the runtime'),
                              mode=0o755)
        with files.staged(self.output) as staged:
            _run([self.compiler, '-O2', '-o', staged, driver, obj,
                  self.local_runtime, '-Wl,-rpath,$ORIGIN', '-lm',
                  *self.link_args], self.compiler, self.verbose)


def _join_link_args(argv):
    """`--link-arg -Wl,...` as `--link-arg=-Wl,...`: argparse would take a
    value that starts with '-' for an option."""
    joined, i = [], 0
    while i < len(argv):
        if argv[i] == '--link-arg' and i + 1 < len(argv):
            joined.append('--link-arg=' + argv[i + 1])
            i += 2
            continue
        joined.append(argv[i])
        i += 1
    return joined


def main(argv: Optional[List[str]] = None) -> int:
    return run_main(PROG, lambda: _main(argv))


def _main(argv: Optional[List[str]]) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description='Build an executable from llm-lower output (host code '
        'and gpu.binary), a C/C++ driver and libllmptx_gpu_runtime.so.')
    parser.add_argument('input',
                        help='MLIR module from llmptx-opt --llm-lower')
    parser.add_argument('--driver',
                        help='C or C++ source with main(), calling the '
                        "program's _mlir_ciface_* functions (default: the "
                        "program's own func.func @main())")
    parser.add_argument('-o', '--output', required=True,
                        help='the executable to write')
    parser.add_argument('--object', type=int, metavar='N',
                        help='load object N of every gpu.binary '
                        '(#gpu.select_object<N>); default: the binary\'s own '
                        'handler (object 0 when it has none)')
    parser.add_argument('--runtime', metavar='PATH',
                        help=f'{RUNTIME_NAME} to link (default: '
                        '$LLMPTX_GPU_RUNTIME, ../lib of the build\'s '
                        'llmptx-opt)')
    parser.add_argument('--tools-dir', metavar='DIR',
                        help='folder of mlir-translate, opt and llc '
                        '(default: the -22 tools on PATH or llvm-config-22 '
                        '--bindir)')
    parser.add_argument('--cc', metavar='COMPILER',
                        help='compiler that builds the driver and links '
                        '(default: $CC or cc; $CXX or c++ for C++ drivers)')
    parser.add_argument('--link-arg', action='append', default=[],
                        metavar='ARG', help='extra compiler/linker argument '
                        '(`--link-arg -Wl,...` and `--link-arg=-Wl,...` alike)')
    parser.add_argument('--bare-pointers', action='store_true',
                        help='the kernels were lowered with llm-lower\'s '
                        'bare-pointers option: pass memrefs to them as bare '
                        'pointers')
    parser.add_argument('--keep', metavar='DIR',
                        help='keep the intermediate files in DIR (a new or '
                        'empty folder, or one an earlier --keep made)')
    parser.add_argument('-v', '--verbose', action='store_true',
                        help='print each command')
    args = parser.parse_args(_join_link_args(
        sys.argv[1:] if argv is None else argv))
    if args.object is not None and args.object < 0:
        parser.error('--object must be 0 or more')
    build(args.input, args.driver, args.output, args.object, args.runtime,
          args.tools_dir, args.cc, args.link_arg, args.keep, args.verbose,
          args.bare_pointers)
    return 0


if __name__ == '__main__':
    sys.exit(main())
