"""A scripted model for the exec provider: tests and benchmarks run the
whole LLM path offline and reproducibly with it.

    exec-command="python3 -m llmptx.testing.scripted_model --answers DIR
                  [--log F] [--delay SECONDS]"

The request (an OpenAI chat-completions body with an `llmptx` object) comes
on stdin; the completion goes to stdout. The answer for kernel K, sample S,
round R (R = the number of assistant turns already in the conversation,
i.e. the repair round) is the first file of DIR that exists among:

    K.s<S>.r<R>.txt   K.s<S>.txt   K.r<R>.txt   K.txt

and in optimization round O (O > 0: a prompt to improve the best kernel so
far) among:

    K.o<O>.s<S>.r<R>.txt   K.o<O>.s<S>.txt   K.o<O>.txt

A missing answer, or a file holding exactly `!fail`, makes the command exit
with status 3 (a failed call). `--log` appends each request (one JSON per
line) so tests can check what the prompts said.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import List, Optional


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--answers', required=True,
                        help='directory of scripted answers')
    parser.add_argument('--log', help='append each request here (JSONL)')
    parser.add_argument('--delay', type=float, default=0.0,
                        help='seconds to wait before answering')
    args = parser.parse_args(argv)

    request = json.load(sys.stdin)
    info = request.get('llmptx', {})
    kernel = info.get('kernel', 'kernel')
    sample = info.get('sample_index', 0)
    rounds = sum(1 for m in request.get('messages', [])
                 if m.get('role') == 'assistant')
    if args.log:
        with open(args.log, 'a') as log:
            log.write(json.dumps(request, sort_keys=True) + '\n')
    if args.delay:
        time.sleep(args.delay)

    optimization = info.get('optimization_round', 0)
    if optimization:
        prefix = '%s.o%d' % (kernel, optimization)
        names = ['%s.s%d.r%d.txt' % (prefix, sample, rounds),
                 '%s.s%d.txt' % (prefix, sample),
                 '%s.txt' % prefix]
    else:
        names = ['%s.s%d.r%d.txt' % (kernel, sample, rounds),
                 '%s.s%d.txt' % (kernel, sample),
                 '%s.r%d.txt' % (kernel, rounds),
                 '%s.txt' % kernel]
    for name in names:
        path = os.path.join(args.answers, name)
        if os.path.exists(path):
            with open(path) as answer:
                text = answer.read()
            if text.strip() == '!fail':
                print('scripted failure for %s' % name, file=sys.stderr)
                return 3
            sys.stdout.write(text)
            return 0
    print('no scripted answer for kernel %s sample %d round %d (tried %s)' %
          (kernel, sample, rounds, ', '.join(names)), file=sys.stderr)
    return 3


if __name__ == '__main__':
    sys.exit(main())
