import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeText, EncodingError, TextStreamDecoder } from "./read-input.js";

/** `bytes` decoded in pieces of `size` bytes. */
function decodeInPieces(bytes: Uint8Array, size: number): string {
  const decoder = new TextStreamDecoder();
  let out = "";
  for (let i = 0; i < bytes.length; i += size) out += decoder.decode(bytes.subarray(i, i + size));
  return out + decoder.end();
}

const TEXT = '# café ☕ 𝄞\nkind: ConfigMap\ndata: {k: "ü"}\n';

function utf32(text: string, littleEndian: boolean): Buffer {
  const points = [...text].map((c) => c.codePointAt(0) as number);
  const out = Buffer.alloc(4 + points.length * 4);
  out.writeUInt32LE(0xfeff, 0);
  if (!littleEndian) out.writeUInt32BE(0xfeff, 0);
  for (const [i, p] of points.entries()) {
    if (littleEndian) out.writeUInt32LE(p, 4 + i * 4);
    else out.writeUInt32BE(p, 4 + i * 4);
  }
  return out;
}

test("decodes UTF-8 (with or without a byte-order mark), UTF-16 and UTF-32 alike in pieces of any size", () => {
  const encodings: [string, Buffer][] = [
    ["utf-8", Buffer.from(TEXT)],
    ["utf-8 bom", Buffer.from(`\ufeff${TEXT}`)],
    ["utf-16le", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, "utf16le")])],
    ["utf-16be", Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(TEXT, "utf16le").swap16()])],
    ["utf-32le", utf32(TEXT, true)],
    ["utf-32be", utf32(TEXT, false)],
  ];
  for (const [name, bytes] of encodings) {
    assert.equal(decodeText(bytes), TEXT, name);
    for (let size = 1; size <= 9; size++)
      assert.equal(decodeInPieces(bytes, size), TEXT, `${name} in pieces of ${size}`);
  }
});

test("refuses what is not text, naming the line of bad UTF-8 in the whole stream, however it is cut", () => {
  const bad = Buffer.concat([Buffer.from("a: 1\nb: é\nc: 3\n"), Buffer.from([0xe9, 0x0a]), Buffer.from("d: 4\n")]);
  for (let size = 1; size <= bad.length; size++) {
    assert.throws(() => decodeInPieces(bad, size), { message: "is not UTF-8 text (line 4); save it as UTF-8" });
  }
  assert.throws(() => decodeInPieces(Buffer.from("a: 1\n\0"), 2), /holds NUL bytes/);
  assert.throws(() => decodeInPieces(Buffer.from([0xff, 0xfe, 0x3d]), 1), { message: "is not valid UTF-16" });
  assert.throws(
    () => decodeInPieces(Buffer.from([0xfe, 0xff, 0xd8, 0, 0, 0x41]), 3),
    (e: unknown) => e instanceof EncodingError,
  );
  assert.throws(() => decodeInPieces(Buffer.concat([utf32("ab", true), Buffer.from([1])]), 2), /not a multiple of 4/);
  const noChar = Buffer.concat([utf32("ab", true), Buffer.from([0, 0, 0x11, 0])]);
  assert.throws(() => decodeInPieces(noChar, 3), { message: "is not valid UTF-32 (byte 8: 0x110000 is no character)" });
});
