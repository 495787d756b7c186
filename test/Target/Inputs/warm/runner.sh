#!/bin/sh
# The runner of llm-warm-build.test: replays the suite's recorded H200
# results (results_replay) until the file $ARMED exists; from then on each
# call is recorded in $CALLS and fails, as a build that should not need a
# GPU must not call it.
if [ -e "${ARMED:?}" ]; then
  echo "runner called: $*" >> "${CALLS:?}"
  exit 1
fi
exec "${PYTHON:?}" -m llmptx.testing.results_replay \
  --results "${H200:?}/results.json" --ran "$H200/bundles" "$@"
