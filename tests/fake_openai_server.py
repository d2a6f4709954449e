"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol, with faults.

Used by the LLM-layer tests and by bench/llm_throughput.py. It runs in a background thread of the
test process (or as its own process: `python tests/fake_openai_server.py --latency 1 3 --p429 0.05`,
which prints the port and serves GET /stats).

Faults are injected two ways:
- `plan(marker, [actions...])`: a request whose last user message contains `marker` gets the
  actions in order, one per attempt; once the list is used up it is answered normally.
- `rates={"429": 0.05, ...}`: every request draws a fault with these probabilities (seeded).
Actions: ok, 429, 500, 503, hang (never answers within the client's timeout), malformed (HTTP 200
with a body that is not JSON), nochoices (valid JSON without choices), empty (a normal answer with
"" content), echo401 (a 401 whose message quotes the Authorization header, like a careless proxy).

The server counts requests and 200-answers per request body (keyed by its `messages`), the maximum
number of requests in flight at once, and which Authorization headers it saw.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import random
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ACTIONS = ("ok", "429", "500", "503", "hang", "malformed", "nochoices", "empty", "echo401")

# The variable the tests' LLM groups read their fake key from, and the fake key it holds.
KEY_ENV = "MEMRECALL_FAKE_KEY"
KEY = "sk-test-not-a-real-key"


