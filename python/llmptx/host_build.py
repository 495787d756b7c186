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
"""

from __future__ import annotations

import argparse
import filecmp
import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional, Sequence, Tuple

from llmptx.mlir_text import UnbalancedText, closing_bracket, skip_string
from llmptx.tools import ToolNotFound, find_llvm_tool, find_tool

RUNTIME_NAME = 'libllmptx_gpu_runtime.so'

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


class BuildError(Exception):
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
        if not os.path.isfile(explicit):
            raise BuildError(f'--runtime {explicit}: no such file')
        return explicit
    from_env = os.environ.get('LLMPTX_GPU_RUNTIME')
    if from_env:
        if not os.path.isfile(from_env):
            raise BuildError(f'LLMPTX_GPU_RUNTIME={from_env}: no such file')
        return from_env
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
    if verbose:
        print('+ ' + ' '.join(_quote(part) for part in command),
              file=sys.stderr)
    try:
        result = subprocess.run(command, capture_output=True, text=True)
    except OSError as error:
        raise BuildError(f'{what}: cannot run {command[0]}: {error}')
    if verbose and result.stderr:
        sys.stderr.write(result.stderr)
    if result.returncode != 0:
        message = (result.stderr or result.stdout).rstrip()
        raise BuildError(f'{what} failed (exit status {result.returncode}):'
                         f'\n{message}' if message else
                         f'{what} failed (exit status {result.returncode})')
    return result


def _quote(part):
    return part if re.fullmatch(r'[\w@%+=:,./-]+', part) else repr(part)


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
    try:
        with open(input_path, encoding='utf-8') as stream:
            text = stream.read()
    except OSError as error:
        raise BuildError(f'cannot read {input_path}: {error.strerror}')
    if driver is not None and not os.path.isfile(driver):
        raise BuildError(f'--driver {driver}: no such file')
    left = _GPU_MODULE.search(text)
    if left:
        raise BuildError(f'{input_path} still has gpu.module @{left.group(1)}:'
                         ' run `llmptx-opt --llm-lower` on it first')
    if object_index is not None:
        text, _ = select_object(text, object_index)
    stub = None
    if driver is None:
        text, stub = own_main(text)

    runtime = find_runtime(runtime)
    try:
        host_opt = find_tool('llmptx-opt')
        mlir_translate = find_llvm_tool('mlir-translate', tools_dir)
        llvm_opt = find_llvm_tool('opt', tools_dir)
        llc = find_llvm_tool('llc', tools_dir)
    except ToolNotFound as error:
        raise BuildError(str(error))
    if compiler is None:
        variable, default = (('CXX', 'c++')
                             if driver and driver.endswith(_CXX_SUFFIXES)
                             else ('CC', 'cc'))
        compiler = os.environ.get(variable) or default

    work = keep_dir or tempfile.mkdtemp(prefix='llmptx-host-build-')
    os.makedirs(work, exist_ok=True)
    try:
        if stub is not None:
            driver = os.path.join(work, 'main.c')
            with open(driver, 'w', encoding='utf-8') as stream:
                stream.write(stub)
        # Diagnostics name the user's file unless the text was rewritten.
        host = input_path
        if object_index is not None or stub is not None:
            host = os.path.join(work, 'host.mlir')
            with open(host, 'w', encoding='utf-8') as stream:
                stream.write(text)
        lowered = os.path.join(work, 'host.llvm.mlir')
        llvm_ir = os.path.join(work, 'host.ll')
        obj = os.path.join(work, 'host.o')
        _run([host_opt, host,
              f'--pass-pipeline={host_pipeline(bare_pointers)}', '-o',
              lowered], os.path.basename(host_opt), verbose)
        with open(lowered, encoding='utf-8') as stream:
            left = unlowered_operations(stream.read())
        if left:
            details = '\n'.join(f'  {name} (line {line}: {text})'
                                for name, (line, text) in left.items())
            raise BuildError('the host pipeline left operations it cannot '
                             f'lower (see docs/host-programs.md, Limits):\n'
                             f'{details}')
        _run([mlir_translate, '--mlir-to-llvmir', lowered, '-o', llvm_ir],
             os.path.basename(mlir_translate), verbose)
        # opt first, as mlir-translate's output is meant to be optimized
        # before code generation: llc alone fails on some of it (the
        # coroutines of the async dialect).
        optimized = os.path.join(work, 'host.opt.ll')
        _run([llvm_opt, '-O2', '-S', llvm_ir, '-o', optimized],
             os.path.basename(llvm_opt), verbose)
        _run([llc, '-O2', '-filetype=obj', '-relocation-model=pic', optimized,
              '-o', obj], os.path.basename(llc), verbose)

        out_dir = os.path.dirname(os.path.abspath(output))
        os.makedirs(out_dir, exist_ok=True)
        # The executable and the runtime travel together: it looks for the
        # library in its own folder first.
        local_runtime = os.path.join(out_dir, RUNTIME_NAME)
        if not (os.path.exists(local_runtime) and
                (os.path.samefile(local_runtime, runtime) or
                 filecmp.cmp(local_runtime, runtime, shallow=False))):
            # Through a temporary file and a rename: builds that share an
            # output folder never link against a half-written copy.
            staging = tempfile.NamedTemporaryFile(
                dir=out_dir, prefix='.' + RUNTIME_NAME, delete=False)
            staging.close()
            try:
                shutil.copy2(runtime, staging.name)
                os.replace(staging.name, local_runtime)
            finally:
                if os.path.exists(staging.name):
                    os.unlink(staging.name)
        _run([compiler, '-O2', '-o', output, driver, obj, local_runtime,
              '-Wl,-rpath,$ORIGIN', '-lm', *link_args], compiler, verbose)
    finally:
        if not keep_dir:
            shutil.rmtree(work, ignore_errors=True)
    return output


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
    parser = argparse.ArgumentParser(
        prog='llmptx-host-build',
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
                        help='keep the intermediate files in DIR')
    parser.add_argument('-v', '--verbose', action='store_true',
                        help='print each command')
    args = parser.parse_args(_join_link_args(
        sys.argv[1:] if argv is None else argv))
    if args.object is not None and args.object < 0:
        parser.error('--object must be 0 or more')
    try:
        build(args.input, args.driver, args.output, args.object, args.runtime,
              args.tools_dir, args.cc, args.link_arg, args.keep, args.verbose,
              args.bare_pointers)
    except BuildError as error:
        print(f'host_build: error: {error}', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
