"""A PDF for a model that reads images but takes no PDF, from a real worker (integration/python_test.go
starts one and sets NATS_URL) into the next turn: assemble_turn keeps every page's text and image."""
import base64
import os
import unittest

import _env
import nats
from artifact_worker_client import WorkerClient, assemble_turn
from artifact_worker_client.dialects import DIALECTS

REPORT = os.path.join(_env.PACKAGE_DIR, "..", "..", "internal", "testing", "testfiles", "pdf", "report.pdf")


def part_sequence(value, key=""):
    """In order, "T:" and each line naming a page of the texts, and "I" for each image (a data:image
    URL, an image MIME type, a Bedrock image format), in a message of any dialect."""
    if isinstance(value, list):
        return [s for v in value for s in part_sequence(v)]
    if isinstance(value, dict):
        return [s for k in sorted(value) for s in part_sequence(value[k], k)]
    if isinstance(value, str):
        if value.startswith("data:image/") or (key in ("mimeType", "media_type", "mime_type") and value.startswith("image/")) \
                or (key == "format" and value in ("png", "jpeg")):
            return ["I"]
        if key in ("text", "output", "content"):
            return ["T:" + line for line in value.split("\n") if ", page " in line]
    return []


@_env.needs_worker
class PagesTurnTest(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        _env.quiet_loop()
        self.nc = await nats.connect(_env.NATS_URL)
        self.client = WorkerClient(self.nc)

    async def asyncTearDown(self):
        await self.nc.close()

    async def test_pdf_pages_into_the_next_turn(self):
        with open(REPORT, "rb") as f:
            pdf = f.read()
        written = await self.client.file_written(workspace_id=_env.random_id("py"), path="report.pdf", mime_type="application/pdf",
                                                 content_base64=base64.b64encode(pdf).decode())
        for dialect in DIALECTS:
            with self.subTest(dialect):
                # The first PDF may wait for the renderer's compile: a bound on a hung call only.
                res = await self.client.get_artifact(ref=written["artifactId"], capabilities=["text", "vision"], dialect=dialect,
                                                     locale="en", timeout=120)
                self.assertEqual(res["routing"], "pages")
                self.assertEqual(res["pages"]["sent"], "1-2")
                turn = assemble_turn([{"id": "call_1", "name": "get_artifact", "result": res}])
                seq = part_sequence(turn)
                self.assertEqual(seq.count("I"), 2, seq)
                for page in ("T:report.pdf, page 1 of 2", "T:report.pdf, page 2 of 2"):
                    self.assertIn(page, seq)
                    if dialect != "gemini":  # gemini's functionResponse: texts in response, images in parts
                        self.assertEqual(seq[seq.index(page) + 1], "I", seq)


if __name__ == "__main__":
    unittest.main()
