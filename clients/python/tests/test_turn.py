"""assemble_turn returns what the Go client's client.Turn returns for the same calls, in every
dialect: clients/js/test/testdata/turns.json is written by the Go test TestTurnFixtures (client/),
which fails when the file is not client.Turn's output of today."""

import json
import os
import re
import unittest

import _env
from artifact_worker_client import DIALECTS, TurnError, WorkerError, assemble_turn, dialects

TURNS = os.path.join(_env.PACKAGE_DIR, "..", "js", "test", "testdata", "turns.json")
#: The JavaScript client's copy of the Go dialect table, which a Go test (dialects/) keeps equal to it.
JS_TABLE = os.path.join(_env.PACKAGE_DIR, "..", "js", "src", "dialects.js")


def call(c):
    """A fixture call as the runtime holds it: a result, a WorkerError (the worker's error reply),
    or a client-side error (a timeout: no code, no assembly)."""
    if c.get("assembly"):
        return {"id": c["id"], "name": c["name"], "result": {"assembly": c["assembly"]}}
    err = WorkerError(c["error"], "r-" + c["id"]) if c["error"].get("code") else TimeoutError(c["error"]["message"])
    return {"id": c["id"], "name": c["name"], "error": err}


class TurnTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(TURNS, encoding="utf-8") as f:
            cls.cases = json.load(f)

    def test_fixtures_cover_every_dialect(self):
        self.assertEqual(sorted({c["dialect"] for c in self.cases}), sorted(DIALECTS))
        for d in DIALECTS:
            mine = [c for c in self.cases if c["dialect"] == d]
            self.assertTrue(any(len(c["calls"]) == 3 for c in mine), d)
            self.assertTrue(any(x.get("error", {}).get("assembly") for c in mine for x in c["calls"]), d)
            self.assertTrue(any(x.get("error") and not x["error"].get("assembly") for c in mine for x in c["calls"]), d)

    def test_same_messages_as_go(self):
        for c in self.cases:
            with self.subTest(c["name"]):
                self.assertEqual(assemble_turn([call(x) for x in c["calls"]], locale=c.get("locale"), limits=c.get("limits")), c["turn"])

    def test_every_call_answered_once_in_call_order(self):
        # The documented rule, on the fixtures' own structure (not only equality with Go).
        for c in self.cases:
            if c.get("limits"):
                continue  # test_over_the_limits
            turn = assemble_turn([call(x) for x in c["calls"]])
            ids = [x["id"] for x in c["calls"]]
            failed = [x["id"] for x in c["calls"] if x.get("error")]
            d = c["dialect"]
            with self.subTest(c["name"]):
                if d == "openai-chat":
                    tools = [m for m in turn if m["role"] == "tool"]
                    self.assertEqual([m["tool_call_id"] for m in tools], ids)
                    self.assertEqual(turn[: len(tools)], tools, "a follow-up sits between tool messages")
                    self.assertTrue(all(m["role"] == "user" for m in turn[len(tools):]))
                elif d == "openai-responses":
                    self.assertEqual([(m["type"], m["call_id"]) for m in turn], [("function_call_output", i) for i in ids])
                elif d == "anthropic":
                    self.assertEqual(len(turn), 1)
                    self.assertEqual([b["tool_use_id"] for b in turn[0]["content"]], ids)
                    self.assertEqual([b["tool_use_id"] for b in turn[0]["content"] if b.get("is_error")], failed)
                elif d == "gemini":
                    media = [x["assembly"]["followUp"][0] for x in c["calls"] if (x.get("assembly") or {}).get("followUp")]
                    self.assertEqual(len(turn), 1 + len(media))
                    self.assertEqual([(p["functionResponse"]["id"], p["functionResponse"]["name"]) for p in turn[0]["parts"]],
                                     [(x["id"], x["name"]) for x in c["calls"]])
                    self.assertEqual(turn[1:], media)
                elif d == "bedrock-converse":
                    self.assertEqual(len(turn), 1)
                    blocks = [b["toolResult"] for b in turn[0]["content"]]
                    self.assertEqual([b["toolUseId"] for b in blocks], ids)
                    self.assertEqual([b["status"] for b in blocks], ["error" if x.get("error") else "success" for x in c["calls"]])
                    self.assertTrue(all(b["content"] for b in blocks))
                elif d in ("langchain", "langchain-js"):
                    self.assertEqual([(m["role"], m["tool_call_id"], m["name"]) for m in turn],
                                     [("tool", x["id"], x["name"]) for x in c["calls"]])
                else:
                    self.fail(f"unknown dialect {d}")

    def test_table_is_the_go_table(self):
        if not os.path.exists(JS_TABLE):
            self.skipTest(f"{JS_TABLE} is not there: the Go dialect table has no client copy yet")
        with open(JS_TABLE, encoding="utf-8") as f:
            rows = re.findall(r'^\s*"([a-z-]+)": (\{.*\}),?$', f.read(), re.M)
        go = {name: json.loads(row) for name, row in rows}
        self.assertEqual(list(go), list(dialects.TABLE))
        for name, row in go.items():
            with self.subTest(name):
                mine = dialects.TABLE[name]
                self.assertEqual(row["text"], mine["text"])
                self.assertEqual(row["turn"]["answer"], mine["turn"]["answer"])
                self.assertEqual(row["turn"].get("group"), mine["turn"].get("group"))
                self.assertEqual(row["turn"].get("note"), mine["turn"].get("note"))
                self.assertEqual(row["turn"].get("documentName"), mine["turn"].get("documentName"))

    def test_over_the_limits(self):
        # The media past the limits is replaced by the note (dropped inside a Gemini function
        # response); the first image stays.
        limited = [c for c in self.cases if c.get("limits")]
        self.assertEqual(sorted({c["dialect"] for c in limited}), sorted(DIALECTS))
        for c in limited:
            with self.subTest(c["name"]):
                out = json.dumps(assemble_turn([call(x) for x in c["calls"]], locale=c["locale"], limits=c["limits"]))
                free = json.dumps(assemble_turn([call(x) for x in c["calls"]]))
                self.assertEqual(free.count("iVBORw0KGgo"), 2)
                self.assertEqual(out.count("iVBORw0KGgo"), 1)
                self.assertNotIn("JVBERi0x", out)

    def test_refused(self):
        g = {"assembly": {"dialect": "gemini", "toolContent": {"response": {"output": "x"}}}}
        for calls, opts, want in [
            ([], {}, "no calls"),
            ([{"result": g}], {}, "no id"),
            ([{"id": "c1", "result": g}], {}, "no name"),
            ([{"id": "c1", "name": "f", "result": {"assembly": {"dialect": "gemini", "toolContent": "x"}}}], {}, "not an object"),
            ([{"id": "c1", "name": "f", "result": g}], {"dialect": "langchain"}, "dialect gemini, the turn langchain"),
            ([{"id": "c1", "error": ValueError("x")}], {"dialect": "cobol"}, "not supported"),
            ([{"id": "c1"}], {}, "neither result nor error"),
            ([{"id": "c1", "result": {"content": "x"}}], {}, 'asked for media "result"'),
        ]:
            with self.subTest(want):
                with self.assertRaisesRegex(TurnError, want):
                    assemble_turn(calls, **opts)

    def test_failed_calls_only_take_the_dialect_of_the_worker_errors(self):
        err = WorkerError({"code": "image_not_found", "message": "图片不存在或已过期",
                           "assembly": {"dialect": "bedrock-converse", "toolContent": [{"text": "图片不存在或已过期"}]}}, "r1")
        self.assertEqual(assemble_turn([{"id": "t1", "error": err}, {"id": "t2", "error": TimeoutError("")}]), [{
            "role": "user", "content": [
                {"toolResult": {"toolUseId": "t1", "content": [{"text": "图片不存在或已过期"}], "status": "error"}},
                {"toolResult": {"toolUseId": "t2", "content": [{"text": "(empty)"}], "status": "error"}},
            ],
        }])


if __name__ == "__main__":
    unittest.main()
