"""The library of proven PTX and CUDA fragments (fragments/, format in
fragments/FORMAT.md).

    llmptx-fragments check [FILE...]   every field, the text in its proof,
                                       the proof assembling for each chip
    llmptx-fragments list              one line per fragment
    llmptx-fragments select --chip sm_90 [--language cuda] WORD...
                                       the fragments whose ops name any WORD
    llmptx-fragments bundle KERNEL [--chip sm_90]
                                       the verification bundle of a proof
                                       kernel of its own (fragments/proofs)

(`python3 -m llmptx.fragments` is the same command.) The library is the
checkout's (tools.source_root): the one this package is installed from, or
the one the command runs in.

A fragment is only ever text that ran: its PTX lines (`NAME.ptx`) or CUDA
C++ lines (`NAME.cu`, `language: cuda`) are a contiguous run of an answer
that was verified on a GPU (a suite kernel's, docs/suite, or a proof
kernel's of its own, fragments/proofs), in the answer's ```ptx or ```cuda
block, and `check` refuses one that is not. A CUDA proof is compiled with
NVRTC (`llmptx-ptx cuda`) before its PTX is assembled.

Every file is read through llmptx.files (a FIFO, a folder, /dev/zero or
text that is not UTF-8 is an error naming it); `bundle` takes a plain
kernel name, never a path, and writes its bundle through a temporary file.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import os
import re
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional, Set, Tuple

from llmptx import files
from llmptx.cli import ToolError, run_main, signal_name
from llmptx.suite import bundles, export
from llmptx.tools import ToolNotFound, find_tool, source_root

PROG = 'llmptx-fragments'

ROOT = source_root() or os.curdir
FRAGMENTS = os.path.join(ROOT, 'fragments')
ANSWERS = os.path.join(ROOT, 'docs', 'suite', 'answers')

FIELDS = ('name', 'does', 'chips', 'ptx', 'needs', 'requires', 'ops', 'reads',
          'writes', 'defines', 'adapt', 'proof')
# Optional: `language: cuda` marks a CUDA fragment (a .cu file); PTX is the
# default.
OPTIONAL_FIELDS = ('language',)
LANGUAGES = {'.ptx': 'ptx', '.cu': 'cuda'}
REQUIREMENT = re.compile(r'^(align [1-9][0-9]*|block [1-9][0-9]*|warps)$')
BUNDLES = os.path.join(ROOT, 'docs', 'suite', 'bundles')
PROOFS = os.path.join(FRAGMENTS, 'proofs')
OPS = {'elementwise', 'reduction', 'sum', 'max', 'softmax', 'layernorm', 'exp',
       'erf', 'gelu', 'matmul', 'mma', 'f16', 'bf16', 'f32', 'i8', 'i32',
       'histogram', 'atomic', 'copy', 'vector', 'shared', 'async', 'tma',
       'loop', 'warp', 'dot', 'attention'}
CHIPS = re.compile(r'^sm_[0-9]{2}a?$')


class Fragment:
    def __init__(self, path: str) -> None:
        self.path = path
        self.fields = {}
        self.lines = []
        self.problems = []
        text = files.read_text(path)
        for number, line in enumerate(text.splitlines(), 1):
            if line.startswith('//!'):
                if self.lines:
                    self.problems.append('line %d: a header line among the '
                                         'fragment\'s lines' % number)
                    continue
                key, colon, value = line[3:].partition(':')
                key = key.strip()
                if not colon or key not in FIELDS + OPTIONAL_FIELDS:
                    self.problems.append('line %d: unknown header %r' %
                                         (number, key))
                elif key in self.fields:
                    self.problems.append('line %d: %s given twice' %
                                         (number, key))
                else:
                    self.fields[key] = value.strip()
            elif line.strip() or self.lines:
                self.lines.append(line)
        while self.lines and not self.lines[-1].strip():
            self.lines.pop()

    @property
    def name(self) -> str:
        return self.fields.get('name', '')

    def ops(self) -> Set[str]:
        return set(re.split(r'[\s,]+', self.fields.get('ops', ''))) - {''}

    def chips(self) -> List[str]:
        return [c.strip() for c in self.fields.get('chips', '').split(',')
                if c.strip()]

    @property
    def language(self) -> str:
        """'ptx' or 'cuda', as the header says (PTX when it says nothing)."""
        return self.fields.get('language', 'ptx')

    def proof_kernel(self) -> str:
        return self.fields.get('proof', '').split()[0] \
            if self.fields.get('proof') else ''


def answer_ptx(kernel: str) -> Optional[str]:
    """The PTX module of a suite answer: its ```ptx block, else (an answer
    that is the bare module) from `.version` to a closing fence; None when
    there is neither."""
    return answer_source(kernel, 'ptx')


def answer_source(kernel: str, language: str) -> Optional[str]:
    """The answer's module in `language`: its ```ptx block (else, an answer
    that is the bare module, from `.version` to a closing fence) or its
    ```cuda block; None when there is none."""
    path = os.path.join(ANSWERS, kernel + '.txt')
    if not os.path.isfile(path):
        path = os.path.join(PROOFS, kernel + '.txt')
    if not os.path.isfile(path):
        return None
    text = files.read_text(path)
    if language == 'cuda':
        match = re.search(r'```cuda\n(.*?)^```', text, re.S | re.M)
    else:
        match = re.search(r'```ptx\n(.*?)```', text, re.S) or \
            re.search(r'^(\.version\b.*?)(?:^```|\Z)', text, re.S | re.M)
    return match.group(1) if match else None


