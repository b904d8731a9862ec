"""A local HTTP server speaking the chat-completions protocol with scripted replies.

Tests double the LLM only (never what we own): each reply is a dict that becomes the ``message`` of
the response: ``{"content": "..."}`` or ``{"tool_calls": [{"name": ..., "arguments": {...}}]}``.
Requests received are kept in ``server.requests`` for assertions.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ScriptedLLM:
    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                outer.requests.append(json.loads(self.rfile.read(length) or b"{}"))
                if not outer.replies:
                    self.send_response(500)
                    self.end_headers()
                    return
                reply = outer.replies.pop(0)
                message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
                if "tool_calls" in reply:
                    message["tool_calls"] = [
                        {
                            "id": f"call_{i}",
                            "type": "function",
                            "function": {
                                "name": c["name"],
                                "arguments": c["arguments"]
                                if isinstance(c["arguments"], str)
                                else json.dumps(c["arguments"]),
                            },
                        }
                        for i, c in enumerate(reply["tool_calls"])
                    ]
                body = json.dumps({"choices": [{"message": message}], "usage": {"total_tokens": 10}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def __enter__(self) -> ScriptedLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
