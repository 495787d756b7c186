#===- mlir_text.py - Scanning printed MLIR without parsing it -------------===#
"""Scanning printed MLIR without parsing it: string literals and brackets.

gpu_binary (objects of a gpu.binary), host_build (its offloading handler)
and suite.export (a gpu.func's signature and harness) read MLIR text with
these two functions; a string literal's brackets and the '>' of '->'
(function types, affine maps) are never brackets.
"""

from __future__ import annotations

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
