"""Callers using the Python client (clients/python) through a stream-leader kill, for
integration/pyfailover_test.go: 8 callers on one connection to NATS_SERVERS (comma-separated, tried
in order: the first is the server about to be killed), half storing their requests in JetStream,
half sending plain requests the worker stores, each calling tool.get_artifact in a loop with a 30 s
timeout. It prints "ready" after 40 calls; when stdin closes it lets each caller finish its call and
prints {"calls":n,"failed":[...],"reconnects":n,"nats":"...","timings":[[start,end],...]} (each call
that succeeded, in milliseconds since the epoch) as its last line. The partition test
(integration/partition_test.go) runs it too."""

import asyncio
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python", "tests"))
import _env  # noqa: E402  (the package from src/; nats-py as installed, else the vendored copy)
import nats  # noqa: E402

from artifact_worker_client import WorkerClient  # noqa: E402


async def main() -> None:
    loop = asyncio.get_running_loop()
    nc = await nats.connect(servers=os.environ["NATS_SERVERS"].split(","), dont_randomize=True,
                            max_reconnect_attempts=-1, reconnect_time_wait=0.2, error_cb=_env.ignore)
    clients = [WorkerClient(nc, transport="jetstream"), WorkerClient(nc, transport="request")]
    stop = asyncio.Event()
    stdin = loop.run_in_executor(None, sys.stdin.read)
    stdin.add_done_callback(lambda _: stop.set())
    calls, failed, ready, timings = 0, [], False, []

    async def caller(p: int) -> None:
        nonlocal calls, ready
        i = 0
        while not stop.is_set():
            start = time.time() * 1000
            try:
                res = await clients[p % 2].get_artifact(request_id=f"{os.environ['PREFIX']}-{p}-{i}", ref="artifact:doc",
                                                        service_id="text-model", timeout=30)
                if res.get("content") != "integration test artifact":
                    failed.append(f"wrong result: {json.dumps(res)[:200]}")
                else:
                    timings.append([start, time.time() * 1000])
            except Exception as err:
                failed.append(f"{type(err).__name__}: {err} (retry_safe {getattr(err, 'retry_safe', None)})")
            calls += 1
            i += 1
            if calls >= 40 and not ready:
                ready = True
                print("ready", flush=True)
            await asyncio.sleep(0.02)

    await asyncio.gather(*(caller(p) for p in range(8)))
    print(json.dumps({"calls": calls, "failed": failed, "reconnects": nc.stats["reconnects"], "nats": _env.NATS_FROM, "timings": timings}), flush=True)
    await nc.close()


asyncio.run(main())
