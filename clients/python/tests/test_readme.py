"""The Python code of the repository's README.md and contracts/README.md, run as written against the
worker under test; and the package as pip installs it."""

import asyncio
import base64
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

import _env
import nats

from artifact_worker_client import WorkerClient

REPO = os.path.dirname(os.path.dirname(_env.PACKAGE_DIR))


def snippet(readme, marker):
    with open(os.path.join(REPO, readme), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"<!-- " + re.escape(marker) + r" [^\n]*-->\n```python\n(.*?)\n```", text, re.S)
    if not m:
        raise AssertionError(f"{readme} has no {marker} block")
    return m.group(1) + "\n"


def subprocess_env(pythonpath):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(pythonpath), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONHOME", None)
    return env


@_env.needs_worker
class ReadmeTest(unittest.TestCase):
    def test_quick_start_runs_as_written(self):
        fd, path = tempfile.mkstemp(prefix=".readme-quickstart-", suffix=".py", dir=_env.PACKAGE_DIR)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(snippet("README.md", "quickstart:python"))
        try:
            out = subprocess.run([sys.executable, path], env=subprocess_env(_env.PYTHONPATH), cwd=tempfile.gettempdir(),
                                 capture_output=True, text=True, timeout=60)
        finally:
            os.remove(path)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.split("\n")
        self.assertEqual(lines[0], "# Hello")
        self.assertEqual(json.loads(lines[1]), [{"role": "tool", "tool_call_id": "call_1", "content": "# Hello\n"}])
        self.assertEqual(lines[2:], ["artifact_not_found", ""])


@_env.needs_worker
class PlainSnippetTest(unittest.IsolatedAsyncioTestCase):
    async def test_plain_request_snippet_gets_the_reply(self):
        _env.quiet_loop()
        scope = {}
        exec(compile(snippet("contracts/README.md", "plain:python"), "contracts/README.md", "exec"), scope)
        nc = await nats.connect(_env.NATS_URL)
        try:
            ref = "artifact:" + _env.random_id("nope")
            replies = await asyncio.gather(*(scope["get_artifact"](nc, ref, "gpt-4o") for _ in range(2)))
            for reply in replies:
                self.assertEqual((reply["ok"], reply["error"]["code"], reply["error"]["ref"]), (False, "artifact_not_found", ref))
            self.assertNotEqual(replies[0]["request_id"], replies[1]["request_id"])
            # A large reply (the image twice, in imageUrl and in the assembly) comes by claim check.
            client = WorkerClient(nc)
            await client.claims()
            before = await _env.live_claims(nc.jetstream())
            png = _env.noisy_png(700, 500)
            b64 = base64.b64encode(png).decode()
            written = await client.file_written(workspace_id=_env.random_id("py"), path="chart.png",
                                                          mime_type="image/png", content_base64=b64)
            reply = await scope["get_artifact"](nc, written["artifactId"], "gpt-4o")
            self.assertTrue(reply["ok"], reply)
            self.assertEqual(reply["result"]["imageUrl"]["image_url"]["url"], "data:image/png;base64," + b64)
            self.assertGreater(len(json.dumps(reply)), nc.max_payload, "the reply fitted one message")
            # Deleted once read (nats-py's delete leaves a marker, not the object); the request's
            # claim goes once the worker is done with it.
            await _env.wait_no_new_claims(self, nc.jetstream(), before)
        finally:
            await nc.close()


def builder():
    """A python3 with setuptools and wheel (the build backend, which pip cannot fetch here): this
    one, else another on the machine; None when there is none."""
    for python in dict.fromkeys([sys.executable, shutil.which("python3"), "/usr/bin/python3"]):
        if python and os.path.exists(python) and subprocess.run(
            [python, "-c", "import setuptools, wheel"], env=subprocess_env([]), capture_output=True
        ).returncode == 0:
            return python
    return None


class OfflineInstallTest(unittest.TestCase):
    def test_offline_route_runs_as_written(self):
        # The README's offline lines, run by sh in an empty directory with REPO set to this
        # checkout: the venv imports the client from src/ and nats-py from third_party/.
        with open(os.path.join(_env.PACKAGE_DIR, "README.md"), encoding="utf-8") as f:
            m = re.search(r"<!-- offline:sh [^\n]*-->\n```sh\n(.*?)\n```", f.read(), re.S)
        self.assertIsNotNone(m, "clients/python/README.md has no offline:sh block")
        script = m.group(1).replace("REPO=/path/to/artifact-worker", "REPO=" + shlex.quote(REPO), 1)
        self.assertNotEqual(script, m.group(1), "the block does not set REPO=/path/to/artifact-worker")
        work = tempfile.mkdtemp(prefix="pyclient-offline-")
        try:
            env = subprocess_env([])
            env.pop("PYTHONPATH")
            out = subprocess.run(["sh", "-ec", script], cwd=work, env=env, capture_output=True, text=True, timeout=120)
            if out.returncode != 0 and "No module named venv" in out.stderr:
                self.skipTest("python3 here has no venv module: " + out.stderr.strip())
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
            code = "import artifact_worker_client as a, nats; print(a.__file__); print(nats.__file__)"
            out = subprocess.run([os.path.join(work, ".venv", "bin", "python"), "-c", code], cwd=work, env=env,
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            client, nats_file = out.stdout.splitlines()
            self.assertTrue(client.startswith(_env.SRC), client)
            self.assertTrue(nats_file.startswith(os.path.dirname(_env.VENDORED)), nats_file)
        finally:
            shutil.rmtree(work, ignore_errors=True)


class PackageTest(unittest.TestCase):
    def test_pip_installs_the_package(self):
        # What `pip install ./clients/python` does, offline: build from pyproject.toml and install
        # into a directory of its own, then import from there (not from src/).
        python = builder()
        if python is None:
            self.skipTest("no python3 here can build a package offline (setuptools and wheel, which pip cannot fetch here)")
        target = tempfile.mkdtemp(prefix="pyclient-")
        build = tempfile.mkdtemp(prefix="pyclient-src-")
        try:
            src = os.path.join(build, "python")
            shutil.copytree(_env.PACKAGE_DIR, src, ignore=shutil.ignore_patterns("third_party", "tests", "__pycache__", "build", "*.egg-info"))
            out = subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-deps",
                                  "--disable-pip-version-check", "--quiet", "--target", target, src],
                                 capture_output=True, text=True, timeout=300)
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
            code = ("import artifact_worker_client as a, importlib.metadata as m; "
                    "print(a.__file__); print(m.version('artifact-worker-client')); print(m.requires('artifact-worker-client'))")
            pythonpath = [target] + [p for p in _env.PYTHONPATH if p != _env.SRC]
            out = subprocess.run([python, "-c", code], env=subprocess_env(pythonpath), cwd=target,
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            file, version, requires = out.stdout.splitlines()
            self.assertTrue(file.startswith(target), file)
            self.assertTrue(os.path.exists(os.path.join(os.path.dirname(file), "py.typed")), "no py.typed: type checkers ignore the hints")
            self.assertEqual(version, "0.1.0")
            self.assertIn("nats-py", requires)
        finally:
            shutil.rmtree(target, ignore_errors=True)
            shutil.rmtree(build, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
