#===- mlir_text.py - Scanning printed MLIR without parsing it -------------===#
"""Scanning printed MLIR without parsing it: string literals and brackets,
and pass options.

gpu_binary (objects of a gpu.binary), host_build (its offloading handler)
and suite.export (a gpu.func's signature and harness) read MLIR text with
the first two functions; a string literal's brackets and the '>' of '->'
(function types, affine maps) are never brackets. `pass_options` splits an
option string (`--llm-lower="chip=sm_90 exec-command='sh ask.sh'"`) as
MLIR's pass-option parser does, for llmptx-iree.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

_CLOSERS = {'<': '>', '[': ']', '{': '}', '(': ')'}


class UnbalancedText(ValueError):
    """A string literal or a bracket is not closed where it should be."""


def skip_string(text: str, start: int) -> int:
    """The index just past the string literal whose quote is at `start`."""
    i = start + 1
    while i < len(text):
        if text[i] == '\\':
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    raise UnbalancedText('unterminated string literal')


def closing_bracket(text: str, start: int) -> int:
    """The index just past the bracket that closes the one at `start`
    (one of `<[{(`); brackets nested inside must pair up too."""
    stack = []
    i = start
    while i < len(text):
        ch = text[i]
        if ch == '"':
            i = skip_string(text, i)
            continue
        if ch in _CLOSERS:
            stack.append(_CLOSERS[ch])
        elif ch in '>]})':
            if ch == '>' and i > 0 and text[i - 1] == '-':
                i += 1
                continue
            if not stack or stack[-1] != ch:
                raise UnbalancedText('unbalanced %r' % ch)
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    raise UnbalancedText('unbalanced %s%s' % (text[start:start + 1],
                                              _CLOSERS.get(text[start:start + 1],
                                                           '')))


# StringRef::trim's whitespace.
MAX_OPTION_DEPTH = 64
_SPACE = ' \t\n\v\f\r'


def _option_text(text: str) -> str:
    """MLIR's extractArgAndUpdateOptions: trimmed, and one pair of quotes
    (or of braces that close each other) around the whole dropped."""
    text = text.strip(_SPACE)
    if len(text) > 1 and text[0] == text[-1] and text[0] in '\'"':
        return text[1:-1].strip(_SPACE)
    if len(text) > 1 and text[0] == '{' and \
            _find_char(text, 1, '}') == len(text) - 1:
        return text[1:-1].strip(_SPACE)
    return text


def _find_char(text: str, start: int, wanted: str) -> int:
    """MLIR's findChar: the index of `wanted` from `start`, nested (), [],
    {} and quotes skipped; -1 when there is none."""
    closers = {'{': '}', '(': ')', '[': ']'}
    i = start
    while i < len(text):
        ch = text[i]
        if ch == wanted:
            return i
        if ch in closers:
            i = _find_char(text, i + 1, closers[ch])
        elif ch in '\'"':
            i = text.find(ch, i + 1)
        if i < 0:
            return -1
        i += 1
    return -1


def pass_options(text: str) -> List[Tuple[str, Optional[str]]]:
    """The (key, value) pairs of a pass-option string, split exactly as
    MLIR's PassOptions::parseFromString does (a key ends at ' ' or '=', a
    value at a ' ' outside quotes and braces; one pair of quotes or braces
    around a value is dropped); value None for a key without '='. Where
    MLIR would quietly take an unclosed quote or brace as text, this raises
    UnbalancedText instead: the options were surely not meant that way."""
    pairs = []
    rest = text
    while rest:
        key_end = 0
        while key_end < len(rest) and rest[key_end] not in ' =':
            key_end += 1
        key = _option_text(rest[:key_end])
        if key_end == len(rest) or rest[key_end] == ' ':
            rest = rest[key_end:].lstrip(_SPACE)
            if key:
                pairs.append((key, None))
            continue
        rest = rest[key_end:].lstrip(_SPACE)[1:]  # the '='
        i, depth = 0, 0
        while i < len(rest) and (depth or rest[i] != ' '):
            ch = rest[i]
            if ch in '\'"':
                close = rest.find(ch, i + 1)
                if close < 0:
                    raise UnbalancedText('unbalanced %s in the value of %s' %
                                         (ch, key))
                i = close
            elif ch == '{':
                depth += 1
                if depth > MAX_OPTION_DEPTH:
                    raise UnbalancedText('the value of %s nests braces deeper '
                                         'than %d levels' %
                                         (key, MAX_OPTION_DEPTH))
            elif ch == '}' and depth:
                depth -= 1
            i += 1
        if depth:
            raise UnbalancedText('unbalanced { in the value of %s' % key)
        value = _option_text(rest[:i])
        rest = rest[i:].lstrip(_SPACE)
        if key:
            pairs.append((key, value))
    return pairs
