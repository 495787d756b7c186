#===- fake_model.py - A command that plays the model for the exec provider -===#
"""Reads the exec provider's request JSON on stdin and answers on stdout.

  fake_model.py ok        a fenced PTX block naming what the request carried
  fake_model.py fail      "quota exceeded" on stderr, exit status 3
  fake_model.py sleep S   sleeps S seconds first, then answers like ok
  fake_model.py silent    prints nothing, exit status 0
"""

import json
import sys
import time


def main():
    request = json.load(sys.stdin)
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    if mode == "fail":
        sys.stderr.write("fake model: starting\n" + "noise\n" * 2000 +
                         "fake model: quota exceeded for model %s\n" %
                         request.get("model"))
        return 3
    if mode == "silent":
        return 0
    if mode == "sleep":
        time.sleep(float(sys.argv[2]))
    info = request.get("llmptx", {})
    print("```ptx")
    print("// kernel=%s sample=%s template=%s" % (
        info.get("kernel"), info.get("sample_index"),
        info.get("template_version")))
    print("// model=%s temperature=%s max_tokens=%s seed=%s messages=%d" % (
        request.get("model"), request.get("temperature"),
        request.get("max_tokens"), request.get("seed"),
        len(request.get("messages", []))))
    print(".version 8.5")
    print(".target sm_90")
    print(".address_size 64")
    print(".visible .entry %s()" % (info.get("kernel") or "k"))
    print("{")
    print("\tret;")
    print("}")
    print("```")
    return 0


if __name__ == "__main__":
    sys.exit(main())
