#!/bin/sh
# Regenerates docs/examples/cache: runs llm-lower on kernels.mlir with the
# exec provider answering from the curated PTX in answers/ (written by the
# project, model name "curated"). Run it after a change to the prompt
# templates or to kernels.mlir; test/Examples checks the cache still hits.
set -eu
cd "$(dirname "$0")/../.."
# The scripted model runs on the build's virtual environment, which has the
# llmptx package (./llmptx.sh build makes it; docs/python.md).
python=build/venv/bin/python3
rm -rf docs/examples/cache
LLMPTX_EXEC_COMMAND="$python -m llmptx.testing.scripted_model --answers docs/examples/answers" \
  build/bin/llmptx-opt docs/examples/kernels.mlir \
    --llm-lower="provider=exec model=curated cache=readwrite cache-dir=docs/examples/cache repairs=0" \
    -o /dev/null
# The build also kept its compile verdicts there (verify-v1/, keyed by this
# machine's assembler path and modification time): not shipped.
rm -rf docs/examples/cache/verify-v1
ls docs/examples/cache
