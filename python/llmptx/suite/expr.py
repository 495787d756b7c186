"""Integer expressions of verification bundles and the suite manifest.

The grammar of the runtime's Expression.cpp: integers, size names,
`+ - * / %` (floor division and its remainder), parentheses, unary minus,
and the functions `ceildiv`, `min`, `max`. Errors name the position.
"""

from __future__ import annotations

import re
from typing import Dict

_TOKEN = re.compile(r'\s*(?:(\d+)|([A-Za-z_]\w*)|(.))')


class ExprError(ValueError):
    pass


def _tokens(text):
    pos = 0
    out = []
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            break
        if m.group(1):
            out.append(('num', int(m.group(1)), m.start(1)))
        elif m.group(2):
            out.append(('name', m.group(2), m.start(2)))
        elif m.group(3):
            out.append(('op', m.group(3), m.start(3)))
        pos = m.end()
    out.append(('end', None, len(text)))
    return out


def _floordiv(a, b, text):
    if b == 0:
        raise ExprError('%r: division by zero' % text)
    return a // b


def evaluate(text: str, bindings: Dict[str, int]) -> int:
    """The value of expression `text` (a str or int) under `bindings`."""
    if isinstance(text, int):
        return text
    text = str(text)
    toks = _tokens(text)
    pos = [0]

    def peek():
        return toks[pos[0]]

    def take(kind=None, value=None):
        tok = toks[pos[0]]
        if (kind and tok[0] != kind) or (value is not None and
                                         tok[1] != value):
            raise ExprError('%r: expected %s at column %d' %
                            (text, value or kind, tok[2] + 1))
        pos[0] += 1
        return tok

    def primary():
        tok = peek()
        if tok[0] == 'num':
            take()
            return tok[1]
        if tok[0] == 'op' and tok[1] == '-':
            take()
            return -primary()
        if tok[0] == 'op' and tok[1] == '(':
            take()
            v = expr()
            take('op', ')')
            return v
        if tok[0] == 'name':
            take()
            if peek()[0] == 'op' and peek()[1] == '(':
                take()
                args = [expr()]
                while peek()[1] == ',':
                    take()
                    args.append(expr())
                take('op', ')')
                name = tok[1]
                if name == 'ceildiv' and len(args) == 2:
                    return -_floordiv(-args[0], args[1], text)
                if name == 'min' and len(args) == 2:
                    return min(args)
                if name == 'max' and len(args) == 2:
                    return max(args)
                raise ExprError('%r: unknown function %s/%d (ceildiv, min, '
                                'max)' % (text, name, len(args)))
            if tok[1] not in bindings:
                raise ExprError('%r: unknown size %r' % (text, tok[1]))
            return bindings[tok[1]]
        raise ExprError('%r: unexpected %r at column %d' %
                        (text, tok[1], tok[2] + 1))

    def term():
        v = primary()
        while peek()[0] == 'op' and peek()[1] in '*/%':
            op = take()[1]
            w = primary()
            if op == '*':
                v *= w
            elif op == '/':
                v = _floordiv(v, w, text)
            else:
                v = v - _floordiv(v, w, text) * w
        return v

    def expr():
        v = term()
        while peek()[0] == 'op' and peek()[1] in '+-':
            op = take()[1]
            w = term()
            v = v + w if op == '+' else v - w
        return v

    value = expr()
    if peek()[0] != 'end':
        raise ExprError('%r: unexpected %r at column %d' %
                        (text, peek()[1], peek()[2] + 1))
    return value
