"""Kept only while bench/llm/LLMBench.cpp runs `python -m
llmptx.mock_llm_server`: the server is llmptx.testing.mock_llm_server.
Remove this file once the benchmark names that module."""

import sys

from llmptx.testing.mock_llm_server import main

if __name__ == '__main__':
    sys.exit(main())
