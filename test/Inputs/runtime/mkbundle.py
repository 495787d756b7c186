#!/usr/bin/env python3
"""Builds a verification bundle from a template.

A template is a bundle in which a "ptx" value may be "@file:NAME", naming a
PTX file next to the template; the bundle gets the file's text. Keeping the
PTX in separate files lets ptxas check every fixture and keeps the corpus
readable.

  mkbundle.py TEMPLATE.json [-o BUNDLE.json] [--set KEY=JSON ...]

--set replaces a top-level field, e.g. --set 'shapes=[{"N": 5}]'.
"""
import argparse
import json
import os
import sys


def resolve(value, folder):
    if isinstance(value, dict):
        return {k: resolve(v, folder) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, folder) for v in value]
    if isinstance(value, str) and value.startswith("@file:"):
        with open(os.path.join(folder, value[len("@file:"):])) as f:
            return f.read()
    return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("template")
    parser.add_argument("-o", "--output")
    parser.add_argument("--set", action="append", default=[])
    args = parser.parse_args()
    with open(args.template) as f:
        bundle = json.load(f)
    for assignment in args.set:
        key, _, text = assignment.partition("=")
        bundle[key] = json.loads(text)
    bundle = resolve(bundle, os.path.dirname(os.path.abspath(args.template)))
    text = json.dumps(bundle, indent=1) + "\n"
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
