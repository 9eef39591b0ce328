"""The client against a real worker (integration/python_test.go starts one and sets NATS_URL), on
both transports: requests stored in JetStream by the client, and plain requests the worker stores."""

import asyncio
import base64
import hashlib
import json
import os
import re
import sys
import time
import urllib.request
import unittest
import unittest.mock
from datetime import datetime, timezone

import _env
import nats
import nats.js.errors

from artifact_worker_client import (
    CLAIM_CHECK_BUCKET,
    HEADER_DEADLINE,
    HEADER_SCOPE,
    STREAM,
    ClaimCheckError,
    DuplicateRequestError,
    ExpiredError,
    StoreError,
    Subjects,
    WorkerClient,
    WorkerError,
    WorkerTimeoutError,
    assemble_turn,
)

from artifact_worker_client import client as client_module

TRANSPORTS = ("jetstream", "request")


def parse_deadline(value):
    """An RFC 3339 UTC time with milliseconds, as the client writes it."""
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)


@_env.needs_worker
class ClientTest(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        _env.quiet_loop()
        self.nc = await nats.connect(_env.NATS_URL)
        self.js = self.nc.jetstream()
        self.clients = {t: WorkerClient(self.nc, transport=t) for t in TRANSPORTS}
        await self.clients["jetstream"].claims()  # the bucket, for a test that runs before any worker made it
        self.claims_before = await _env.live_claims(self.js)

    async def asyncTearDown(self):
        await self.nc.close()

    async def assert_no_claims_left(self):
        await _env.wait_no_new_claims(self, self.js, self.claims_before)

    async def test_text_file_written_then_read_byte_for_byte(self):
        text = "# Notes\n你好 🌍\n"
        for transport, client in self.clients.items():
            with self.subTest(transport):
                ws = _env.random_id("py")
                written = await client.file_written(workspace_id=ws, path="notes.md", mime_type="text/markdown", agent_id="py", content=text)
                self.assertTrue(written["ok"])
                self.assertTrue(written["artifactId"].startswith(f"ws:{ws}:"), written)
                res = await client.get_artifact({"ref": written["artifactId"]}, service_id="deepseek-chat")
                self.assertEqual(res["contentType"], "text")
                self.assertEqual(res["content"], text)
                self.assertEqual(res["assembly"], {"dialect": "openai-chat", "toolContent": text})
                meta = await client.metadata(id=written["artifactId"])
                self.assertEqual(meta["type"], "text/markdown")
                self.assertEqual([m["agentId"] for m in meta["meta"]["modifiedBy"]], ["py"])

    async def test_large_image_travels_by_claim_check_both_ways(self):
        # 700 x 1500 px: within what gpt-4o takes as it is, so it is sent unchanged.
        png = _env.noisy_png(700, 1500)
        b64 = base64.b64encode(png).decode()
        self.assertGreater(len(b64), 3 * self.nc.max_payload, "the request must go by claim check")
        for transport, client in self.clients.items():
            with self.subTest(transport):
                written = await client.file_written(workspace_id=_env.random_id("py"), path="big.png", mime_type="image/png", content_base64=b64)
                res = await client.get_artifact(ref=written["artifactId"], service_id="gpt-4o", media="result")
                self.assertEqual(res["routing"], "image_url")
                self.assertEqual(res["metadata"]["size"], len(png))
                self.assertNotIn("assembly", res, "media result still carried the assembly")
                self.assertTrue(res["imageUrl"]["image_url"]["url"] == "data:image/png;base64," + b64, "the image did not round-trip")
                self.assertNotIn(b64[:100], res["content"], "base64 in the text content")
                # The default asks for the assembly only: the image once, in the follow-up message.
                asm = await client.get_artifact(ref=written["artifactId"], service_id="gpt-4o")
                self.assertNotIn("imageUrl", asm)
                tool, follow_up = assemble_turn([{"id": "call_1", "result": asm}])
                self.assertEqual(tool["role"], "tool")
                self.assertEqual(follow_up["content"][1]["image_url"]["url"], "data:image/png;base64," + b64)
                await self.assert_no_claims_left()

    async def test_scope_answers_another_workspace_as_not_found(self):
        mine, theirs = _env.random_id("pymine"), _env.random_id("pytheirs")
        own = await self.clients["jetstream"].file_written(workspace_id=mine, path="plan.md", mime_type="text/markdown", content="# " + mine)
        other = await self.clients["jetstream"].file_written(workspace_id=theirs, path="plan.md", mime_type="text/markdown", content="# " + theirs)
        for transport in TRANSPORTS:
            with self.subTest(transport):
                scoped = WorkerClient(self.nc, transport=transport, scope=f"ws:{mine}")
                res = await scoped.get_artifact(ref=own["artifactId"], service_id="deepseek-chat")
                self.assertEqual(res["content"], "# " + mine)
                with self.assertRaises(WorkerError) as cm:
                    await scoped.get_artifact(ref=other["artifactId"], service_id="deepseek-chat")
                self.assertEqual((cm.exception.code, cm.exception.ref), ("artifact_not_found", other["artifactId"]))
                # A call's own header wins over the client's scope.
                res = await scoped.get_artifact(ref=other["artifactId"], service_id="deepseek-chat", headers={HEADER_SCOPE: f"ws:{theirs}"})
                self.assertEqual(res["content"], "# " + theirs)

    async def test_tenant_option_uses_its_subjects_bucket_and_inbox(self):
        with self.assertRaises(ValueError):
            WorkerClient(self.nc, tenant="Acme.x")
        with self.assertRaises(ValueError):  # a connection without the tenant's inbox prefix
            WorkerClient(self.nc, tenant="pyacme")
        # integration/python_test.go starts the worker with TENANTS=pyacme.
        for transport in TRANSPORTS:
            with self.subTest(transport):
                acme = await WorkerClient.connect(_env.NATS_URL, tenant="pyacme", transport=transport)
                try:
                    # Over max_payload: the request goes through WORKER_CLAIMS_pyacme, where the worker looks.
                    big = "# tenant\n" + "y" * (3 << 20)
                    own = await acme.file_written(workspace_id=_env.random_id("pytenant"), path="plan.md", mime_type="text/markdown", content=big)
                    self.assertEqual((await acme.metadata(id=own["artifactId"]))["size"], len(big))
                    with self.assertRaises(WorkerError) as cm:
                        await self.clients[transport].get_artifact(ref=own["artifactId"], service_id="deepseek-chat")
                    self.assertEqual((cm.exception.code, cm.exception.ref), ("artifact_not_found", own["artifactId"]))
                finally:
                    await acme.close()

    async def test_error_reply_is_a_worker_error_with_its_tool_result(self):
        for transport, client in self.clients.items():
            with self.subTest(transport):
                ref = "artifact:" + _env.random_id("missing")
                with self.assertRaises(WorkerError) as cm:
                    await client.get_artifact(ref=ref, service_id="gpt-4o")
                err = cm.exception
                self.assertEqual((err.code, err.ref, err.retryable, err.retry_safe), ("artifact_not_found", ref, False, False))
                self.assertEqual(err.message, "工件不存在或已被删除")
                self.assertEqual(err.subject, Subjects.GET_ARTIFACT)
                self.assertTrue(err.request_id.startswith("py-"))
                self.assertEqual(err.assembly, {
                    "dialect": "openai-chat",
                    "toolContent": json.dumps({"error": "artifact_not_found", "ref": ref, "message": "工件不存在或已被删除"},
                                              ensure_ascii=False, separators=(",", ":")),
                })
                # A bad field is named.
                with self.assertRaises(WorkerError) as cm:
                    await client.get_artifact(ref=ref, locale="fr")
                self.assertEqual((cm.exception.code, cm.exception.field), ("invalid_request", "locale"))

    async def test_repeated_request_id_is_detected_at_once(self):
        big = "x" * (self.nc.max_payload + 1)  # goes by claim check: the request_id is only in Nats-Msg-Id
        for (transport, client), content in [(t, c) for t in self.clients.items() for c in ("a", big)]:
            with self.subTest(transport, size=len(content)):
                req = {"request_id": _env.random_id("dup"), "workspace_id": _env.random_id("py"), "path": "a.txt",
                       "mime_type": "text/plain", "content": content}
                await client.file_written(req)
                start = time.monotonic()
                with self.assertRaises(DuplicateRequestError) as cm:
                    await client.file_written(req)
                self.assertLess(time.monotonic() - start, 5, "duplicate not reported at once")
                err = cm.exception
                self.assertEqual((err.code, err.request_id, err.retry_safe), ("duplicate_request", req["request_id"], False))
                self.assertIn("use a new request_id", str(err))
                await self.assert_no_claims_left()  # the duplicate's claim, never read, is gone too

    async def test_a_claimed_reply_is_deleted_once_read(self):
        client = self.clients["jetstream"]
        bucket = await client.claims()
        name = "claim_" + _env.random_id("t").replace("-", "")
        body = b"x" * 300_000  # several chunks
        await bucket.put(name, body)

        class Msg:
            headers = {"Claim-Check": name}
            data = b""

        self.assertEqual(await client.resolve(Msg()), body)
        with self.assertRaises(nats.js.errors.ObjectNotFoundError):
            await bucket.get_info(name, show_deleted=True)  # no delete marker either
        with self.assertRaisesRegex(ClaimCheckError, "no longer in WORKER_CLAIMS"):
            await client.resolve(Msg())

    async def test_preprocess_then_get_history_image(self):
        png = _env.noisy_png(8, 6)
        b64 = base64.b64encode(png).decode()
        for transport, client in self.clients.items():
            with self.subTest(transport):
                out = await client.preprocess(messages=[
                    ["human", [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64," + b64}}]],
                    ["ai", "a picture"],
                    ["human", "what was in it?"],
                ])
                self.assertEqual(out["stats"]["images_replaced"], 1)
                placeholder = out["messages"][0][1][1]["text"]
                self.assertRegex(placeholder, r"^\[Picture:history_[0-9a-f]{32}\]$")
                self.assertNotIn(b64, json.dumps(out))
                image_md5 = placeholder[len("[Picture:"):-1]
                res = await client.get_history_image(image_md5=image_md5, dialect="anthropic", service_id="claude-sonnet-4")
                self.assertNotIn("content", res)  # media defaults to the assembly only
                self.assertEqual(res["assembly"]["toolContent"], [
                    {"type": "text", "text": placeholder},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64}},
                ])
                turn = assemble_turn([{"id": "toolu_1", "name": "get_history_image", "result": res}])
                self.assertEqual(turn[0]["content"][0]["tool_use_id"], "toolu_1")
                with self.assertRaises(WorkerError) as cm:
                    await client.get_history_image(image_md5="history_nothex")
                self.assertEqual(cm.exception.code, "invalid_image_id")

    async def test_every_request_carries_its_deadline_and_the_callers_headers(self):
        timeout = 7.5
        for transport, client in self.clients.items():
            with self.subTest(transport):
                rid = _env.random_id("deadline")
                before = datetime.now(timezone.utc)
                trace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                with self.assertRaises(WorkerError):
                    await client.metadata(request_id=rid, id="artifact:" + rid, timeout=timeout,
                                          headers={"traceparent": trace, "Reply-To": "not.mine", HEADER_DEADLINE: "never"})
                after = datetime.now(timezone.utc)
                stored = await self.js.get_last_msg(STREAM, Subjects.METADATA)
                self.assertEqual(stored.headers.get("Nats-Msg-Id"), rid)
                self.assertEqual(stored.headers.get("traceparent"), trace)  # a caller's header goes along
                self.assertTrue(stored.headers["Reply-To"].startswith("_INBOX."), stored.headers)  # the client's own win
                deadline = parse_deadline(stored.headers[HEADER_DEADLINE])
                self.assertLessEqual(before.timestamp() + timeout - 0.002, deadline.timestamp())
                self.assertLessEqual(deadline.timestamp(), after.timestamp() + timeout)

    async def test_storing_is_retried_until_a_stream_takes_it(self):
        # No stream captures the subject at first (as while a stream leader is elected): the client
        # keeps trying under the same request_id until one does.
        name = _env.random_id("PYTEST").upper().replace("-", "_")
        subject = "pytest." + name.lower()
        client = self.clients["jetstream"]
        call = asyncio.ensure_future(client.call(subject, {"ref": "x"}, timeout=6))
        await asyncio.sleep(1)
        await self.js.add_stream(name=name, subjects=[subject])
        try:
            with self.assertRaises(WorkerTimeoutError) as cm:
                await call
            err = cm.exception
            self.assertEqual((err.stage, err.stored, err.stream_seq, err.retry_safe), ("reply", True, 1, False))
            self.assertGreater(err.attempts, 1)
            self.assertIn(f"stored in {STREAM} (seq 1) but no reply within 6s", str(err))
            self.assertIsInstance(err, TimeoutError)
            msg = await self.js.get_msg(name, 1)
            self.assertEqual(msg.headers["Nats-Msg-Id"], err.request_id)
            self.assertEqual(json.loads(msg.data)["request_id"], err.request_id)
        finally:
            await self.js.delete_stream(name)

    async def test_store_timeout_says_a_retry_is_safe(self):
        subject = "pytest.nostream." + _env.random_id("s")
        start = time.monotonic()
        with self.assertRaises(WorkerTimeoutError) as cm:
            await self.clients["jetstream"].call(subject, {"ref": "x"}, timeout=1.5)
        self.assertLess(time.monotonic() - start, 1.5 + 2, "the deadline was not kept")
        err = cm.exception
        self.assertEqual((err.stage, err.stored, err.retry_safe), ("store", False, True))
        self.assertGreater(err.attempts, 2)
        self.assertIn("no stream answered", str(err))
        self.assertIn("Retrying with the same request_id is safe", str(err))
        # The plain path: nobody serves artifact-worker.<subject> (no responders each time), so
        # nothing is stored; a claim-checked body is sent again as it is, and deleted at the end.
        with self.assertRaises(WorkerTimeoutError) as cm:
            await self.clients["request"].call(subject, {"ref": "x" * self.nc.max_payload}, timeout=1.5)
        err = cm.exception
        self.assertEqual((err.stage, err.stored, err.retry_safe), ("store", False, True))
        self.assertGreater(err.attempts, 2)
        self.assertIn("no worker serves artifact-worker." + subject, str(err))
        await self.assert_no_claims_left()

    async def test_a_duplicate_after_a_lost_acknowledgement_waits_for_the_reply(self):
        # A stand-in for JetStream: the first attempt is refused as unavailable (a leader failover),
        # the second is acknowledged as a duplicate (the first was stored after all), and the reply
        # of the stored request comes to the call's inbox.
        subject = "pytest.ack." + _env.random_id("d")
        seen = []

        async def jetstream(msg):
            seen.append(dict(msg.headers))
            if len(seen) == 1:
                await msg.respond(json.dumps({"error": {"code": 503, "err_code": 10008, "description": "no leader"}}).encode())
                return
            await msg.respond(json.dumps({"stream": STREAM, "seq": 9, "duplicate": True}).encode())
            rid = msg.headers["Nats-Msg-Id"]
            await self.nc.publish(msg.headers["Reply-To"], json.dumps({"request_id": rid, "ok": True, "result": {"n": 1}}).encode())

        sub = await self.nc.subscribe(subject, cb=jetstream)
        try:
            self.assertEqual(await self.clients["jetstream"].call(subject, {"request_id": "r-lost-ack"}, timeout=30), {"n": 1})
        finally:
            await sub.unsubscribe()
        self.assertEqual(len(seen), 2)
        self.assertEqual([h["Nats-Msg-Id"] for h in seen], ["r-lost-ack", "r-lost-ack"])
        self.assertEqual(seen[0]["Reply-To"], seen[1]["Reply-To"])
        self.assertEqual(seen[0][HEADER_DEADLINE], seen[1][HEADER_DEADLINE])

    async def _first_reply_lost(self, transport, request_id, lose):
        """A stand-in for the worker (and for JetStream on the jetstream transport) on a new
        subject: it records each request's headers in the list it returns, and answers every
        request but the first, for which it awaits lose() instead (the reply is lost); with the
        subject it listens on and its subscription."""
        subject = "pytest.lost." + _env.random_id("l")
        seen = []

        async def stand_in(msg):
            seen.append(dict(msg.headers or {}))
            if transport == "jetstream":
                await msg.respond(json.dumps({"stream": "FAKE", "seq": len(seen)}).encode())
            if len(seen) == 1:
                await lose()
                return
            reply_to = msg.headers.get("Reply-To") or msg.reply
            await self.nc.publish(reply_to, json.dumps({"request_id": request_id, "ok": True, "result": {"n": len(seen)}}).encode())

        listen = subject if transport == "jetstream" else "artifact-worker." + subject
        sub = await self.nc.subscribe(listen, cb=stand_in)
        return seen, subject, sub

    async def test_a_reply_lost_in_a_reconnect_is_asked_for_again(self):
        # A stand-in worker on the stream's consumer answers (acks) the first request, then the
        # caller's connection drops (its server failing over) before the reply: as the consumer's
        # ack floor shows the request answered, the client asks again at once (not AFTER_RECONNECT
        # later) with a new Nats-Msg-Id and gets the reply. On the plain path (no sequence learnt)
        # the consumer check is stood in for: "nothing waits".
        proxy = _env.Proxy()
        nc = await nats.connect(await proxy.start(), reconnect_time_wait=0.1, max_reconnect_attempts=-1, error_cb=_env.ignore)
        js = self.nc.jetstream()
        subject, stream, consumer = await self._stand_in_stream("again")
        seen = []
        sub = await js.pull_subscribe_bind(consumer, stream=stream)
        stop = asyncio.Event()

        async def work():
            while not stop.is_set():
                try:
                    for m in await sub.fetch(1, timeout=0.5):
                        seen.append(dict(m.headers))
                        await m.ack_sync()
                        if len(seen) == 1:
                            proxy.drop()  # the reply is lost in the reconnect
                        else:
                            await self.nc.publish(m.headers["Reply-To"], json.dumps({"request_id": "r-again", "ok": True, "result": {"n": len(seen)}}).encode())
                except nats.errors.TimeoutError:
                    pass

        worker = asyncio.create_task(work())
        try:
            connections = proxy.connections
            start = time.monotonic()
            res = await WorkerClient(nc).call(subject, {"request_id": "r-again"}, timeout=30)
            self.assertEqual(res, {"n": 2})
            self.assertLess(time.monotonic() - start, client_module.REPLY_QUIET, "asked again when overdue, not after the reconnect")
            self.assertGreater(proxy.connections, connections, "the client did not reconnect")
            self.assertEqual([h["Nats-Msg-Id"] for h in seen], ["r-again", "r-again.again-1"])
            self.assertEqual(seen[0][HEADER_DEADLINE], seen[1][HEADER_DEADLINE])

            async def queue_empty(_self):
                return True

            async def drop():
                await asyncio.sleep(0.3)
                proxy.drop()

            seen, subject, lost = await self._first_reply_lost("request", "r-again", drop)
            with unittest.mock.patch.object(client_module._Call, "_queue_empty", queue_empty):
                try:
                    res = await WorkerClient(nc, transport="request").call(subject, {"request_id": "r-again"}, timeout=30)
                finally:
                    await lost.unsubscribe()
            self.assertEqual(res, {"n": 2})
            self.assertEqual([h["Nats-Msg-Id"] for h in seen], ["r-again", "r-again.again-1"])
        finally:
            stop.set()
            await worker
            await sub.unsubscribe()
            await js.delete_stream(stream)
            await nc.close()
            await proxy.close()

    async def _stand_in_stream(self, prefix):
        """A stream of its own capturing a fresh subject, with the worker's consumer of that
        subject (the client reads its delivered sequence before asking again for an overdue
        reply). Returns the subject, the stream and the consumer's name; the caller deletes the
        stream."""
        js = self.nc.jetstream()
        subject = f"pytest.{prefix}." + _env.random_id("s")
        stream = "PYTEST_" + _env.random_id(prefix).upper().replace("-", "_")
        await js.add_stream(name=stream, subjects=[subject])
        consumer = "worker_" + subject.replace(".", "_")
        await js.add_consumer(stream, durable_name=consumer, ack_policy="explicit")
        return subject, stream, consumer

    async def test_an_overdue_reply_is_asked_for_again(self):
        # A stand-in worker on the stream's consumer: its first reply is lost on its way (between
        # two servers: the caller's connection never hears of it). Once the reply is overdue
        # (REPLY_QUIET) and the consumer has delivered the request, the client asks again with a
        # new Nats-Msg-Id and gets the second reply.
        js = self.nc.jetstream()
        subject, stream, consumer = await self._stand_in_stream("overdue")
        seen = []

        async def stand_in(msg):
            seen.append(msg.headers["Nats-Msg-Id"])
            if len(seen) > 1:
                await self.nc.publish(msg.headers["Reply-To"], json.dumps({"request_id": "r-overdue", "ok": True, "result": {"n": len(seen)}}).encode())
            await msg.ack()

        sub = await js.pull_subscribe_bind(consumer, stream=stream)
        stop = asyncio.Event()

        async def work():
            while not stop.is_set():
                try:
                    for m in await sub.fetch(1, timeout=0.5):
                        await stand_in(m)
                except nats.errors.TimeoutError:
                    pass

        worker = asyncio.create_task(work())
        try:
            res = await WorkerClient(self.nc).call(subject, {"request_id": "r-overdue"}, timeout=30)
        finally:
            stop.set()
            await worker
            await sub.unsubscribe()
            await js.delete_stream(stream)
        self.assertEqual(res, {"n": 2})
        self.assertEqual(seen, ["r-overdue", "r-overdue.again-1"])

    async def test_a_request_not_answered_is_not_asked_again_when_its_reply_is_overdue(self):
        # A worker takes the request and never finishes it (one queued behind a backlog is the
        # same): its reply is overdue (REPLY_QUIET), but asking again would only add work, so the
        # call times out with its one request stored.
        js = self.nc.jetstream()
        subject, stream, consumer = await self._stand_in_stream("working")
        sub = await js.pull_subscribe_bind(consumer, stream=stream)
        taken = asyncio.create_task(sub.fetch(1, timeout=5))
        try:
            call = asyncio.create_task(WorkerClient(self.nc).call(subject, {"request_id": "r-queued"}, timeout=client_module.REPLY_QUIET + 2))
            self.assertEqual(len(await taken), 1, "the stand-in worker took no request")
            with self.assertRaises(WorkerTimeoutError):
                await call
            self.assertEqual((await js.stream_info(stream)).state.messages, 1, "a request not answered was asked again")
        finally:
            await sub.unsubscribe()
            await js.delete_stream(stream)

    @unittest.skipUnless(os.environ.get("WORKER_HTTP"), "WORKER_HTTP is not set")
    async def test_a_reply_lost_as_the_connection_moved_is_asked_for_while_the_ack_floor_is_held(self):
        # One slow request holds the worker's consumer's ack floor (it runs on another worker, one
        # cut off from its cluster, for the whole test: its running marker in WORKER_REPLIES is
        # written again every second, as that worker's heartbeat would; the worker's delivery of it
        # waits for its reply). A call's reply is sent while the caller's connection is down: after
        # the reconnect the client asks again AFTER_RECONNECT later at the latest, without waiting
        # for the floor, and the worker answers the ask from the recorded reply: the request ran
        # once.
        proxy = _env.Proxy()
        nc = await nats.connect(await proxy.start(), reconnect_time_wait=0.05, max_reconnect_attempts=-1, error_cb=_env.ignore)
        subject = Subjects.FILE_WRITTEN
        ws = _env.random_id("pyfloor")

        def request(rid, path):
            return json.dumps({"request_id": rid, "workspace_id": ws, "path": path, "mime_type": "text/plain", "content": rid}).encode()

        async def consumer():
            return await self.js.consumer_info(STREAM, "worker_" + subject.replace(".", "_"))

        slow_id = _env.random_id("slow")
        slow = request(slow_id, "slow.txt")
        slow_key = _reply_key(subject, slow_id, slow)
        await self._mark_running(slow_key)

        async def beat():
            while True:
                await asyncio.sleep(1)
                await self._mark_running(slow_key)

        beating = asyncio.create_task(beat())
        try:
            slow_seq = (await self.js.publish(subject, slow, headers={"Nats-Msg-Id": slow_id})).seq
            # The caller's request: held by a marker too until the caller's connection is down, so
            # that its reply is sent while the connection moves.
            lost_id = _env.random_id("lost")
            lost = request(lost_id, "lost.txt")
            lost_key = _reply_key(subject, lost_id, lost)
            await self._mark_running(lost_key)
            before = await _outcomes(subject)
            call = asyncio.create_task(WorkerClient(nc).call_raw(subject, lost, request_id=lost_id, timeout=20))

            async def both_with_the_worker():
                c = await consumer()
                return c.num_ack_pending == 2 and c.num_pending == 0

            await _until(self, "both requests with the worker", both_with_the_worker)
            await proxy.close_gate()
            await _until(self, "the caller's connection down", lambda: not nc.is_connected)
            reconnects = nc.stats["reconnects"]
            await self._mark_running(lost_key, run=False)

            async def lost_acked():
                return (await consumer()).num_ack_pending == 1

            await _until(self, "the request run and acked, its reply lost", lost_acked)
            await proxy.open_gate()
            await _until(self, "the caller reconnected", lambda: nc.stats["reconnects"] > reconnects)
            reconnected = time.monotonic()
            reply = json.loads(await call)
            print(f"answered {time.monotonic() - reconnected:.2f} s after the reconnect", file=sys.stderr)
            self.assertTrue(reply["ok"], reply)
            self.assertEqual(reply["request_id"], lost_id)
            floor = (await consumer()).ack_floor.stream_seq
            self.assertLess(floor, slow_seq, "the ack floor passed the slow request: the test did not hold it")
            after = await _outcomes(subject)
            self.assertEqual(after.get("ok", 0) - before.get("ok", 0), 1, "executions of the request (outcome ok)")
            self.assertEqual(after.get("replayed", 0) - before.get("replayed", 0), 1, "asks answered from the recorded reply (outcome replayed)")
        finally:
            beating.cancel()
            await self._mark_running(slow_key, run=False)  # then the worker runs it
            await nc.close()
            await proxy.close()

    async def _mark_running(self, key, run=True):
        """Marks the request of key as running on another worker (the marker a worker writes before
        it runs a request, and again with each heartbeat while it runs), or, with run False, takes
        the marker away as when its owner is gone: the worker's delivery of that request waits for
        the owner's reply until then, and then runs it."""
        if run:
            await self.js.publish("$KV.WORKER_REPLIES." + key, b"running 0 1")
        else:
            await self.js.publish("$KV.WORKER_REPLIES." + key, b"", headers={"KV-Operation": "DEL"})

    @unittest.skipUnless(os.environ.get("NATS_URL_CUT_OFF"), "NATS_URL_CUT_OFF is not set")
    async def test_a_client_on_a_server_where_jetstream_goes_unanswered_moves_to_another(self):
        # NATS_URL_CUT_OFF: a server without the worker's streams (integration/python_test.go starts
        # one), standing in for one cut off from its cluster: the connection is up, every attempt
        # at storing goes unanswered (no responders). After switch_after the client reconnects to
        # the next server, the worker's, and is answered there; with switch_after negative it stays
        # and the call times out storing.
        servers = [os.environ["NATS_URL_CUT_OFF"], _env.NATS_URL.split(",")[0]]
        c = await WorkerClient.connect(servers, dont_randomize=True, reconnect_time_wait=0.1, error_cb=_env.ignore, switch_after=1.0)
        try:
            start = time.monotonic()
            written = await c.file_written(workspace_id=_env.random_id("py"), path="moved.md", mime_type="text/markdown", content="moved", timeout=15)
            self.assertTrue(written["ok"])
            self.assertEqual(c.nc.stats["reconnects"], 1, "one reconnect, to the server where JetStream answers")
            self.assertGreaterEqual(time.monotonic() - start, 1.0, "moved before switch_after")
        finally:
            await c.close()
        stay = await WorkerClient.connect(servers, dont_randomize=True, reconnect_time_wait=0.1, error_cb=_env.ignore, switch_after=-1)
        try:
            with self.assertRaises(WorkerTimeoutError) as caught:
                await stay.file_written(workspace_id=_env.random_id("py"), path="stayed.md", mime_type="text/markdown", content="x", timeout=2.5)
            self.assertEqual(caught.exception.stage, "store")
            self.assertEqual(stay.nc.stats["reconnects"], 0)
        finally:
            await stay.close()

    async def test_an_overdue_reply_on_the_plain_path_is_asked_for_again(self):
        # The plain path does not learn its request's sequence: it asks again for an overdue
        # reply when nothing waits in the worker's consumer. The stand-in front here has no
        # consumer behind it, so the consumer check is stood in for too: first "requests wait"
        # (no re-ask), then "nothing waits".
        answers = iter([False, True])

        async def queue_empty(_self):
            return next(answers, True)

        async def nothing():
            pass

        seen, subject, sub = await self._first_reply_lost("request", "r-overdue", nothing)
        with unittest.mock.patch.object(client_module._Call, "_queue_empty", queue_empty):
            try:
                res = await WorkerClient(self.nc, transport="request").call(subject, {"request_id": "r-overdue"}, timeout=30)
            finally:
                await sub.unsubscribe()
        self.assertEqual(res, {"n": 2})
        self.assertEqual([h["Nats-Msg-Id"] for h in seen], ["r-overdue", "r-overdue.again-1"])

    async def test_an_expired_reply_is_an_expired_error(self):
        # The worker's answer to a request it found past its deadline (contracts/README.md, "Deadlines").
        subject = "pytest.expired." + _env.random_id("e")

        async def worker(msg):
            await msg.respond(json.dumps({"stream": "FAKE", "seq": 1}).encode())
            error = {"code": "expired", "message": "the request passed its deadline before a worker started it; it was not executed"}
            await self.nc.publish(msg.headers["Reply-To"], json.dumps({"request_id": msg.headers["Nats-Msg-Id"], "ok": False, "error": error}).encode())

        sub = await self.nc.subscribe(subject, cb=worker)
        try:
            with self.assertRaises(ExpiredError) as cm:
                await self.clients["jetstream"].call(subject, {"request_id": "r-late"}, timeout=30)
        finally:
            await sub.unsubscribe()
        err = cm.exception
        self.assertIsInstance(err, WorkerError)
        self.assertEqual((err.code, err.request_id, err.retryable, err.retry_safe), ("expired", "r-late", False, False))
        # retry_safe follows the worker's retryable (under a new request_id), never for expired.
        self.assertTrue(WorkerError({"code": "unavailable", "message": "m", "retryable": True}).retry_safe)
        self.assertFalse(ExpiredError({"code": "expired", "message": "m", "retryable": True}).retry_safe)

    async def test_a_refused_request_is_not_retried(self):
        subject = "pytest.refused." + _env.random_id("r")
        calls = []

        async def jetstream(msg):
            calls.append(msg)
            await msg.respond(json.dumps({"error": {"code": 400, "err_code": 10054, "description": "message size exceeds maximum allowed"}}).encode())

        sub = await self.nc.subscribe(subject, cb=jetstream)
        try:
            with self.assertRaises(StoreError) as cm:
                await self.clients["jetstream"].call(subject, {"ref": "x"}, timeout=30)
        finally:
            await sub.unsubscribe()
        self.assertEqual(len(calls), 1)
        self.assertFalse(cm.exception.retry_safe)
        self.assertIn("message size exceeds maximum allowed", str(cm.exception))

    async def test_a_full_claim_check_bucket_is_not_retried(self):
        # JetStream refuses a write to a stream at its byte limit with a 503 that is no outage.
        subject = "pytest.full." + _env.random_id("f")
        seen = []

        async def jetstream(msg):
            seen.append(msg)
            await msg.respond(json.dumps({"error": {"code": 503, "err_code": 10077, "description": "maximum bytes exceeded"}}).encode())

        sub = await self.nc.subscribe(subject, cb=jetstream)
        try:
            with self.assertRaises(StoreError) as cm:
                await self.clients["jetstream"].call(subject, {"ref": "x"}, timeout=30)
        finally:
            await sub.unsubscribe()
        self.assertEqual(len(seen), 1)
        self.assertIn("the claim-check bucket WORKER_CLAIMS is full", str(cm.exception))

    async def test_media_none_is_no_choice(self):
        client = self.clients["jetstream"]
        written = await client.file_written(workspace_id=_env.random_id("py"), path="dot.png", mime_type="image/png",
                                            content_base64=base64.b64encode(_env.noisy_png(4, 4)).decode())
        res = await client.get_artifact(ref=written["artifactId"], service_id="gpt-4o", media=None)
        self.assertNotIn("imageUrl", res)
        self.assertEqual(res["assembly"]["followUp"][0]["content"][1]["type"], "image_url")
        both = await client.get_artifact(ref=written["artifactId"], service_id="gpt-4o", media="both")
        self.assertIn("imageUrl", both)


def _reply_key(subject: str, request_id: str, body: bytes) -> str:
    """The key of a request's record and running marker in WORKER_REPLIES, as the worker computes it
    (messaging.ReplyKey) for a request without headers that change what it does."""
    h = hashlib.sha256()
    for field in (subject.encode(), request_id.encode(), body):
        h.update(f"{len(field)}:".encode())
        h.update(field)
    return h.hexdigest()


async def _outcomes(subject: str) -> dict:
    """The worker's deliveries of subject by outcome, from its metrics."""

    def read():
        with urllib.request.urlopen(f"http://{os.environ['WORKER_HTTP']}/metrics", timeout=5) as r:
            return r.read().decode()

    n: dict = {}
    for labels, v in re.findall(r"(?m)^worker_messages_total\{([^}]*)\} (\S+)$", await asyncio.to_thread(read)):
        outcome = re.search(r'outcome="([^"]*)"', labels)
        if f'subject="{subject}"' in labels and outcome:
            n[outcome.group(1)] = n.get(outcome.group(1), 0) + float(v)
    return n


async def _until(test, what, cond, timeout=15.0):
    """Waits until cond() (awaited when it is a coroutine) is true; fails test after timeout."""
    deadline = time.monotonic() + timeout
    while not ((await r) if asyncio.iscoroutine(r := cond()) else r):
        if time.monotonic() > deadline:
            test.fail(f"{what}: not within {timeout} s")
        await asyncio.sleep(0.02)


@_env.needs_worker
class ConnectTest(unittest.IsolatedAsyncioTestCase):
    async def test_connect_owns_and_closes_its_connection(self):
        _env.quiet_loop()
        # A comma-separated list, as NATS_URL is written for the worker (here the same server twice).
        worker = await WorkerClient.connect(f"{_env.NATS_URL}, {_env.NATS_URL}", timeout=20)
        self.assertEqual(worker.timeout, 20)
        async with worker:
            with self.assertRaises(WorkerError) as cm:
                await worker.metadata(id="artifact:" + _env.random_id("none"))
            self.assertEqual(cm.exception.code, "artifact_not_found")
        self.assertTrue(worker.nc.is_closed)
        nc = await nats.connect(_env.NATS_URL)
        try:
            async with WorkerClient(nc):
                pass
            self.assertFalse(nc.is_closed, "closed a connection it was given")
        finally:
            await nc.close()


if __name__ == "__main__":
    unittest.main()


class CutOffLeaderTest(unittest.TestCase):
    """A leader's answer counts as unanswered when it has not heard from a quorum of its group (as
    the Go client's quorum.CutOff): a leader cut off with its clients answers reads until it steps
    down."""

    def cluster(self, *active_seconds, offline=()):
        from nats.js.api import ClusterInfo

        replicas = [{"name": f"n{i + 2}", "active": int(a * 1e9), "offline": i in offline} for i, a in enumerate(active_seconds)]
        return ClusterInfo.from_response({"leader": "n1", "replicas": replicas})

    def test_cut_off(self):
        cut_off = client_module._cut_off
        self.assertFalse(cut_off(None), "a server outside a cluster gives no cluster info")
        self.assertFalse(cut_off(self.cluster()), "a group of one")
        self.assertFalse(cut_off(self.cluster(0.4, 0.5)), "both peers heard")
        self.assertFalse(cut_off(self.cluster(0.4, 5)), "one of two peers heard: a quorum of three")
        self.assertTrue(cut_off(self.cluster(5, 4)), "no peer heard")
        self.assertTrue(cut_off(self.cluster(0.2, 4, offline=(0,))), "no peer online")
        self.assertTrue(cut_off(self.cluster(0.2, 4, 5, 6)), "one of four peers heard")
        self.assertTrue(client_module._unanswered(client_module._CUT_OFF))
