"""Reads the objects of `gpu.binary` ops out of MLIR text.

Tests and users use it to take the PTX (or cubin) of an object out of the
output of `llmptx-opt --llm-lower`, e.g. to feed it to ptxas:

    llmptx-gpu-binary out.mlir --binary kernels --object 0 -o k.ptx
    llmptx-gpu-binary out.mlir --list

(`python -m llmptx.gpu_binary` is the same command.)

Only the standard library is used; the MLIR is scanned, not parsed, which is
enough for the printed form of `gpu.binary` that MLIR emits.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Iterator, List, Optional, Tuple

from llmptx import files
from llmptx.cli import ToolError, run_main
from llmptx.mlir_text import UnbalancedText, closing_bracket

PROG = 'llmptx-gpu-binary'

_BINARY = re.compile(r'gpu\.binary\s+@([\w$.]+)\s*(<[^>]*>)?\s*\[')
_OBJECT_START = '#gpu.object<'


def _unescape(body: str) -> bytes:
    """Decodes an MLIR string literal body (\\XX hex escapes) into bytes."""
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == '\\':
            escape = body[i + 1:i + 3]
            if escape[:1] in ('"', '\\', 'n', 't'):
                out += {'"': b'"', '\\': b'\\', 'n': b'\n',
                        't': b'\t'}[escape[:1]]
                i += 2
                continue
            out.append(int(escape, 16))
            i += 3
            continue
        out += ch.encode('utf-8')
        i += 1
    return bytes(out)


def parse_objects(text: str) -> Iterator[Tuple[str, int, str, bytes]]:
    """Yields (binary_name, index, header, payload_bytes) for every object."""
    for match in _BINARY.finditer(text):
        list_start = match.end() - 1
        list_end = closing_bracket(text, list_start)
        index = 0
        pos = text.find(_OBJECT_START, list_start, list_end)
        while pos != -1:
            end = closing_bracket(text, pos + len('#gpu.object'))
            obj = text[pos:end]
            # The payload is the last string literal of the object. MLIR
            # prints a quote inside a string as \22, so raw quotes are always
            # delimiters.
            last_quote = obj.rfind('"')
            first_quote = obj.rfind('"', 0, last_quote)
            body = obj[first_quote + 1:last_quote]
            header = obj[:first_quote]
            yield match.group(1), index, header, _unescape(body)
            index += 1
            pos = text.find(_OBJECT_START, end, list_end)


def summarize(header: str, payload: bytes) -> str:
    """slot=..., source=..., bytes, and kernel=source pairs of an object."""
    def prop(key):
        match = re.search(r'\b%s = "([^"]*)"' % re.escape(key), header)
        return match.group(1) if match else '?'
    # Per-kernel entries live in llmgen.kernels only (absent when the LLM
    # path did not run).
    table = ''
    start = header.find('llmgen.kernels = {')
    if start != -1:
        brace = header.index('{', start)
        table = header[brace + 1:closing_bracket(header, brace) - 1]
    kernels = []
    for entry in re.finditer(r'(\w+) = \{', table):
        if kernels and entry.start() < kernels[-1][-1]:
            continue  # inside the previous entry (its launch record)
        end = closing_bracket(table, entry.end() - 1)
        body = table[entry.end():end - 1]
        candidate = re.search(r'\bcandidate = "(\w+)"', body)
        source = re.search(r'\bsource = "(\w+)"', body)
        launch = ''
        if 'launch = {' in body:
            block = re.search(r'block = array<i64: ([^>]*)>', body)
            grid = re.search(r'grid = \[([^\]]*)\]', body)
            launch = '[block %s grid %s]' % (
                block.group(1) if block else '?',
                grid.group(1).replace('"', '') if grid else '?')
        kernels.append((entry.group(1),
                        candidate.group(1) if candidate else '',
                        source.group(1) if source else '?', launch, end))
    parts = ['slot=%s' % prop('llmgen.slot'),
             'source=%s' % prop('llmgen.source'),
             '%d bytes' % len(payload)]
    if kernels:
        parts.append('kernels: ' + ', '.join(
            '@%s=%s%s%s' % (k, src, '(%s)' % cand if cand else '', launch)
            for k, cand, src, launch, _ in kernels))
    return ' '.join(parts)


def read_input(path: str) -> str:
    """The MLIR text of `path` ('-': stdin), bounded as every input is."""
    if path != '-':
        return files.read_text(path)
    data = sys.stdin.buffer.read(files.MAX_DOCUMENT_BYTES + 1)
    if len(data) > files.MAX_DOCUMENT_BYTES:
        raise ToolError('stdin: larger than %d bytes' %
                        files.MAX_DOCUMENT_BYTES)
    return files.decode_text(data, 'stdin')


def main(argv: Optional[List[str]] = None) -> int:
    return run_main(PROG, lambda: _main(argv))


def _main(argv: Optional[List[str]]) -> int:
    parser = argparse.ArgumentParser(prog=PROG,
                                     description=__doc__.splitlines()[0])
    parser.add_argument('input', help='MLIR file ("-" for stdin)')
    parser.add_argument('--binary', help='name of the gpu.binary (default: '
                        'the only one)')
    parser.add_argument('--object', type=int, default=0,
                        help='index of the object (default 0)')
    parser.add_argument('--list', action='store_true',
                        help='list binaries and objects instead')
    parser.add_argument('--summary', action='store_true',
                        help='one line per object: slot, source, size and '
                        'the source of each kernel')
    parser.add_argument('-o', '--output', default='-',
                        help='where to write the payload (default stdout)')
    args = parser.parse_args(argv)

    if args.output != '-':
        files.check_outputs([('the input', args.input)],
                            [('-o', args.output)])
    text = read_input(args.input)
    try:
        objects = list(parse_objects(text))
    except (UnbalancedText, ValueError) as error:
        raise ToolError('%s: not the printed form of a gpu.binary: %s' %
                        (args.input, error))
    if args.summary:
        for name, index, header, payload in objects:
            print('%s[%d] %s' % (name, index, summarize(header, payload)))
        return 0
    if args.list:
        for name, index, header, payload in objects:
            print('%s[%d] %d bytes: %s' % (name, index, len(payload),
                                            ' '.join(header.split())))
        return 0
    names = sorted({name for name, _, _, _ in objects})
    if not names:
        raise ToolError('no gpu.binary in %s' % args.input)
    binary = args.binary or names[0]
    if args.binary is None and len(names) > 1:
        raise ToolError('several gpu.binary ops (%s); pass --binary' %
                        ', '.join(names))
    for name, index, _, payload in objects:
        if name == binary and index == args.object:
            if args.output == '-':
                sys.stdout.buffer.write(payload)
            else:
                files.write_bytes(args.output, payload)
            return 0
    raise ToolError('no object %d in gpu.binary @%s' % (args.object, binary))


if __name__ == '__main__':
    sys.exit(main())
