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


def random_id(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(6)}"


def noisy_png(w: int, h: int) -> bytes:
    """A valid PNG of w x h random RGB pixels (incompressible: about 3*w*h bytes)."""
    raw = b"".join(b"\x00" + os.urandom(3 * w) for _ in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b"")
