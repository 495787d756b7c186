#!/usr/bin/env python3
"""Summarizes a fragments on/off study (bench/fragments/suite-study.sh):
per kernel and condition, the fragments the prompt listed, whether the
answer compiled, the runner's verdict, the speedup over the NVPTX reference
at the production shape (95% CI), what llm-lower selected, and the proven
fragments the answer runs (llmptx-ptx fragments, with the kernel's bundle).

    build/venv/bin/python3 bench/fragments/summarize.py STUDY...
        [--ptx-tool build/bin/llmptx-ptx] [--json OUT.json]

A STUDY is a study's folder (with/ and without/), or an archive of studies
as bench/fragments keeps them (suite-h200.tar.xz, unseen-h200.tar.xz: read
as they are, each folder at its top level one sample, in name order).
Prints a Markdown table, then totals per condition. Several samples of the
same study (the same requests answered again) make the table list each
kernel's speedups per condition, sample by sample, with their median.
llmptx-ptx is found as every script of the project finds a tool of the
build (llmptx.tools), so this runs on a Python with the llmptx package."""

import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile

from llmptx.tools import ToolNotFound, find_tool

CONDITIONS = ('without', 'with')


def requests(directory):
    """kernel -> (request id, fragment names listed in the prompt)."""
    found = {}
    for path in sorted(glob.glob(os.path.join(directory, 'q', '*.json'))):
        with open(path) as handle:
            body = json.load(handle)
        text = body['messages'][-1]['content']
        kernel = re.search(r'gpu\.func @(\w+)', text)
        if not kernel:
            continue
        section = text.find('## Proven PTX fragments')
        listed = re.findall(r'^### ([a-z0-9-]+):', text[section:], re.M) \
            if section >= 0 else []
        request_id = os.path.splitext(os.path.basename(path))[0]
        # A repair request comes after the first one: keep the first.
        found.setdefault(kernel.group(1), (request_id, listed))
    return found


def answer_ptx(directory, request_id):
    path = os.path.join(directory, 'a', request_id + '.md')
    if not os.path.isfile(path):
        return None
    with open(path) as handle:
        text = handle.read()
    match = re.search(r'```ptx\n(.*?)```', text, re.S)
    return match.group(1) if match else None


SUITE_BUNDLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                             '..', 'docs', 'suite', 'bundles')


def bundle_of(directory, kernel):
    """The bundle the run sent to the runner (a live study), else the
    suite's bundle of the kernel (same launch and stated facts)."""
    for path in sorted(glob.glob(os.path.join(directory, 'g', '*', 'b',
                                              '*.%s.bundle.json' % kernel))):
        return path
    path = os.path.join(SUITE_BUNDLES, kernel + '.bundle.json')
    return path if os.path.isfile(path) else None


def fragment_uses(tool, ptx, bundle):
    """(used fragment names, requirement errors) by llmptx-ptx fragments."""
    if not tool or ptx is None:
        return [], []
    with tempfile.NamedTemporaryFile('w', suffix='.ptx', delete=False) as f:
        f.write(ptx)
        path = f.name
    try:
        command = [tool, 'fragments', path]
        if bundle:
            command[2:2] = ['--bundle', bundle]
        out = subprocess.run(command, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True).stdout
    finally:
        os.unlink(path)
    used = sorted(set(re.findall(r"note: lines .* are fragment '([^']+)'",
                                 out)))
    errors = re.findall(r'error: (.*)', out)
    return used, errors


def row(directory, kernel, request, tool):
    report_path = os.path.join(directory, 'out', kernel + '.report.json')
    entry = {'kernel': kernel, 'listed': request[1]}
    if not os.path.isfile(report_path):
        entry['status'] = 'no report'
        return entry
    with open(report_path) as handle:
        report = json.load(handle)
    info = report['kernels'][0]
    attempts = info.get('attempts', [])
    entry['attempts'] = len(attempts)
    entry['compiled'] = any(a.get('status') == 'compiled' for a in attempts)
    entry['first_compiled'] = bool(attempts) and \
        attempts[0].get('status') == 'compiled'
    candidates = info.get('candidates', [])
    best = next((c for c in candidates if c.get('exec_verdict') == 'pass'),
                candidates[0] if candidates else {})
    entry['verdict'] = best.get('exec_verdict', 'none')
    timing = best.get('timing') or {}
    entry['speedup'] = timing.get('speedup')
    entry['ci95'] = timing.get('speedup_ci95')
    entry['shape'] = timing.get('shape')
    entry['selected'] = info.get('selected')
    entry['reason'] = info.get('reason', '')
    used, errors = fragment_uses(tool, answer_ptx(directory, request[0]),
                                 bundle_of(directory, kernel))
    entry['uses'] = used
    entry['use_errors'] = errors
    return entry


