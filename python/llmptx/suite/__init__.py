"""The kernel suite of docs/suite: its benchmark driver (bench.py), the
manifest of the PTX objects the driver launches (manifest.py, export.py)
and a CPU interpreter that runs verification bundles without a GPU
(ptx_interp.py, emulate.py)."""
