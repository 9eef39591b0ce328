"""Load for the failover scenario (integration/python_cluster_test.go): requests through the client at
a steady rate, half on each transport, every tenth a workspace.file_written, while the Go test kills
the stream leader. Prints "answered N" as replies come, then one line "SUMMARY {json}".

    NATS_URL=nats://a:4222,nats://b:4222 python3 tests/load.py --requests 600 --rate 60

PY_LOAD_DONT_RANDOMIZE=1 connects to the servers in the order given.
"""

import argparse
import asyncio
import json
import os
import sys
import time

import _env
import nats

from artifact_worker_client import ClientError, WorkerClient

TRANSPORTS = ("jetstream", "request")


async def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--requests", type=int, default=600)
    p.add_argument("--rate", type=float, default=60, help="requests started per second")
    p.add_argument("--timeout", type=float, default=60, help="each call's timeout (seconds)")
    p.add_argument("--prefix", default="py-load")
    p.add_argument("--workspace", default="py-load")
    p.add_argument("--text", default="integration test artifact", help="the content of artifact:doc")
    args = p.parse_args()

    async def quiet(err):
        pass

    nc = await nats.connect(servers=_env.NATS_URL.split(","), max_reconnect_attempts=-1, reconnect_time_wait=0.2, error_cb=quiet,
                            dont_randomize=os.environ.get("PY_LOAD_DONT_RANDOMIZE") == "1")
    clients = {t: WorkerClient(nc, transport=t, timeout=args.timeout) for t in TRANSPORTS}
    errors, latencies, wrong = [], [], []
    answered = 0

    async def one(i: int) -> None:
        nonlocal answered
        client = clients[TRANSPORTS[i % 2]]
        rid = f"{args.prefix}-{i:05d}"
        start = time.monotonic()
        try:
            if i % 10 == 0:
                res = await client.file_written(request_id=rid, workspace_id=args.workspace, path=f"f{(i // 10) % 10}.md",
                                                mime_type="text/markdown", agent_id="py-load", message_id=rid, content=f"written by {rid}")
                ok = res.get("ok") is True
            else:
                res = await client.get_artifact(request_id=rid, ref="artifact:doc", service_id="text-model")
                ok = res.get("content") == args.text
            if not ok:
                wrong.append({"i": i, "result": res})
        except ClientError as err:
            errors.append({"i": i, "request_id": rid, "type": type(err).__name__, "error": str(err), "retry_safe": err.retry_safe})
        except Exception as err:  # not the client's: reported all the same
            errors.append({"i": i, "request_id": rid, "type": type(err).__name__, "error": str(err), "retry_safe": None})
        latencies.append(time.monotonic() - start)
        answered += 1
        if answered % 10 == 0 or answered == args.requests:
            print(f"answered {answered}", flush=True)

    began = time.monotonic()
    tasks = []
    for i in range(args.requests):
        tasks.append(asyncio.ensure_future(one(i)))
        await asyncio.sleep(max(0.0, began + (i + 1) / args.rate - time.monotonic()))
    await asyncio.gather(*tasks)
    await nc.close()
    latencies.sort()
    summary = {
        "sent": args.requests,
        "ok": args.requests - len(errors) - len(wrong),
        "errors": errors[:5],
        "error_count": len(errors),
        "wrong": wrong[:5],
        "reconnects": nc.stats["reconnects"],
        "p50_ms": round(latencies[len(latencies) // 2] * 1000),
        "p99_ms": round(latencies[int(len(latencies) * 0.99)] * 1000),
        "max_ms": round(latencies[-1] * 1000),
        "seconds": round(time.monotonic() - began, 1),
        "nats": _env.NATS_FROM,
    }
    print("SUMMARY " + json.dumps(summary), flush=True)
    return 0 if summary["ok"] == args.requests else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
