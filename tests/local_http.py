"""A local HTTP server for download tests: the handler the test writes, on a free port of
127.0.0.1, served from a daemon thread; and the switch that lets a test download at all."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

OFFLINE_VARS = ("HF_HUB_OFFLINE", "MEMRECALL_OFFLINE")


class LocalServer:
    """Serves `handler` until close(); `origin` is its http://127.0.0.1:PORT."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def allow_downloads(monkeypatch) -> None:
    """Unset the project's offline switch (the Makefile's test run may set it)."""
    for var in OFFLINE_VARS:
        monkeypatch.delenv(var, raising=False)
