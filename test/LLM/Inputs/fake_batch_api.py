#===- fake_batch_api.py - Answer a batch JSONL file as OpenAI's batch API --===#
"""Writes the results file that OpenAI's batch API returns for an input file.

  fake_batch_api.py INPUT.jsonl OUTPUT.jsonl [--fail-line N] [--reject-line M]

Every request gets a chat.completion body whose text names its custom_id
and seed; line N (1-based) gets a request-level error (the "error" field),
line M an HTTP 400 response. Results come back in reverse order, since the
batch API does not keep the input order.
"""

import argparse
import json


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--fail-line", type=int, default=0)
    parser.add_argument("--reject-line", type=int, default=0)
    args = parser.parse_args()
    results = []
    with open(args.input, encoding="utf-8") as handle:
        lines = [json.loads(line) for line in handle if line.strip()]
    for number, line in enumerate(lines, start=1):
        assert line["method"] == "POST"
        assert line["url"] == "/v1/chat/completions"
        body = line["body"]
        result = {"id": "batch_req_%d" % number,
                  "custom_id": line["custom_id"], "response": None,
                  "error": None}
        if number == args.fail_line:
            result["error"] = {"code": "batch_expired",
                               "message": "This request could not be "
                                          "executed before the completion "
                                          "window expired."}
        elif number == args.reject_line:
            result["response"] = {
                "status_code": 400, "request_id": "req_%d" % number,
                "body": {"error": {"message": "Invalid 'messages'",
                                   "type": "invalid_request_error"}}}
        else:
            text = "```ptx\n// batch answer seed=%s\n.visible .entry k()\n" \
                   "{\n\tret;\n}\n```\n" % body.get("seed")
            result["response"] = {
                "status_code": 200, "request_id": "req_%d" % number,
                "body": {"id": "chatcmpl-%d" % number,
                         "object": "chat.completion",
                         "model": body["model"] + "-2025-01-01",
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant",
                                                  "content": text}}],
                         "usage": {"prompt_tokens": 100,
                                   "completion_tokens": 50,
                                   "total_tokens": 150}}}
        results.append(result)
    with open(args.output, "w", encoding="utf-8") as handle:
        for result in reversed(results):
            handle.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
