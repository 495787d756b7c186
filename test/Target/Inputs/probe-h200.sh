#!/bin/sh
# A runner command that answers --probe as llmptx-runner does on an H200.
[ "$1" = "--probe" ] || exit 1
printf 'device 0: NVIDIA H200\nchip: sm_90\nmultiprocessors: 132\n'
