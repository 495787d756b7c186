# -*- Python -*-
# lit configuration of the llmptx regression suite.
#
# Features:
#   ptxas       a CUDA ptxas was found at configure time (compile checks run)
#   nvrtc       that toolkit has NVRTC (CUDA C++ candidates compile)
#   cuda        a GPU and its driver answer here (GPU execution tests run)
#   system-mlir-opt  Debian's mlir-opt is installed (plugin tests run)
# The default suite needs neither a GPU nor the network.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst


def llmptx_python(config):
    """The venv's Python, else CMake's: the first that imports llmptx."""
    for python in (os.path.join(config.llmptx_venv, "bin", "python3"),
                   config.python_executable):
        if os.path.exists(python) and subprocess.run(
                [python, "-c", "import llmptx.testing"],
                capture_output=True).returncode == 0:
            return python
    return None


config.name = "LLMPTX"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".ptx", ".test", ".py"]
config.excludes = ["Inputs", "Unit", "lit.cfg.py", "lit.site.cfg.py",
                   "CMakeLists.txt", "gpu_tests.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.llmptx_obj_root, "test")

# %python: the project's virtual environment, which ./llmptx.sh build makes
# under the build directory (docs/python.md): the llmptx package installed
# editable, whose tools and test doubles (llmptx.testing) the tests run, and
# IREE's wheels when they installed. Without it, CMake's Python, if it has
# the package.
python = llmptx_python(config)
if python is None:
    lit_config.fatal("no Python with the llmptx package: run ./llmptx.sh "
                     "build, or make %s with `python3 -m venv %s && %s/bin/pip "
                     "install -e %s` (docs/python.md)" % (
                         config.llmptx_venv, config.llmptx_venv,
                         config.llmptx_venv, config.llmptx_src_root))
config.substitutions.append(("%python", python))

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%llmptx_src", config.llmptx_src_root))
config.substitutions.append(("%llmptx_libs", config.llmptx_lib_dir))
config.substitutions.append(("%inputs",
                             os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(
    ("%mlir_opt_plugin",
     os.path.join(config.llmptx_lib_dir, "LLMGenPlugin.so")))

# Tests never inherit a user's provider settings, keys or cache.
for var in list(os.environ):
    if var.startswith("LLMPTX_") or var in ("OPENAI_API_KEY",
                                            "ANTHROPIC_API_KEY"):
        config.environment.pop(var, None)
        os.environ.pop(var, None)
for var in ("CUDA_HOME", "CUDA_PATH", "HOME", "XDG_CACHE_HOME"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment["PYTHONDONTWRITEBYTECODE"] = "1"

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.llmptx_tools_dir, config.llvm_tools_dir]
tools = ["llmptx-opt", "llmptx-ptx", "llmptx-runner", "llmptx-llm",
         "llmptx-kernels", "llmptx-iree"]
llvm_config.add_tool_substitutions(
    [ToolSubst(t, unresolved="ignore") for t in tools], tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llmptx_tools_dir,
                             append_path=True)

if config.ptxas_path and os.path.exists(config.ptxas_path):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas_path))
    config.environment["PATH"] = (os.path.dirname(config.ptxas_path) +
                                  os.pathsep + config.environment["PATH"])
    toolkit_root = os.path.dirname(os.path.dirname(config.ptxas_path))
    if any(os.path.exists(os.path.join(toolkit_root, folder, "libnvrtc.so"))
           for folder in ("lib64", "lib", "targets/x86_64-linux/lib")):
        config.available_features.add("nvrtc")

# IREE's wheels, in the same environment: tests of llmptx-iree need them and
# are skipped without them.
iree_compile = os.path.join(config.llmptx_venv, "bin", "iree-compile")
if os.path.exists(iree_compile):
    config.available_features.add("iree")
    config.substitutions.append(("%iree_compile", iree_compile))

# Ray, in the same environment: tests of llmptx-ray-runner start local
# clusters of CPU-only nodes with it and are skipped without it.
if subprocess.run([python, "-c", "import importlib.util, sys; "
                   "sys.exit(importlib.util.find_spec('ray') is None)"],
                  capture_output=True).returncode == 0:
    config.available_features.add("ray")
    ray_runner = os.path.join(os.path.dirname(python), "llmptx-ray-runner")
    config.substitutions.append(
        ("%llmptx_ray_runner", ray_runner if os.path.exists(ray_runner)
         else python + " -m llmptx.ray_runner"))

if config.system_mlir_opt and os.path.exists(config.system_mlir_opt):
    config.available_features.add("system-mlir-opt")
    config.substitutions.append(("%system_mlir_opt", config.system_mlir_opt))



def terminal_available():
    """Whether script(1) can give a command a pseudo-terminal."""
    script = shutil.which("script")
    if not script:
        return False
    try:
        out = subprocess.run([script, "-qec", "true", "/dev/null"],
                             capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0


if terminal_available():
    config.available_features.add("terminal")


def gpu_present():
    if os.environ.get("LLMPTX_TEST_NO_GPU"):
        return False
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and b"GPU" in out.stdout


if gpu_present():
    config.available_features.add("cuda")
