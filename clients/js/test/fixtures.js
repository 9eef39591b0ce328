// Test fixtures and the worker under test (the Go driver in integration/ starts it and sets the env).
import { deflateSync, crc32 } from "node:zlib";
import { randomBytes } from "node:crypto";

/** NATS URL of the worker under test. */
export const natsURL = process.env.NATS_URL ?? "nats://127.0.0.1:4222";

/** A valid PNG of w x h random RGB pixels (incompressible: about 3*w*h bytes). */
export function noisyPNG(w, h) {
  const raw = Buffer.alloc((3 * w + 1) * h);
  for (let y = 0; y < h; y++) randomBytes(3 * w).copy(raw, y * (3 * w + 1) + 1);
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 1 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

export function randomId(prefix) {
  return prefix + "-" + randomBytes(6).toString("hex");
}

/**
 * A TCP proxy to the NATS server of natsURL that the test can close: close() drops every connection
 * through it and refuses new ones (a client's connection goes down and stays away, reconnecting)
 * until open().
 */
export async function gatedProxy() {
  const { createServer, connect } = await import("node:net");
  const target = new URL(natsURL.split(",")[0].replace(/^nats:/, "http:"));
  const sockets = new Set();
  let closed = false;
  const server = createServer((down) => {
    if (closed) return down.destroy();
    const up = connect(Number(target.port || 4222), target.hostname);
    for (const s of [down, up]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => { sockets.delete(s); down.destroy(); up.destroy(); });
    }
    down.pipe(up);
    up.pipe(down);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `nats://127.0.0.1:${server.address().port}`,
    close() {
      closed = true;
      for (const s of sockets) s.destroy();
    },
    open() { closed = false; },
    stop() {
      this.close();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
