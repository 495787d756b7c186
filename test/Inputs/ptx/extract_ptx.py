#!/usr/bin/env python3
#===- extract_ptx.py - The PTX string of a gpu.binary (format=isa) ---------===#
# usage: extract_ptx.py lowered.mlir > kernel.ptx
import re
import sys

text = open(sys.argv[1]).read()
match = re.search(r'assembly = "((?:[^"\\]|\\.)*)"', text)
if not match:
    sys.exit("%s: no gpu.object assembly found" % sys.argv[1])
sys.stdout.write(re.sub(r'\\([0-9A-Fa-f]{2})',
                        lambda m: chr(int(m.group(1), 16)), match.group(1)))