def contains_run(haystack_lines: List[str], needle_lines: List[str]) -> bool:
    """Whether `needle_lines` occur contiguously in `haystack_lines`,
    comparing each line without its surrounding whitespace."""
    hay = [line.strip() for line in haystack_lines]
    needle = [line.strip() for line in needle_lines]
    if not needle:
        return False
    for start in range(len(hay) - len(needle) + 1):
        if hay[start:start + len(needle)] == needle:
            return True
    return False


def assemble(ptx: str, chip: str, tool: str) -> str:
    """The retargeted module through `llmptx-ptx check`; '' when it
    assembles, else the first error."""
    retargeted = re.sub(r'^\s*\.target\s+\S+', lambda _: '.target ' + chip,
                        ptx, count=1, flags=re.M)
    with tempfile.NamedTemporaryFile('w', suffix='.ptx', delete=False) as f:
        f.write(retargeted)
        path = f.name
    try:
        result = subprocess.run([tool, 'check', '--chip', chip, path],
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
    finally:
        os.unlink(path)
    if result.returncode == 0:
        return ''
    if result.returncode < 0:
        return 'llmptx-ptx check crashed (%s)' % signal_name(
            -result.returncode)
    errors = [line for line in result.stdout.splitlines() if 'error' in line]
    return (errors or result.stdout.splitlines() or ['failed'])[0]


# (sha256 of the CUDA source, chip) -> (PTX or None, the first error): one
# NVRTC compile per proof and chip however many fragments it proves.
_CUDA_PTX: Dict[Tuple[str, str], Tuple[Optional[str], str]] = {}


def compile_cuda(source: str, chip: str, tool: str) -> Tuple[Optional[str],
                                                             str]:
    """The PTX NVRTC makes of `source` for `chip` through `llmptx-ptx cuda`
    (as the pipeline compiles a CUDA candidate), or None and the first
    error."""
    key = (hashlib.sha256(source.encode()).hexdigest(), chip)
    if key in _CUDA_PTX:
        return _CUDA_PTX[key]
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, 'proof.cu')
        out = os.path.join(work, 'proof.ptx')
        files.write_text(path, source)
        result = subprocess.run([tool, 'cuda', '--chip', chip, path, '-o',
                                 out], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        if result.returncode < 0:
            compiled = (None, 'llmptx-ptx cuda crashed (%s)' %
                        signal_name(-result.returncode))
        elif result.returncode != 0 or not os.path.isfile(out):
            errors = [line for line in result.stdout.splitlines()
                      if 'error' in line]
            compiled = (None, (errors or result.stdout.splitlines() or
                               ['failed'])[0])
        else:
            compiled = (files.read_text(out), '')
    _CUDA_PTX[key] = compiled
    return compiled


def assemble_proof(fragment: Fragment, proof: str, chip: str,
                   tool: str) -> str:
    """'' when the proof assembles for `chip` (a CUDA proof compiled by NVRTC
    first), else the first error."""
    if fragment.language != 'cuda':
        return assemble(proof, chip, tool)
    ptx, error = compile_cuda(proof, chip, tool)
    if ptx is None:
        return 'llmptx-ptx cuda: ' + error
    key = ('ptxas', hashlib.sha256(ptx.encode()).hexdigest(), chip)
    if key not in _CUDA_PTX:
        _CUDA_PTX[key] = (None, assemble(ptx, chip, tool))
    return _CUDA_PTX[key][1]


def proof_bundle(kernel: str) -> str:
    """The proof's verification bundle: the suite's, else fragments/proofs'
    (which may not exist yet)."""
    bundle = os.path.join(BUNDLES, kernel + '.bundle.json')
    if not os.path.isfile(bundle):
        bundle = os.path.join(PROOFS, kernel + '.bundle.json')
    return bundle


def used_in_proof(fragment: Fragment, proof: str, kernel: str,
                  tool: str) -> List[str]:
    """`llmptx-ptx fragments` on the proof's module with the proof's
    bundle: the fragment must be found there (the use check recognises it)
    and its requirements must hold for the proof's stated facts. The
    problems, empty when both hold."""
    bundle = proof_bundle(kernel)
    cuda = fragment.language == 'cuda'
    command = [tool, 'fragments', '--fragments',
               os.path.dirname(os.path.abspath(fragment.path))]
    if cuda:
        # The chip a CUDA source is compiled for is the caller's to say; a
        # proof kernel's bundle and runner results come after its answer,
        # so without one the requirements are listed as not checked.
        command += ['--chip', fragment.chips()[0] if fragment.chips()
                    else 'sm_90']
        if os.path.isfile(bundle):
            command += ['--bundle', bundle]
    else:
        command += ['--bundle', bundle]
    with tempfile.NamedTemporaryFile('w', suffix='.cu' if cuda else '.ptx',
                                     delete=False) as f:
        f.write(proof)
        path = f.name
    try:
        result = subprocess.run(
            command + [path], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
    finally:
        os.unlink(path)
    if result.returncode < 0:
        return ['llmptx-ptx fragments crashed (%s) on its proof %s' %
                (signal_name(-result.returncode), kernel)]
    mine = "fragment '%s'" % fragment.name
    lines = [line for line in result.stdout.splitlines() if mine in line]
    problems = [line.split(': ', 1)[-1] for line in lines
                if ': error: ' in line]
    if not any(': note: ' in line for line in lines):
        problems.append('llmptx-ptx fragments does not find it in its proof '
                        '%s (%s)' % (kernel, (result.stdout.strip().splitlines()
                                              or ['no output'])[-1]))
    return problems


def check(fragment: Fragment, tool: Optional[str]) -> List[str]:
    """The problems of one fragment (empty: it is sound)."""
    problems = list(fragment.problems)
    for key in FIELDS:
        if not fragment.fields.get(key):
            problems.append('missing %s' % key)
    stem, extension = os.path.splitext(os.path.basename(fragment.path))
    language = fragment.fields.get('language', 'ptx')
    if language not in LANGUAGES.values():
        problems.append('language %r is not ptx or cuda' % language)
    elif LANGUAGES.get(extension, 'ptx') != language:
        problems.append('a %s fragment is a %s file, not %s' % (
            language, {v: k for k, v in LANGUAGES.items()}[language],
            extension or 'a file without an extension'))
    if fragment.name and fragment.name != stem:
        problems.append('name %s differs from the file name %s' %
                        (fragment.name, stem))
    unknown = fragment.ops() - OPS
    if unknown:
        problems.append('ops not in the vocabulary: %s' %
                        ', '.join(sorted(unknown)))
    chips = fragment.chips()
    for chip in chips:
        if not CHIPS.match(chip):
            problems.append('chip %r is not sm_NN[a]' % chip)
    if len(set(chips)) != len(chips):
        problems.append('chips: %s given twice' %
                        next(c for i, c in enumerate(chips) if c in chips[:i]))
    if not re.match(r'^\d+\.\d+$', fragment.fields.get('ptx', '')):
        problems.append('ptx must be an ISA version such as 7.0')
    requirements = fragment.fields.get('requires', '')
    if requirements != 'nothing':
        for item in requirements.split(','):
            if item.strip() and not REQUIREMENT.match(item.strip()):
                problems.append('requirement %r is not align N, block N or '
                                'warps' % item.strip())
    if not fragment.lines:
        problems.append('no %s lines' % language.upper())
    kernel = fragment.proof_kernel()
    if kernel and files.file_name_component(kernel) != kernel:
        problems.append('proof %r is not a kernel name' % kernel)
        kernel = ''
    block = 'cuda' if language == 'cuda' else 'ptx'
    proof = answer_source(kernel, block) if kernel else None
    if kernel and proof is None:
        problems.append('proof %s: no answer with a %s block in %s or %s' %
                        (kernel, block, ANSWERS, PROOFS))
    if proof is not None and fragment.lines:
        if not contains_run(proof.splitlines(), fragment.lines):
            problems.append('the %s lines are not a contiguous run of the '
                            '%s answer' % (block.upper(), kernel))
        if tool:
            # Each chip once: a header listing sm_90 ten thousand times must
            # not assemble the proof ten thousand times.
            for chip in dict.fromkeys(filter(CHIPS.match, chips)):
                error = assemble_proof(fragment, proof, chip, tool)
                if error:
                    problems.append('proof %s does not assemble for %s: %s' %
                                    (kernel, chip, error))
            problems += used_in_proof(fragment, proof, kernel, tool)
    return problems


def make_bundle(kernel: str, chip: str, opt: str, outdir: str = PROOFS) -> str:
    """Writes OUTDIR/KERNEL.bundle.json: the bundle llm-lower builds
    (verify=exec, emit-bundles) for fragments/proofs/KERNEL.mlir with
    fragments/proofs/KERNEL.txt as the candidate, byte for byte as llm-lower
    wrote it (the file the H200 ran). The path, or raises RuntimeError with
    llm-lower's messages."""
    if files.file_name_component(kernel) != kernel:
        raise ToolError('%r is not a kernel name (a plain file name of '
                        'fragments/proofs, without .mlir)' % kernel)
    mlir = os.path.join(PROOFS, kernel + '.mlir')
    answer = os.path.join(PROOFS, kernel + '.txt')
    if not os.path.lexists(mlir):
        raise ToolError('no proof kernel %s (%s)' % (kernel, mlir))
    files.regular_file(mlir)
    target = os.path.join(outdir, kernel + '.bundle.json')
    files.check_outputs([('the proof kernel', mlir), ('its answer', answer)],
                        [('the bundle', target)])
    with tempfile.TemporaryDirectory() as work:
        try:
            path, log = bundles.emit_bundle(
                opt, mlir, PROOFS, work, 'chip=%s features=+ptx80' % chip)
        except export.ExportError as error:
            raise RuntimeError(str(error))
        if path is None:
            raise RuntimeError('%s: llm-lower wrote no bundle:\n%s' %
                               (mlir, log.strip()))
        files.write_bytes(target, files.read_bytes(path))
    return target


def load(paths: List[str]) -> List[Fragment]:
    if not paths:
        paths = sorted(glob.glob(os.path.join(FRAGMENTS, '*.ptx')) +
                       glob.glob(os.path.join(FRAGMENTS, '*.cu')))
    return [Fragment(path) for path in paths]


def main(argv: Optional[List[str]] = None) -> int:
    return run_main(PROG, lambda: _main(argv))


def _main(argv: Optional[List[str]]) -> int:
    parser = argparse.ArgumentParser(prog=PROG,
                                     description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest='command', required=True)
    checking = commands.add_parser('check')
    checking.add_argument('files', nargs='*')
    checking.add_argument('--ptx-tool',
                          help='llmptx-ptx, to assemble each proof (default: '
                               'the build\'s, tools.find_tool; skipped when '
                               'absent)')
    commands.add_parser('list')
    bundling = commands.add_parser('bundle')
    bundling.add_argument('kernel')
    bundling.add_argument('--chip', default='sm_90')
    bundling.add_argument('--opt', help='llmptx-opt (default: the build\'s, '
                          'tools.find_tool)')
    bundling.add_argument('--out', default=PROOFS,
                          help='where to write it (default: fragments/proofs)')
    selecting = commands.add_parser('select')
    selecting.add_argument('--chip', default='sm_90')
    selecting.add_argument('--language', choices=('ptx', 'cuda'),
                           default='ptx',
                           help='the prompt\'s language: PTX prompts list '
                                'PTX fragments, CUDA prompts CUDA ones')
    selecting.add_argument('words', nargs='+')
    args = parser.parse_args(argv)
    if source_root() is None:
        raise ToolError('no llmptx checkout here: run from one', 2)

    if args.command == 'check':
        fragments = load(args.files)
        failed = 0
        try:
            ptx_tool = find_tool('llmptx-ptx', explicit=args.ptx_tool)
        except ToolNotFound:
            ptx_tool = None
            print('%s: llmptx-ptx not found: proofs not assembled' % PROG)
        for fragment in fragments:
            problems = check(fragment, ptx_tool)
            status = 'ok' if not problems else 'FAILED'
            print('%s: %s' % (fragment.path, status))
            for problem in problems:
                print('  %s' % problem)
            failed += bool(problems)
        print('%d fragment(s), %d failed' % (len(fragments), failed))
        return 1 if failed or not fragments else 0
    if args.command == 'bundle':
        try:
            opt = find_tool('llmptx-opt', explicit=args.opt)
        except ToolNotFound as error:
            raise ToolError('%s (--opt)' % error, 2)
        try:
            print(make_bundle(args.kernel, args.chip, opt, args.out))
        except RuntimeError as problem:
            raise ToolError(str(problem))
        return 0
    fragments = load([])
    if args.command == 'list':
        for fragment in fragments:
            print('%-22s %-14s %-28s %s' % (
                fragment.name, ','.join(fragment.chips()),
                ' '.join(sorted(fragment.ops())), fragment.proof_kernel()))
        return 0
    words = set(args.words)
    for fragment in fragments:
        if fragment.language == args.language and \
                args.chip in fragment.chips() and fragment.ops() & words:
            print(fragment.name)
    return 0


if __name__ == '__main__':
    sys.exit(main())
