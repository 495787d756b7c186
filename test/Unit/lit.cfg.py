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
config.environment["PYTHONPATH"] = os.path.join(config.llmptx_src_root,
                                                "python")
config.environment["LLMPTX_SRC_ROOT"] = config.llmptx_src_root
config.environment["LLMPTX_PYTHON"] = config.python_executable
if "HOME" in os.environ:
    config.environment["HOME"] = os.environ["HOME"]
