#!/usr/bin/env python3
"""nvcc PTX of sgemm_o2.cu -> the reference's header and parameter list."""
import re, sys
src, dst = sys.argv[1], sys.argv[2]
lines = open(src).read().split('\n')
out = []
for ln in lines:
    s = ln.strip()
    if s.startswith('//'):
        continue
    if s.startswith('.version'):
        ln = '.version 8.0'
    m = re.fullmatch(r'\s*\.param \.u64 sgemm_param_(\d+)(,?)', ln)
    if m and int(m.group(1)) in (0, 1, 7, 8, 14, 15):
        ln = '\t.param .u64 .ptr .align 1 sgemm_param_%s%s' % (m.group(1), m.group(2))
    out.append(ln)
text = '\n'.join(out)
text = re.sub(r'_ZZ5sgemm\w*E2as\b', 'sgemm_as', text)
text = re.sub(r'_ZZ5sgemm\w*E2bs\b', 'sgemm_bs', text)
text = re.sub(r'\n{3,}', '\n\n', text).lstrip('\n')
open(dst, 'w').write(text)
