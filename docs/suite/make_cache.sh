#!/bin/sh
# Regenerates docs/suite/cache: runs llm-lower on every kernel of
# docs/suite/kernels with the exec provider answering from the curated PTX in
# docs/suite/answers (written by the project, model name "curated").
# Run it after a change to the prompt templates, to a kernel or to an
# answer; test/Suite checks that every kernel still hits the cache and that
# every answer passes lint, the ABI check and ptxas. A kernel without an
# answer (no docs/suite/answers/<kernel>.txt yet) is skipped: it has no
# cache entry, and llm-lower keeps its NVPTX reference.
#
#   docs/suite/make_cache.sh [BUILD_DIR]     (default: build)
#
# The suite is always lowered with chip=sm_90 features=+ptx80 (PTX ISA 8.0:
# tma_affine's bulk copies need it); the prompts, and so the cache keys,
# depend on these options.
set -eu
cd "$(dirname "$0")/../.."
build=${1:-build}
# The scripted model runs on the build's virtual environment, which has the
# llmptx package (./llmptx.sh build makes it; docs/python.md).
python=$build/venv/bin/python3
rm -rf docs/suite/cache
for kernel in docs/suite/kernels/*.mlir; do
  name=$(basename "$kernel" .mlir)
  if [ ! -f "docs/suite/answers/$name.txt" ]; then
    echo "$name: no answer, skipped" >&2
    continue
  fi
  LLMPTX_EXEC_COMMAND="$python -m llmptx.testing.scripted_model --answers docs/suite/answers" \
    "$build/bin/llmptx-opt" "$kernel" \
      --llm-lower="chip=sm_90 features=+ptx80 provider=exec model=curated cache=readwrite cache-dir=docs/suite/cache repairs=0 select=llm strict=true" \
      -o /dev/null
done
# The build also kept its compile verdicts there (verify-v1/, keyed by this
# machine's assembler path and modification time): not shipped.
rm -rf docs/suite/cache/verify-v1
find docs/suite/cache -type f | wc -l