def body_key(messages) -> str:
    """The identity of a request body: its messages, canonically serialised."""
    raw = json.dumps(messages, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(raw.encode()).hexdigest()


def last_user(messages) -> str:
    for m in reversed(messages or []):
        if m.get("role") == "user":
            return str(m.get("content"))
    return ""


def default_answer(messages) -> str:
    """Deterministic and tied to the request, so a test can check answers come back in order."""
    return "echo: " + last_user(messages)[:64]


def fake_runtime(api_base: str, **over) -> dict:
    """The runtime keys of an LLM group that talks to a fake server at `api_base`, with `over`
    set. No retries, since tests count every attempt the server sees; a short timeout, so a
    hang fails the test fast instead of stalling it."""
    return {"api_base": api_base, "api_key_env": KEY_ENV, "timeout_s": 10, "num_retries": 0, **over}


class FakeOpenAIServer:
    def __init__(
        self,
        *,
        latency: tuple[float, float] = (0.0, 0.0),
        rates: dict | None = None,
        seed: int = 0,
        answer=default_answer,
        reasoning_tokens: int = 0,
        hang_s: float = 30.0,
        retry_after: float | None = None,
        count_tokens=None,
    ):
        self.latency = latency
        # prompt tokens reported in usage: count_tokens(messages), else characters / 4
        self.count_tokens = count_tokens
        self.rates = dict(rates or {})
        self.answer = answer
        self.reasoning_tokens = reasoning_tokens
        self.hang_s = hang_s
        self.retry_after = retry_after
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._plans: dict[str, collections.deque] = {}
        self._stop = threading.Event()
        self.requests: collections.Counter = collections.Counter()  # body key -> requests
        self.answered: collections.Counter = collections.Counter()  # body key -> 200 answers
        self.actions: collections.Counter = collections.Counter()  # action -> times served
        self.auth_headers: set[str] = set()
        self.bodies: list[dict] = []  # every request body seen
        self.paths: list[str] = []  # every POST path
        self.in_flight = 0
        self.max_in_flight = 0
        self.usage_sent = {"prompt_tokens": 0, "completion_tokens": 0}  # over 200-ok answers
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---- control ---------------------------------------------------------------------------
    def plan(self, marker: str, actions: list[str]) -> None:
        for a in actions:
            if a not in ACTIONS:
                raise ValueError(f"unknown action {a!r}; choose from {ACTIONS}")
        with self._lock:
            self._plans[marker] = collections.deque(actions)

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """The api_base to give the client (OpenAI style, ending in /v1)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def runtime(self, **over) -> dict:
        """fake_runtime for this server: the runtime keys of an LLM group that talks to it."""
        return fake_runtime(self.url, **over)

    @property
    def total_requests(self) -> int:
        return sum(self.requests.values())

    def requests_for(self, marker: str) -> int:
        """Requests whose last user message contains `marker`."""
        return sum(1 for b in self.bodies if marker in last_user(b.get("messages")))

    def start(self) -> "FakeOpenAIServer":
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):
                if self.path.rstrip("/").endswith("/stats"):
                    self._send(200, json.dumps(server.stats()).encode())
                else:
                    self._send(404, b'{"error": {"message": "not found"}}')

            def do_POST(self):
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n)
                server.paths.append(self.path)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, b'{"error": {"message": "unknown route"}}')
                    return
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    self._send(400, b'{"error": {"message": "request is not JSON"}}')
                    return
                server._handle(self, body)

            def _send(self, status, payload: bytes, headers: dict | None = None):
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout): nothing to answer

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._httpd.request_queue_size = 256
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def stats(self) -> dict:
        with self._lock:
            return {
                "total_requests": self.total_requests,
                "answered": sum(self.answered.values()),
                "max_in_flight": self.max_in_flight,
                "actions": dict(self.actions),
                "usage_sent": dict(self.usage_sent),
                "max_answers_per_body": max(self.answered.values(), default=0),
            }

    # ---- request handling ------------------------------------------------------------------
    def _choose(self, messages) -> str:
        text = last_user(messages)
        with self._lock:
            for marker, queue in self._plans.items():
                if marker in text and queue:
                    return queue.popleft()
            r = self._rng.random()
            acc = 0.0
            for action, p in self.rates.items():
                acc += p
                if r < acc:
                    return action
            return "ok"

    def _handle(self, h, body: dict) -> None:
        messages = body.get("messages")
        key = body_key(messages)
        with self._lock:
            self.requests[key] += 1
            self.bodies.append(body)
            auth = h.headers.get("Authorization")
            if auth:
                self.auth_headers.add(auth)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            delay = self._rng.uniform(*self.latency) if self.latency[1] > 0 else 0.0
        try:
            action = self._choose(messages)
            with self._lock:
                self.actions[action] += 1
            if action == "hang":
                self._stop.wait(self.hang_s)
                h._send(504, b'{"error": {"message": "hung"}}')
                return
            if delay:
                time.sleep(delay)
            if action in ("429", "500", "503"):
                headers = (
                    {"Retry-After": str(self.retry_after)}
                    if (action == "429" and self.retry_after is not None)
                    else None
                )
                msg = {"429": "rate limit reached", "500": "internal error", "503": "overloaded"}[
                    action
                ]
                err = {"error": {"message": msg, "type": "server_error", "code": action}}
                h._send(int(action), json.dumps(err).encode(), headers)
                return
            if action == "echo401":
                err = {
                    "error": {
                        "message": f"invalid key in header {auth!r}",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                }
                h._send(401, json.dumps(err).encode())
                return
            if action == "malformed":
                h._send(200, b'{"id": "chatcmpl-x", "choices": [{"message": {"content": "tru')
                return
            if action == "nochoices":
                h._send(
                    200,
                    json.dumps(
                        {
                            "id": "chatcmpl-x",
                            "object": "chat.completion",
                            "created": 0,
                            "model": body.get("model"),
                            "choices": [],
                        }
                    ).encode(),
                )
                return
            text = "" if action == "empty" else self.answer(messages)
            prompt_tokens = (
                self.count_tokens(messages)
                if self.count_tokens
                else max(1, sum(len(str(m.get("content", ""))) for m in messages) // 4)
            )
            completion_tokens = max(0, len(text.split())) + self.reasoning_tokens
            usage = {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            }
            if self.reasoning_tokens:
                usage["completion_tokens_details"] = {"reasoning_tokens": self.reasoning_tokens}
            resp = {
                "id": "chatcmpl-" + key[:12],
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model"),
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": text},
                    }
                ],
                "usage": usage,
            }
            with self._lock:
                self.answered[key] += 1
                self.usage_sent["prompt_tokens"] += prompt_tokens
                self.usage_sent["completion_tokens"] += completion_tokens
            h._send(200, json.dumps(resp).encode())
        finally:
            with self._lock:
                self.in_flight -= 1


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", nargs=2, type=float, default=(0.0, 0.0), metavar=("LO", "HI"))
    ap.add_argument("--p429", type=float, default=0.0)
    ap.add_argument("--p500", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    srv = FakeOpenAIServer(
        latency=tuple(args.latency), seed=args.seed, rates={"429": args.p429, "500": args.p500}
    ).start()
    print(srv.port, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
