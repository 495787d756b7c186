#===- mock_llm_server.py - Scripted LLM endpoint on loopback ---------------===#
"""A real HTTP server on 127.0.0.1 that plays a scripted sequence of replies.

It serves the OpenAI chat-completions route (``/v1/chat/completions``) and
the Anthropic Messages route (``/v1/messages``) from one ordered script, and
records every request it received (method, path, headers, body, arrival time,
requests received and not yet answered, this one included) as one JSON line each in ``--log``. Tests use it to
exercise the LLM layer's real HTTP code: rate limits, server errors, slow
and malformed replies, huge bodies, authentication failures.

Script (JSON)::

    {"responses": [
       {"status": 429, "headers": {"Retry-After": "1"},
        "json": {"error": {"message": "Rate limit reached", "type": "rate"}}},
       {"status": 500, "text": "upstream exploded"},
       {"delay": 2.0, "completion": "late"},
       {"repeat": {"text": "x", "count": 20971520}},
       {"completion_repeat": {"text": "y", "count": 20971520}},
       {"completion": "```ptx\\n...\\n```", "model": "mock-1",
        "usage": [12, 34], "finish_reason": "stop"},
       {"echo": true},
       {"close": true}
     ],
     "after": "repeat-last"}

Each request takes the next reply; when the script is used up, "after"
decides: "repeat-last" (default) replays the last reply, "error" answers
500. ``completion``, ``completion_repeat`` (a long text) and ``echo`` build
a success body in the shape of the route that was called; ``echo`` answers with a text derived from the request
(model, seed, last user message), so concurrent requests get distinct,
checkable answers.

Run it in one of two ways::

    python -m llmptx.testing.mock_llm_server --script s.json --log r.jsonl \\
        -- llmptx-llm complete --base-url http://127.0.0.1:{port}/v1 ...

runs the command with ``{port}`` replaced (and LLMPTX_MOCK_PORT set), stops
the server when the command ends and exits with the command's status, so a
test can never leave a server behind. Without a command the server writes
its port to ``--port-file`` (and stdout) and serves until ``--max-requests``
requests were answered, ``--idle-timeout`` seconds passed without one, or it
receives SIGTERM.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import signal
import socketserver
import subprocess
import sys
import threading
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union


class Script:
    """The ordered replies, consumed by concurrent handler threads."""

    def __init__(self, data: Union[Dict[str, Any], List[Any]]) -> None:
        if isinstance(data, list):
            data = {"responses": data}
        self.responses = list(data.get("responses", []))
        self.after = data.get("after", "repeat-last")
        if self.after not in ("repeat-last", "error"):
            raise ValueError("script 'after' must be 'repeat-last' or "
                             "'error', not %r" % (self.after,))
        self.lock = threading.Lock()
        self.next_index = 0

    def take(self) -> Dict[str, Any]:
        with self.lock:
            index = self.next_index
            self.next_index += 1
        if index < len(self.responses):
            return self.responses[index]
        if self.after == "repeat-last" and self.responses:
            return self.responses[-1]
        return {"status": 500,
                "json": {"error": {"message": "mock script exhausted",
                                   "type": "mock_error"}}}


def openai_body(text: str, model: str, finish_reason: str,
                usage: Sequence[int]) -> Dict[str, Any]:
    return {
        "id": "chatcmpl-mock",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0,
                     "message": {"role": "assistant", "content": text},
                     "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": usage[0],
                  "completion_tokens": usage[1],
                  "total_tokens": usage[0] + usage[1]},
    }


def anthropic_body(text: str, model: str, finish_reason: str,
                   usage: Sequence[int]) -> Dict[str, Any]:
    stop = {"stop": "end_turn", "length": "max_tokens"}.get(finish_reason,
                                                            finish_reason)
    return {
        "id": "msg_mock",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }


def echo_text(request: Any) -> str:
    """A reply that shows which request it answers."""
    if not isinstance(request, dict):
        return "echo: request was not a JSON object"
    last_user = ""
    for message in request.get("messages", []):
        if isinstance(message, dict) and message.get("role") == "user":
            last_user = str(message.get("content", ""))
    return "echo model=%s seed=%s last=%s" % (request.get("model"),
                                                request.get("seed"),
                                                last_user[:200])


class MockServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: Tuple[str, int], script: Script,
                 log_path: Optional[str], max_requests: int) -> None:
        super().__init__(address, Handler)
        self.script = script
        self.log_path = log_path
        self.max_requests = max_requests
        self.lock = threading.Lock()
        self.sequence = 0
        self.in_flight = 0
        self.answered = 0
        self.last_activity = time.monotonic()
        self.stopping = threading.Event()

    def begin(self, record: Dict[str, Any]) -> None:
        with self.lock:
            self.in_flight += 1
            self.last_activity = time.monotonic()
            record["seq"] = self.sequence
            record["in_flight"] = self.in_flight
            self.sequence += 1
            if self.log_path:
                with open(self.log_path, "a", encoding="utf-8") as log:
                    log.write(json.dumps(record, sort_keys=True) + "\n")

    def answering(self) -> None:
        """The reply is about to go out: the request no longer counts as in
        flight. Counting it until the handler returns would overlap with the
        client's next request (the client may get the reply and send again
        before this thread runs on), so the count here never exceeds the
        client's own concurrency."""
        with self.lock:
            self.in_flight -= 1

    def end(self) -> None:
        with self.lock:
            self.answered += 1
            self.last_activity = time.monotonic()
            done = self.max_requests and self.answered >= self.max_requests
        if done:
            self.request_stop()

    def request_stop(self) -> None:
        if not self.stopping.is_set():
            self.stopping.set()
            # shutdown() waits for serve_forever, so not from its thread.
            threading.Thread(target=self.shutdown, daemon=True).start()


