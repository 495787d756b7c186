"""The kernel suite of docs/suite: its benchmark driver (bench.py,
llmptx-suite-bench), the PTX objects and manifest the driver launches
(export.py, llmptx-suite-export; manifest.py), the verification bundles of
its kernels (bundles.py, llmptx-suite-bundles) and a CPU interpreter that
runs verification bundles without a GPU (ptx_interp.py, emulate.py,
llmptx-suite-emulate)."""
