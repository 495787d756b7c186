"""Writes a copy of a verification bundle whose only candidate, named
"mutated", is the first candidate with one piece of text replaced (exactly
one occurrence must exist). Used by test/Suite/emulate-catches.test."""

import json
import sys


def main():
    source, target, old, new = sys.argv[1:5]
    with open(source) as handle:
        bundle = json.load(handle)
    ptx = bundle['candidates'][0]['ptx']
    if ptx.count(old) != 1:
        print('expected one occurrence of %r, found %d' % (old,
                                                           ptx.count(old)))
        return 1
    bundle['candidates'] = [dict(bundle['candidates'][0], name='mutated',
                                 ptx=ptx.replace(old, new))]
    with open(target, 'w') as out:
        json.dump(bundle, out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
