"""Test doubles: what the lit and unit tests (and the curated caches'
scripts) run in place of a model, a model server or a GPU. None of it is a
user tool; each runs as `python3 -m llmptx.testing.<name>`.

- mock_llm_server: a real HTTP server on loopback that plays a scripted
  sequence of OpenAI / Anthropic replies and logs every request;
- scripted_model: an `exec` provider command that answers from a folder of
  files, by kernel, sample, repair and optimization round;
- results_replay: a `runner` that hands back llmptx-runner results computed
  elsewhere, refusing bundles that differ from those that ran;
- replay_runner: writes a stand-in for the llmptx-runner binary that answers
  from recorded results, with faults to play, for llmptx-ray-runner's tests;
- ray_cluster: a local Ray cluster of CPU-only nodes for as long as one
  command runs.
"""
