"""Answers and checks of test/Target/hostile-answers.mlir."""
import json
import os
import sys

KEY = 'sk-q"u\\o-secret-X1'


def answers(source, target):
    # The broken first answer and the fixed second one, each quoting the key.
    for name in ("vadd.r0.txt", "vadd.r1.txt"):
        text = open(os.path.join(source, name)).read()
        text = text.replace("```ptx\n", "```ptx\n// api key: %s\n" % KEY, 1)
        open(os.path.join(target, name), "w").write(text)


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def check(key, folder, requests):
    escaped = json.dumps(key)[1:-1]
    records = [json.loads(line) for line in open(requests)]
    for record in records:
        assert not any(key in s for s in strings(record)), "key in a request"
    files = 0
    for root, _, names in os.walk(folder):
        for name in names:
            data = open(os.path.join(root, name), encoding="utf-8").read()
            assert key not in data and escaped not in data, name
            files += 1
    print("%d requests, %d files: no key, raw or escaped" % (len(records), files))


def huge(target):
    os.makedirs(target, exist_ok=True)
    open(os.path.join(target, "vadd.txt"), "w").write(
        "```ptx\n" + "// again\n" * (2 * 1024 * 1024 // 9) + "```\n")


def deep_launch(source, target):
    # The answer of @scale with its launch block replaced.
    os.makedirs(target, exist_ok=True)
    text = open(source).read()
    start = text.index("```launch\n") + len("```launch\n")
    end = text.index("```", start)
    text = text[:start] + "[" * 100000 + "]" * 100000 + "\n" + text[end:]
    open(os.path.join(target, "scale.txt"), "w").write(text)


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"answers": answers, "check": check, "huge": huge,
     "deep-launch": deep_launch}[command](*args)