class Handler(http.server.BaseHTTPRequestHandler):
    server_version = "llmptx-mock/1"
    # Headers and body go out as separate writes; with Nagle on, the body
    # would wait for the client's delayed ACK and every reply would take
    # milliseconds longer than the server's work.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        # The request log replaces the default stderr chatter.
        pass

    def do_GET(self) -> None:
        if self.path == "/health":
            self.send_body(200, {"Content-Type": "text/plain"}, b"ok\n")
        else:
            self.send_body(404, {"Content-Type": "text/plain"},
                           b"not found\n")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            body = raw.decode("utf-8", "replace")
        record = {
            "t": time.time(),
            "method": "POST",
            "path": self.path,
            "headers": {k.lower(): v for k, v in self.headers.items()},
            "body": body,
        }
        self.server.begin(record)
        step = self.server.script.take()
        time.sleep(float(step.get("delay", 0)))
        self.server.answering()
        try:
            self.reply(step, body)
        except (BrokenPipeError, ConnectionResetError):
            # The client gave up (timeout, size limit); that is the point
            # of some scripts.
            pass
        finally:
            self.server.end()

    def reply(self, step: Dict[str, Any], request: Any) -> None:
        if step.get("close"):
            self.close_connection = True
            self.connection.shutdown(2)
            return
        status = int(step.get("status", 200))
        headers = {"Content-Type": "application/json"}
        headers.update(step.get("headers", {}))
        anthropic = self.path.rstrip("/").endswith("/messages")
        if ("completion" in step or "completion_repeat" in step or
                step.get("echo")):
            if step.get("echo"):
                text = echo_text(request)
            elif "completion_repeat" in step:
                repeat = step["completion_repeat"]
                text = repeat.get("text", "x") * int(repeat.get("count", 1))
            else:
                text = step["completion"]
            model = step.get("model") or (
                request.get("model") if isinstance(request, dict) else None
            ) or "mock"
            usage = step.get("usage", [10, 20])
            finish = step.get("finish_reason", "stop")
            shape = anthropic_body if anthropic else openai_body
            payload = json.dumps(shape(text, model, finish, usage)).encode()
        elif "json" in step:
            payload = json.dumps(step["json"]).encode()
        elif "repeat" in step:
            payload = (step["repeat"].get("text", "x") *
                       int(step["repeat"].get("count", 1))).encode()
        else:
            payload = step.get("text", "").encode()
        self.send_body(status, headers, payload)

    def send_body(self, status: int, headers: Dict[str, str],
                  payload: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, str(value))
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        view = memoryview(payload)
        for start in range(0, len(payload), 1 << 20):
            self.wfile.write(view[start:start + (1 << 20)])


def write_port_file(path: str, port: int) -> None:
    temp = path + ".tmp"
    with open(temp, "w", encoding="utf-8") as handle:
        handle.write("%d\n" % port)
    os.replace(temp, path)


def watch_idle(server: MockServer, idle_timeout: float) -> None:
    while not server.stopping.wait(0.2):
        with server.lock:
            idle = (server.in_flight == 0 and
                    time.monotonic() - server.last_activity > idle_timeout)
        if idle:
            server.request_stop()


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = []
    if "--" in argv:
        split = argv.index("--")
        argv, command = argv[:split], argv[split + 1:]
    parser = argparse.ArgumentParser(
        prog="llmptx.testing.mock_llm_server",
        description="Scripted OpenAI/Anthropic endpoint on loopback.")
    parser.add_argument("--script", required=True,
                        help="JSON file with the replies to play")
    parser.add_argument("--log", help="append one JSON line per request")
    parser.add_argument("--port-file", help="write the bound port here")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--max-requests", type=int, default=0,
                        help="stop after this many requests (0: no limit)")
    parser.add_argument("--idle-timeout", type=float, default=300.0,
                        help="stop after this many idle seconds")
    args = parser.parse_args(argv)

    try:
        with open(args.script, encoding="utf-8") as handle:
            script = Script(json.load(handle))
    except (OSError, ValueError) as error:
        print("mock_llm_server: %s: %s" % (args.script, error),
              file=sys.stderr)
        return 2

    if args.log:
        open(args.log, "a", encoding="utf-8").close()
    server = MockServer((args.host, args.port), script, args.log,
                        args.max_requests)
    port = server.server_address[1]
    if args.port_file:
        write_port_file(args.port_file, port)
    signal.signal(signal.SIGTERM, lambda *_: server.request_stop())
    threading.Thread(target=watch_idle, args=(server, args.idle_timeout),
                     daemon=True).start()

    if not command:
        print("port %d" % port, flush=True)
        server.serve_forever(poll_interval=0.05)
        server.server_close()
        return 0

    serving = threading.Thread(target=server.serve_forever,
                               kwargs={"poll_interval": 0.05}, daemon=True)
    serving.start()
    env = dict(os.environ, LLMPTX_MOCK_PORT=str(port))
    command = [part.replace("{port}", str(port)) for part in command]
    try:
        status = subprocess.call(command, env=env)
    except OSError as error:
        print("mock_llm_server: cannot run %s: %s" % (command[0], error),
              file=sys.stderr)
        status = 127
    server.request_stop()
    serving.join(timeout=5)
    server.server_close()
    return status


if __name__ == "__main__":
    sys.exit(main())
