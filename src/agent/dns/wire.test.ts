import assert from "node:assert/strict";
import { test } from "node:test";
import { encodeMessage, FLAG_TC, type Packet, packReply, truncate } from "./wire.js";

const records = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    name: "aaaaaaaaaaaa.aaaaaa.",
    type: "A" as const,
    class: "IN" as const,
    ttl: 30,
    data: `240.0.0.${i}`,
  }));

const reply = (n: number, extra: Packet["additionals"] = []): Packet => ({
  id: 7,
  type: "response",
  flags: 0x0100,
  questions: [{ name: "giant-tc", type: "A", class: "IN" }],
  answers: records(n),
  additionals: extra,
});

test("a reply that fits goes out whole and uncompressed", () => {
  const { message, compress } = truncate(reply(5), 512);
  assert.equal(compress, false);
  assert.equal(message.answers?.length, 5);
  assert.equal(encodeMessage(message).length, 12 + 14 + 5 * 35);
});

test("64 records cut to 512 bytes keep 29 (compressed) and set TC, as miekg's Truncate", () => {
  const { message, compress } = truncate(reply(64), 512);
  assert.equal(compress, true);
  assert.equal(message.answers?.length, 29);
  assert.ok((message.flags ?? 0) & FLAG_TC);
  const wire = packReply(reply(64), 512);
  assert.ok(wire.length <= 512, `${wire.length} bytes`);
  assert.equal(wire.length, 12 + 14 + 35 + 28 * 16);
});

test("the OPT record is kept at the end and its size is counted", () => {
  const opt = { type: "OPT", name: ".", udpPayloadSize: 1232, flags: 0, options: [] } as never;
  const { message } = truncate(reply(64, [opt]), 512);
  assert.equal(message.answers?.length, 28);
  assert.equal(message.additionals?.at(-1)?.type, "OPT");
  assert.ok(packReply(reply(64, [opt]), 512).length <= 512);
});

test("a size under 512 counts as 512; names in CNAME targets are compressed", () => {
  const m: Packet = {
    id: 1,
    type: "response",
    questions: [{ name: "a.ns1.svc.cluster.local", type: "A", class: "IN" }],
    answers: [
      { name: "a.ns1.svc.cluster.local.", type: "CNAME", class: "IN", ttl: 30, data: "a.ns1.svc.cluster.local." },
      ...records(40),
    ],
  };
  const wire = packReply(m, 100);
  assert.ok(wire.length <= 512 && wire.length > 400, `${wire.length} bytes`);
});

test("bad names and addresses are refused with a one-line error", () => {
  assert.throws(
    () => encodeMessage({ ...reply(0), questions: [{ name: `${"a".repeat(64)}.x`, type: "A" }] }),
    /bad label/,
  );
  assert.throws(
    () =>
      encodeMessage({ ...reply(0), answers: [{ name: "x.", type: "A", class: "IN", ttl: 1, data: "2001:db8::1" }] }),
    /wrong family/,
  );
});
