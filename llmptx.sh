#!/usr/bin/env bash
#===- llmptx.sh - Set up, build and run llmptx on a Debian machine --------===#
#
#   ./llmptx.sh example   install what is missing, build, run llm-lower on the
#                         shipped example and show what it selected
#   ./llmptx.sh test      install what is missing, build, run every test
#   ./llmptx.sh build     install what is missing and build only
#
# Packages come from Debian (LLVM/MLIR 22, libcurl, nlohmann/json,
# GoogleTest). The CUDA toolkit is optional: ptxas/nvJitLink are found through
# CUDA_HOME, CUDA_PATH, PATH or /usr/local/cuda; tests that need them are
# skipped without it, and no test needs a GPU or the network.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")"

BUILD_DIR=${BUILD_DIR:-build}
PACKAGES=(cmake ninja-build g++ python3 python3-venv python3-wheel-whl git
          llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
          libcurl4-openssl-dev nlohmann-json3-dev libgtest-dev)

install_packages() {
  local missing=()
  for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
      grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "llmptx: installing ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  "${sudo[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
}

# The project's Python: one virtual environment under the build directory
# (Debian's pip refuses system installs) holding the llmptx package,
# installed editable (its console scripts, and the test doubles lit runs),
# IREE's wheels, pinned, for llmptx-iree and its tests, and Ray, pinned, for
# llmptx-ray-runner and its tests. Both are optional: when one does not
# install, the rest works and the tests that need it are skipped.
# docs/python.md.
VENV="$BUILD_DIR/venv"
IREE_WHEELS=(iree-base-compiler==3.13.0 iree-base-runtime==3.13.0 numpy==2.4.6)
RAY_WHEELS=(ray==2.60.0)
PIP=("$VENV/bin/python3" -m pip --quiet --disable-pip-version-check)

install_llmptx_package() {
  local stamp="$VENV/.llmptx-installed"
  if [ -f "$stamp" ] && [ ! pyproject.toml -nt "$stamp" ] &&
     "$VENV/bin/python3" -c 'import llmptx.tools' 2>/dev/null; then
    return 0
  fi
  echo "llmptx: installing the llmptx package (editable) into $VENV"
  # Offline where the environment can build it: its own setuptools with the
  # wheel package Debian ships (python3-wheel-whl); else pip fetches both
  # from PyPI.
  "${PIP[@]}" install --no-index --find-links /usr/share/python-wheels \
    wheel 2>/dev/null || true
  "${PIP[@]}" install --no-build-isolation --no-deps -e . 2>/dev/null ||
    "${PIP[@]}" install --no-deps -e .
  touch "$stamp"
}

install_iree() {
  if [ -x "$VENV/bin/iree-compile" ] && "$VENV/bin/python3" -c \
       'import iree.compiler.ir, numpy' 2>/dev/null; then
    return 0
  fi
  echo "llmptx: installing ${IREE_WHEELS[*]} into $VENV"
  if ! "${PIP[@]}" install "${IREE_WHEELS[@]}"; then
    echo "llmptx: warning: IREE's wheels did not install; llmptx-iree and" \
         "its tests are unavailable" >&2
    "${PIP[@]}" uninstall --yes iree-base-compiler iree-base-runtime \
      >/dev/null 2>&1 || true
  fi
}

# Ray (about 10 s and 280 MB with its dependencies) for llmptx-ray-runner:
# the same pin as pyproject.toml's `ray` extra. docs/ray.md.
install_ray() {
  if "$VENV/bin/python3" -c 'import ray' 2>/dev/null; then
    return 0
  fi
  echo "llmptx: installing ${RAY_WHEELS[*]} into $VENV"
  if ! "${PIP[@]}" install "${RAY_WHEELS[@]}"; then
    echo "llmptx: warning: Ray did not install; llmptx-ray-runner and its" \
         "tests are unavailable" >&2
    "${PIP[@]}" uninstall --yes ray >/dev/null 2>&1 || true
  fi
}

install_python() {
  if [ ! -x "$VENV/bin/python3" ]; then
    echo "llmptx: making the virtual environment $VENV"
    python3 -m venv "$VENV"
  fi
  install_llmptx_package
  install_iree
  install_ray
}

# CMake is told where the environment is: lit and build/bin/llmptx-iree run
# its Python. A build directory configured before it existed had a virtual
# environment for IREE alone, build/iree-venv, which it replaces.
configure() {
  local venv
  venv="$(cd "$BUILD_DIR" && pwd)/venv"
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release \
      -DLLMPTX_IREE_VENV="$venv"
  elif [ "$(sed -n 's/^LLMPTX_IREE_VENV:[A-Z]*=//p' \
             "$BUILD_DIR/CMakeCache.txt")" != "$venv" ]; then
    cmake -S . -B "$BUILD_DIR" -DLLMPTX_IREE_VENV="$venv"
    rm -rf "$BUILD_DIR/iree-venv"
  fi
}

build() {
  install_packages
  install_python
  configure
  ninja -C "$BUILD_DIR"
}

example() {
  build
  local out="$BUILD_DIR/example"
  mkdir -p "$out"
  local cmd=("$BUILD_DIR/bin/llmptx-opt" docs/examples/kernels.mlir
             "--llm-lower=provider=replay model=curated cache=read cache-dir=docs/examples/cache verify=compile report=$out/report.json"
             -o "$out/kernels.out.mlir")
  echo "llmptx: ${cmd[*]}"
  "${cmd[@]}"
  echo
  echo "llmptx: objects of each gpu.binary in $out/kernels.out.mlir:"
  "$VENV/bin/llmptx-gpu-binary" "$out/kernels.out.mlir" --summary
  if [ -f "$out/report.json" ]; then
    echo
    echo "llmptx: per-kernel decisions ($out/report.json):"
    "$VENV/bin/python3" - "$out/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
for kernel in report.get("kernels", []):
    print("  @%-12s selected=%-5s %s" % (kernel["name"], kernel["selected"],
                                        kernel["reason"]))
PY
  fi
}

case "${1:-}" in
  example) example ;;
  test) build; ninja -C "$BUILD_DIR" check-llmptx ;;
  build) build ;;
  *) echo "usage: $0 example|test|build" >&2; exit 2 ;;
esac
