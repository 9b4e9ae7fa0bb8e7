"""An MCP server served over streamable HTTP on 127.0.0.1, inside the attempt's event loop.

The socket is bound and listening when the object is built, so its URL can be
handed out at once (a client that connects before the server has started waits
in the listen backlog). Uvicorn serves the SDK's streamable-HTTP app on that
socket; we start and stop it ourselves rather than through `serve`, which
would install signal handlers, poll for its exit every 100 ms and pause 100 ms
more on the way out.
`aclose` stops it: nothing outlives the attempt.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

CLOSE_TIMEOUT_S = 2.0  # after this, requests still being answered are cancelled


class McpHttpServer:
    """Serve an ``mcp`` server at ``url`` (``http://127.0.0.1:PORT/mcp``) until `aclose`."""

    def __init__(self, server: Any) -> None:
        import uvicorn

        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # inherited by accepted connections
        listener.bind(("127.0.0.1", 0))
        listener.listen(128)
        self.url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
        app = server.streamable_http_app(host="127.0.0.1", json_response=True)
        config = uvicorn.Config(app, lifespan="on", log_level="warning", access_log=False)
        config.load()
        self._uvicorn = uvicorn.Server(config)
        self._uvicorn.lifespan = config.lifespan_class(config)
        self._listener = listener
        self._started = asyncio.ensure_future(self._uvicorn.startup(sockets=[listener]))

    async def aclose(self) -> None:
        """Stop serving: refuse new connections, end the open ones and the SDK's sessions."""
        try:
            await self._started
            state = self._uvicorn.server_state
            for listening in self._uvicorn.servers:
                listening.close()
            for connection in list(state.connections):
                connection.shutdown()
            await self._uvicorn.lifespan.shutdown()  # the session manager ends its sessions and streams
            if state.tasks:
                _, late = await asyncio.wait(state.tasks, timeout=CLOSE_TIMEOUT_S)
                for task in late:
                    task.cancel()
        finally:
            self._listener.close()
