// Callers using the JavaScript client (clients/js) through a stream-leader kill, for
// integration/jsfailover_test.go: 8 callers on one connection to NATS_SERVERS (comma-separated,
// tried in order: the first is the server about to be killed), each calling tool.get_artifact in a
// loop with a 30 s timeout. It prints "ready" after 40 calls; when stdin closes it lets each caller
// finish its call and prints {"calls":n,"failed":[...],"reconnects":n,"timings":[[start,end],...]}
// (each call that succeeded, in milliseconds since the epoch) as its last line. The partition test
// (integration/partition_test.go) runs it too.
import { WorkerClient } from "../../clients/js/src/index.js";

const worker = await WorkerClient.connect({
  servers: process.env.NATS_SERVERS.split(","), noRandomize: true, maxReconnectAttempts: -1, reconnectTimeWait: 200,
});
let stop = false;
let calls = 0;
let ready = false;
const failed = [];
const timings = [];
process.stdin.on("end", () => { stop = true; });
process.stdin.resume();

await Promise.all(Array.from({ length: 8 }, async (_, p) => {
  for (let i = 0; !stop; i++) {
    const start = Date.now();
    try {
      await worker.getArtifact({ request_id: `${process.env.PREFIX}-${p}-${i}`, ref: "artifact:doc", service_id: "text-model" }, { timeout: 30_000 });
      timings.push([start, Date.now()]);
    } catch (err) {
      failed.push(`${err.name}: ${err.message} (retrySafe ${err.retrySafe})`);
    }
    calls++;
    if (calls >= 40 && !ready) {
      ready = true;
      console.log("ready");
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}));
console.log(JSON.stringify({ calls, failed, reconnects: worker.reconnects, timings }));
await worker.close();
