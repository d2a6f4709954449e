"""A local OpenAI-compatible server for the bundled SmolLM2-135M-Instruct (the `reader=local`
model), so the reader plug-in example (openai_reader.py) runs offline from a fresh clone:

    python examples/serve_smollm2.py --port 8080 &
    LOCAL_OPENAI_BASE_URL=http://127.0.0.1:8080/v1 dvc exp run -S reader=plugin

It answers POST /v1/chat/completions (model, messages, max_tokens; greedy decoding) with the
usual `choices` and `usage`, one request at a time (the model is not thread-safe). Any real
server (llama.cpp's llama-server, vLLM, Ollama) takes its place unchanged. A 135M model is a
plumbing check, not a result.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

MODEL_NAME = "smollm2-135m"


def make_server(host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from memrecall.llm.local import get_model

    model = get_model(MODEL_NAME)  # loaded (and on first use converted) before serving
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if not self.path.rstrip("/").endswith("/chat/completions"):
                return self._send(404, {"error": {"message": f"unknown route {self.path}"}})
            try:
                req = json.loads(body)
                messages = [
                    {"role": m["role"], "content": str(m["content"])} for m in req["messages"]
                ]
                max_tokens = int(req.get("max_tokens") or 256)
            except (ValueError, KeyError, TypeError) as e:
                return self._send(400, {"error": {"message": f"bad request: {e}"}})
            try:
                with lock:
                    text, n_in, n_out = model.generate(messages, max_tokens)
            except Exception as e:  # e.g. the prompt exceeds the model's context
                return self._send(400, {"error": {"message": f"{type(e).__name__}: {e}"}})
            self._send(
                200,
                {
                    "id": f"chatcmpl-{time.time_ns()}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": MODEL_NAME,
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": "stop",
                            "message": {"role": "assistant", "content": text},
                        }
                    ],
                    "usage": {
                        "prompt_tokens": n_in,
                        "completion_tokens": n_out,
                        "total_tokens": n_in + n_out,
                    },
                },
            )

        def _send(self, status: int, payload: dict) -> None:
            raw = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    return ThreadingHTTPServer((host, port), Handler)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8080)
    args = ap.parse_args()
    server = make_server(args.host, args.port)
    print(f"serving {MODEL_NAME} at http://{args.host}:{server.server_address[1]}/v1", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
