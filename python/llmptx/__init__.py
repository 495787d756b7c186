#===- __init__.py - llmptx Python helpers ----------------------------------===#
"""Python side of llmptx: the loopback mock LLM server used by the tests."""
