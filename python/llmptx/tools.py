#===- tools.py - Where the tools of a build and the checkout are ----------===#
"""Where the tools of an llmptx build and the files of its checkout are.

Every module and script of the project finds them through this one module:

- `find_tool(name)`: a tool of the build (llmptx-opt, llmptx-ptx,
  llmptx-runner, llmptx-llm, llmptx-kernels, ...): in the folder the caller
  was given (a `--tools-dir`), else on PATH, else in build/bin of the
  checkout;
- `find_llvm_tool(name)`: one of Debian's LLVM/MLIR 22 tools (mlir-translate,
  opt, llc, ...): in the folder given, else `name-22` on PATH, else in
  `llvm-config-22 --bindir`;
- `source_root()`: the checkout, for the data it holds (fragments/,
  docs/suite): the one this package lies in (an editable install), else the
  current directory or the nearest folder above it that is a checkout.

Only the standard library is used.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Optional


class ToolNotFound(Exception):
    """A tool is in none of the places searched; the message names them."""


def _is_checkout(folder: str) -> bool:
    return (os.path.isfile(os.path.join(folder, 'llmptx.sh')) and
            os.path.isdir(os.path.join(folder, 'python', 'llmptx')))


def source_root() -> Optional[str]:
    """The llmptx checkout, or None outside one.

    An editable install (and python/ of a checkout on the path) lies in
    the checkout; a copied install (`pip install .`) does not, and then the
    current directory or the nearest folder above it must be one.
    """
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.dirname(os.path.dirname(here))]
    folder = os.getcwd()
    while True:
        candidates.append(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for candidate in candidates:
        if _is_checkout(candidate):
            return candidate
    return None


def source_path(*parts: str) -> str:
    """`parts` joined under the checkout; ToolNotFound outside one."""
    root = source_root()
    if root is None:
        raise ToolNotFound('no llmptx checkout here: run from one (or install '
                           'the package editable from it, pip install -e)')
    return os.path.join(root, *parts)


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def find_tool(name: str, tools_dir: Optional[str] = None,
              explicit: Optional[str] = None) -> str:
    """The path of the build's tool `name`.

    `explicit` is what the user named (an option such as --opt): a path, or
    a command on PATH, taken as it is. Otherwise, with `tools_dir` only
    there; else on PATH, else in build/bin of the checkout. Raises
    ToolNotFound naming where it looked.
    """
    if explicit:
        found = shutil.which(explicit)
        if found:
            return found
        raise ToolNotFound('%s not found' % explicit)
    if tools_dir:
        candidate = os.path.join(tools_dir, name)
        if _executable(candidate):
            return candidate
        raise ToolNotFound('%s not found in %s' % (name, tools_dir))
    found = shutil.which(name)
    if found:
        return found
    root = source_root()
    if root is not None:
        candidate = os.path.join(root, 'build', 'bin', name)
        if _executable(candidate):
            return candidate
    raise ToolNotFound('%s not found on PATH nor in build/bin of the checkout '
                       '(build it: ./llmptx.sh build, or put the build\'s '
                       'bin/ on PATH)' % name)


def build_bin(build: Optional[str]) -> Optional[str]:
    """The bin/ folder of the build directory a user named (--build), as
    find_tool's tools_dir; None when none was named."""
    return os.path.join(build, 'bin') if build else None


def _llvm_bindir() -> Optional[str]:
    config = shutil.which('llvm-config-22')
    if not config:
        return None
    try:
        out = subprocess.run([config, '--bindir'], capture_output=True,
                             text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def find_llvm_tool(name: str, tools_dir: Optional[str] = None) -> str:
    """The path of LLVM/MLIR 22's tool `name` (mlir-translate, opt, llc).

    With `tools_dir` only there; otherwise `name-22` on PATH, else `name` in
    `llvm-config-22 --bindir`. Raises ToolNotFound.
    """
    if tools_dir:
        candidate = os.path.join(tools_dir, name)
        if _executable(candidate):
            return candidate
        raise ToolNotFound('%s not found in --tools-dir %s' % (name, tools_dir))
    found = shutil.which('%s-22' % name)
    if found:
        return found
    bindir = _llvm_bindir()
    if bindir:
        candidate = os.path.join(bindir, name)
        if _executable(candidate):
            return candidate
    raise ToolNotFound('%s-22 not found on PATH nor in llvm-config-22 --bindir '
                       '(install mlir-22-tools and llvm-22)' % name)
