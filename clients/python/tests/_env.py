"""Test set-up shared by the tests: the package from ../src, nats-py as installed or, when
`import nats` fails, the copy in ../third_party (the tests say which), fixtures, the worker under
test (integration/python_test.go starts one and sets NATS_URL)."""

import asyncio
import os
import secrets
import struct
import sys
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.dirname(HERE)
SRC = os.path.join(PACKAGE_DIR, "src")
VENDORED = os.path.join(PACKAGE_DIR, "third_party", "nats-py-2.15.0", "src")

if SRC not in sys.path:
    sys.path.insert(0, SRC)
#: Directories a subprocess needs on PYTHONPATH to import the package and nats-py as these tests do.
PYTHONPATH = [SRC]
try:
    import nats  # noqa: F401

    try:
        from importlib.metadata import version

        _v = version("nats-py")
    except Exception:  # installed without metadata
        _v = "(version unknown)"
    NATS_FROM = f"installed nats-py {_v} at {os.path.dirname(nats.__file__)}"
except ImportError:
    sys.path.insert(1, VENDORED)
    PYTHONPATH.append(VENDORED)
    import nats  # noqa: F401

    NATS_FROM = "vendored nats-py 2.15.0 at clients/python/third_party/nats-py-2.15.0/src (`import nats` failed)"

print(f"nats-py used by the tests: {NATS_FROM}", file=sys.stderr, flush=True)

#: The worker under test; the tests that need one are skipped without it.
NATS_URL = os.environ.get("NATS_URL", "")


def needs_worker(cls):
    """Skips a test class when no worker is given (NATS_URL)."""
    return unittest.skipUnless(NATS_URL, "NATS_URL is not set: integration/python_test.go runs these against a worker")(cls)


def quiet_loop():
    """IsolatedAsyncioTestCase runs its loop in debug mode, which reports every step over 0.1 s:
    a 3 MB image's JSON takes longer than that."""
    asyncio.get_running_loop().slow_callback_duration = 10


async def ignore(err):
    """An error_cb for connections a test drops on purpose (nats-py logs each error by default)."""


async def live_claims(js) -> set:
    """The names of the objects in WORKER_CLAIMS, deleted ones left out."""
    import nats.js.errors

    bucket = await js.object_store("WORKER_CLAIMS")
    try:
        return {o.name for o in await bucket.list(ignore_deletes=True)}
    except nats.js.errors.NotFoundError:
        return set()


async def wait_no_new_claims(test, js, before: set, timeout: float = 15) -> None:
    """Fails test unless WORKER_CLAIMS holds no object beyond before within timeout: every
    claim-checked body was deleted by its reader (the worker a request's once it is done, the client
    a reply's) or, never read, by the client. (Objects already there are someone else's.)"""
    import time

    deadline = time.monotonic() + timeout
    while (left := await live_claims(js) - before) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    test.assertEqual(sorted(left), [], "claim-checked bodies left in WORKER_CLAIMS")


def random_id(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(6)}"


def noisy_png(w: int, h: int) -> bytes:
    """A valid PNG of w x h random RGB pixels (incompressible: about 3*w*h bytes)."""
    raw = b"".join(b"\x00" + os.urandom(3 * w) for _ in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b"")


class Proxy:
    """A TCP proxy to the NATS server of NATS_URL that can drop every connection through it, as a
    server failing over does to its clients (who then reconnect, through the proxy again), and stop
    listening while its gate is closed (close_gate: the clients stay away until open_gate)."""

    def __init__(self):
        from urllib.parse import urlparse

        u = urlparse(NATS_URL.split(",")[0])
        self.target = (u.hostname or "127.0.0.1", u.port or 4222)
        self.writers = set()
        self.connections = 0
        self.port = 0

    async def start(self) -> str:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self.server.sockets[0].getsockname()[1]
        return f"nats://127.0.0.1:{self.port}"

    async def _serve(self, reader, writer):
        self.connections += 1
        up_reader, up_writer = await asyncio.open_connection(*self.target)
        self.writers.update((writer, up_writer))

        async def pipe(src, dst):
            try:
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, asyncio.CancelledError):
                pass
            finally:
                dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def drop(self):
        """Closes every connection through the proxy."""
        for w in list(self.writers):
            w.close()
        self.writers.clear()

    async def close_gate(self):
        """Drops every connection through the proxy and refuses new ones until open_gate."""
        self.server.close()
        await self.server.wait_closed()
        self.drop()

    async def open_gate(self):
        """Listens again, on the same port."""
        await self.start()

    async def close(self):
        self.drop()
        self.server.close()
        await self.server.wait_closed()