def cell(entry):
    if entry.get('status'):
        return entry['status']
    text = ('compiled' if entry['first_compiled'] else
            'compiled after repair' if entry['compiled'] else 'no compile')
    text += ', ' + entry['verdict']
    if entry.get('speedup') is not None:
        low, high = entry['ci95']
        text += ', %.2fx (%.2f-%.2f)' % (entry['speedup'], low, high)
    text += ', ' + ('LLM selected' if entry['selected'] == 'llm'
                    else 'reference kept')
    return text


def collect(study, tool):
    """kernel -> condition -> row, for one study directory."""
    rows = {}
    for condition in CONDITIONS:
        directory = os.path.join(study, condition)
        for kernel, request in requests(directory).items():
            rows.setdefault(kernel, {})[condition] = row(directory, kernel,
                                                         request, tool)
    return rows


def geomean(values):
    product = 1.0
    for value in values:
        product *= value
    return product ** (1.0 / len(values)) if values else 0.0


def print_one(rows):
    print('| kernel | fragments listed | without fragments | with fragments '
          '| fragments the answer runs (with) |')
    print('| --- | --- | --- | --- | --- |')
    for kernel in sorted(rows):
        on = rows[kernel].get('with', {})
        off = rows[kernel].get('without', {})
        uses = ', '.join('`%s`' % u for u in on.get('uses', [])) or 'none'
        if on.get('use_errors'):
            uses += ' (%d unmet requirement(s))' % len(on['use_errors'])
        print('| %s | %s | %s | %s | %s |' % (
            kernel, ', '.join('`%s`' % f for f in on.get('listed', [])),
            cell(off) if off else '-', cell(on) if on else '-', uses))


def speedups_cell(entries):
    """'1.08, 0.30, 1.10 (median 1.08)': the passing answers' speedups, a
    failed one as 'fail'."""
    parts, values = [], []
    for entry in entries:
        if entry.get('verdict') == 'pass' and entry.get('speedup'):
            parts.append('%.2f' % entry['speedup'])
            values.append(entry['speedup'])
        else:
            parts.append(entry.get('verdict') or entry.get('status', '?'))
    if not values:
        return ', '.join(parts)
    return '%s (median %.2fx)' % (', '.join(parts), statistics.median(values))


def print_samples(samples):
    kernels = sorted(set().union(*samples))
    print('| kernel | fragments listed | without fragments: speedup per '
          'sample | with fragments: speedup per sample |')
    print('| --- | --- | --- | --- |')
    for kernel in kernels:
        listed = next((s[kernel]['with'].get('listed', []) for s in samples
                       if kernel in s and 'with' in s[kernel]), [])
        cells = [speedups_cell([s[kernel][c] for s in samples
                                if kernel in s and c in s[kernel]])
                 for c in CONDITIONS]
        print('| %s | %s | %s | %s |' % (
            kernel, ', '.join('`%s`' % f for f in listed), cells[0],
            cells[1]))


def sample_dirs(study, work):
    """The sample folders of a study: the folder itself, or each folder at
    the top level of an archive, unpacked under `work`."""
    if os.path.isdir(study):
        return [study]
    target = tempfile.mkdtemp(dir=work)
    with tarfile.open(study) as archive:
        if hasattr(tarfile, 'data_filter'):
            archive.extractall(target, filter='data')
        else:
            archive.extractall(target)
    return [os.path.join(target, name) for name in sorted(os.listdir(target))]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('studies', nargs='+', metavar='study')
    parser.add_argument('--ptx-tool', help='llmptx-ptx (default: the '
                        'build\'s; without one, the fragments the answers '
                        'run are not looked for)')
    parser.add_argument('--json')
    args = parser.parse_args(argv)
    try:
        tool = find_tool('llmptx-ptx', explicit=args.ptx_tool)
    except ToolNotFound:
        tool = None
    with tempfile.TemporaryDirectory() as work:
        samples = [collect(directory, tool) for study in args.studies
                   for directory in sample_dirs(study, work)]
    if len(samples) == 1:
        print_one(samples[0])
    else:
        print_samples(samples)
    print()
    for condition in CONDITIONS:
        entries = [r[condition] for rows in samples for r in rows.values()
                   if condition in r]
        first = sum(1 for e in entries if e.get('first_compiled'))
        passed = sum(1 for e in entries if e.get('verdict') == 'pass')
        selected = sum(1 for e in entries if e.get('selected') == 'llm')
        speedups = [e['speedup'] for e in entries
                    if e.get('verdict') == 'pass' and e.get('speedup')]
        print('%s fragments: %d answers, %d compiled at the first answer, '
              '%d passed, %d selected; geometric mean speedup of the passing '
              'answers %.2fx' % (condition, len(entries), first, passed,
                                 selected, geomean(speedups)))
    rows = samples[0] if len(samples) == 1 else samples
    if args.json:
        with open(args.json, 'w') as handle:
            json.dump(rows, handle, indent=1, sort_keys=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
