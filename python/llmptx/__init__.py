#===- __init__.py - The llmptx Python package ----------------------------===#
"""The Python side of llmptx: the user tools around the compiler's build,
the kernel suite's benchmark, and the doubles the tests run.

User tools, each a console script (`pip install -e .`, or the virtual
environment ./llmptx.sh makes under the build directory) and a module
(`python -m llmptx.<module>`):

- llmptx-host-build (host_build): an executable from llm-lower's output, a
  C driver and libllmptx_gpu_runtime.so;
- llmptx-gpu-binary (gpu_binary): the objects of the gpu.binary ops of a
  module, e.g. the PTX of one;
- llmptx-fragments (fragments): the library of proven PTX fragments
  (check, list, select, bundle);
- llmptx-iree (iree): LLM kernels for the CUDA dispatches of an IREE
  program (needs IREE's compiler package);
- llmptx-suite-bench, llmptx-suite-export, llmptx-suite-bundles,
  llmptx-suite-emulate (suite/): the kernel suite of docs/suite: its
  benchmark against Triton and PyTorch, the objects and bundles it runs,
  and a CPU interpreter of PTX that runs bundles without a GPU.

Libraries: tools (where the tools of a build and the checkout are: one
search for every script) and mlir_text (string literals and brackets of
printed MLIR). Test doubles: testing/ (a mock model server, a scripted
model, a results replay). docs/python.md has the details.

Only the standard library is needed; numpy, torch, Triton, cuda-python,
matplotlib and IREE are imported where they are used.
"""
