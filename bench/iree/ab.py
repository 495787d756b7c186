"""A/B of two IREE modules on a GPU: same inputs, outputs compared, time.

    python3 bench/iree/ab.py --tools DIR --function mlp \
        --input 4096x1024xf32 --input 1024x4096xf32:0.03125 --input 4096xf32 \
        --rtol 1e-4 --atol 1e-7 A.vmfb B.vmfb [-o ab.json]

DIR holds iree-run-module and iree-benchmark-module (from the
iree-base-runtime wheel). Inputs are normal random values (seeded), times
the scale after the colon; both modules run them with --device=cuda, their
outputs must agree within rtol/atol (numpy.isclose, NaN equal to NaN), and
iree-benchmark-module times each whole call. Prints the figures; exit status
1 when the outputs differ.
"""

import argparse
import json
import os
import re
import subprocess
import sys

import numpy


NUMPY_TYPES = {'f16': 'float16', 'f32': 'float32', 'f64': 'float64',
               'i8': 'int8', 'i16': 'int16', 'i32': 'int32', 'i64': 'int64'}


def parse_input(spec):
    """'4096x1024xf32:0.5' -> ([4096, 1024], 'float32', 0.5)."""
    shape_type, _, scale = spec.partition(':')
    dims = shape_type.split('x')
    element = NUMPY_TYPES[dims.pop()]
    return [int(d) for d in dims], element, float(scale or 1.0)


def run_module(tools, vmfb, function, inputs, output):
    command = [os.path.join(tools, 'iree-run-module'), '--device=cuda',
               '--module=' + vmfb, '--function=' + function]
    command += ['--input=@' + path for path in inputs]
    command += ['--output=@' + output]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return numpy.load(output)


def benchmark(tools, vmfb, function, inputs, repetitions):
    command = [os.path.join(tools, 'iree-benchmark-module'), '--device=cuda',
               '--module=' + vmfb, '--function=' + function,
               '--benchmark_repetitions=%d' % repetitions,
               '--benchmark_format=json']
    command += ['--input=@' + path for path in inputs]
    result = subprocess.run(command, check=True, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    report = json.loads(result.stdout[result.stdout.index('{'):])
    times = [b['real_time'] for b in report['benchmarks']
             if b.get('run_type') == 'iteration']
    unit = report['benchmarks'][0].get('time_unit', 'ms')
    scale = {'ns': 1e-6, 'us': 1e-3, 'ms': 1.0, 's': 1e3}[unit]
    return sorted(t * scale for t in times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--tools', required=True)
    parser.add_argument('--function', required=True)
    parser.add_argument('--input', action='append', default=[])
    parser.add_argument('--rtol', type=float, default=1e-5)
    parser.add_argument('--atol', type=float, default=0.0)
    parser.add_argument('--repetitions', type=int, default=10)
    parser.add_argument('--work', default='ab-work')
    parser.add_argument('-o', dest='output')
    parser.add_argument('a')
    parser.add_argument('b')
    args = parser.parse_args()

    os.makedirs(args.work, exist_ok=True)
    generator = numpy.random.default_rng(1234)
    inputs = []
    for index, spec in enumerate(args.input):
        shape, element, scale = parse_input(spec)
        values = (generator.standard_normal(shape) * scale).astype(element)
        path = os.path.join(args.work, 'input%d.npy' % index)
        numpy.save(path, values)
        inputs.append(path)

    outputs = [run_module(args.tools, vmfb, args.function, inputs,
                          os.path.join(args.work, 'out%d.npy' % i))
               for i, vmfb in enumerate((args.a, args.b))]
    a, b = outputs
    close = numpy.isclose(a, b, rtol=args.rtol, atol=args.atol,
                          equal_nan=True)
    difference = numpy.abs(a.astype(numpy.float64) - b.astype(numpy.float64))
    finite = numpy.isfinite(difference)
    report = {'a': args.a, 'b': args.b, 'function': args.function,
              'inputs': args.input, 'rtol': args.rtol, 'atol': args.atol,
              'elements': int(a.size),
              'mismatches': int(a.size - numpy.count_nonzero(close)),
              'max_abs_difference': float(difference[finite].max()
                                          if finite.any() else 0.0),
              'bit_identical': bool(numpy.array_equal(a, b, equal_nan=True))}
    for name, vmfb in (('a', args.a), ('b', args.b)):
        times = benchmark(args.tools, vmfb, args.function, inputs,
                          args.repetitions)
        report[name + '_ms'] = {'median': times[len(times) // 2],
                                'min': times[0], 'max': times[-1],
                                'runs': len(times)}
    report['speedup_median'] = report['a_ms']['median'] / \
        report['b_ms']['median']
    text = json.dumps(report, indent=1)
    print(text)
    if args.output:
        with open(args.output, 'w') as handle:
            handle.write(text + '\n')
    return 1 if report['mismatches'] else 0


if __name__ == '__main__':
    sys.exit(main())
