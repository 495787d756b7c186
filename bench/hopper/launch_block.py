"""The JSON launch block in the header comment of a proof kernel's .cu
(lines '// {"block": ...}'), the text the pipeline reads from an answer.
Shared by run_gemm.py (the GPU harness) and selfcheck.py (the CPU checks);
needs neither torch nor a GPU."""

import json


def launch_block_from_source(cu_path):
    """The launch block of `cu_path`, or None when its header has none."""
    text = []
    started = False
    depth = 0
    with open(cu_path) as f:
        for line in f:
            if not line.startswith("//"):
                if started:
                    break
                continue
            body = line[2:].strip()
            if not started and body.startswith('{"block"'):
                started = True
            if started:
                text.append(body)
                depth += body.count("{") - body.count("}")
                if depth == 0:
                    break
    if not text:
        return None
    return json.loads(" ".join(text))
