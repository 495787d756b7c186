# -*- Python -*-
# Runs every GoogleTest binary under build/unittests as part of check-llmptx.
import os

import lit.formats

config.name = "LLMPTX-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.llmptx_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
for var in list(os.environ):
    if var.startswith("LLMPTX_") or var.endswith("_API_KEY"):
        os.environ.pop(var, None)
config.environment["LLMPTX_SRC_ROOT"] = config.llmptx_src_root
# The provider tests run llmptx.testing.mock_llm_server on the project's
# virtual environment (./llmptx.sh build makes it; docs/python.md), else on
# CMake's Python.
venv_python = os.path.join(config.llmptx_venv, "bin", "python3")
config.environment["LLMPTX_PYTHON"] = (
    venv_python if os.path.exists(venv_python) else config.python_executable)
if "HOME" in os.environ:
    config.environment["HOME"] = os.environ["HOME"]
