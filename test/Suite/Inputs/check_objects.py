"""Assembles every PTX object of the suite manifest with ptxas for sm_90
and prints one line per object file with its resource use (a kernel whose
object 0 is the NVPTX reference has one file for both slots); exits 1 when
one does not assemble. Used by test/Suite/objects-ptxas.test."""

import json
import os
import re
import subprocess
import sys


def main():
    ptxas, objects = sys.argv[1], sys.argv[2]
    with open(os.path.join(objects, 'manifest.json')) as handle:
        manifest = json.load(handle)
    failed = 0
    for kernel in manifest['kernels']:
        seen = set()
        for slot in ('nvptx', 'selected'):
            path = os.path.join(objects, kernel['objects'][slot]['file'])
            if path in seen:
                continue
            seen.add(path)
            proc = subprocess.run([ptxas, '-arch=sm_90', '-v', path, '-o',
                                   os.devnull], capture_output=True,
                                  text=True)
            regs = re.search(r'Used (\d+) registers', proc.stderr)
            spills = re.search(r'(\d+) bytes spill stores', proc.stderr)
            if proc.returncode != 0:
                failed += 1
                print('FAIL %s %s: %s' % (kernel['name'], slot,
                                          proc.stderr.strip()))
                continue
            print('OK %s %s registers=%s spills=%s' %
                  (kernel['name'], slot, regs.group(1) if regs else '?',
                   spills.group(1) if spills else '0'))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
