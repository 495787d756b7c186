#===- request_log.py - Summaries and checks of the mock server's log ------===#
"""Reads the JSON-lines request log of llmptx.testing.mock_llm_server.

  request_log.py summary LOG [--key KEY]
      one line per request (seq, path, model, seed, sample index, where KEY
      occurs: header names and whether the body holds it), then
      "requests=N max_in_flight=M"
  request_log.py gap LOG FIRST SECOND --at-least SECONDS
      fails unless request SECOND arrived at least SECONDS after FIRST
"""

import argparse
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def summary(args):
    records = load(args.log)
    for record in records:
        body = record.get("body")
        body = body if isinstance(body, dict) else {}
        llmptx = body.get("llmptx", {})
        line = "seq=%d path=%s model=%s seed=%s" % (
            record["seq"], record["path"], body.get("model"),
            body.get("seed"))
        if llmptx:
            line += " sample=%s" % llmptx.get("sample_index")
        if args.key:
            headers = sorted(name for name, value in record["headers"].items()
                             if args.key in value)
            in_body = args.key in json.dumps(record.get("body"))
            line += " key-in-headers=%s key-in-body=%s" % (
                ",".join(headers) or "none", "yes" if in_body else "no")
        print(line)
    print("requests=%d max_in_flight=%d" % (
        len(records), max([r["in_flight"] for r in records] or [0])))
    return 0


def gap(args):
    records = {r["seq"]: r for r in load(args.log)}
    waited = records[args.second]["t"] - records[args.first]["t"]
    if waited < args.at_least:
        print("request %d came %.3f s after request %d, expected >= %.3f s" %
              (args.second, waited, args.first, args.at_least))
        return 1
    print("gap ok: %.1f s or more" % args.at_least)
    return 0


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("summary")
    one.add_argument("log")
    one.add_argument("--key")
    two = commands.add_parser("gap")
    two.add_argument("log")
    two.add_argument("first", type=int)
    two.add_argument("second", type=int)
    two.add_argument("--at-least", type=float, required=True)
    args = parser.parse_args()
    return summary(args) if args.command == "summary" else gap(args)


if __name__ == "__main__":
    sys.exit(main())
