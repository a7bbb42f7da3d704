/**
 * The shared setting of an SDS test suite: a fake CA, a second unrelated PKI (for file-mounted
 * material), and the pods and servers the tests make, all closed and removed after the suite.
 * Call inside `describe`; read `ca` and `other` from within tests.
 */
import { after, before } from "node:test";
import { createTestCa, type TestCa } from "../../testing/pki.js";
import type { SdsServer } from "../server.js";
import { type FakeCa, startFakeCa } from "./fake-ca.js";
import type { TestPod } from "./pod.js";

export interface SdsBed {
  readonly ca: FakeCa;
  readonly other: TestCa;
  pods: TestPod[];
  servers: SdsServer[];
}

export function sdsBed(ttlMs: number): SdsBed {
  let ca: FakeCa | undefined;
  let other: TestCa | undefined;
  const bed: SdsBed = {
    get ca() {
      if (!ca) throw new Error("the fake CA starts before the tests");
      return ca;
    },
    get other() {
      if (!other) throw new Error("the second PKI is made before the tests");
      return other;
    },
    pods: [],
    servers: [],
  };
  before(async () => {
    ca = await startFakeCa({ ttlMs });
    other = await createTestCa();
  });
  after(async () => {
    for (const s of bed.servers) await s.close();
    await ca?.close();
    for (const p of bed.pods) p.remove();
  });
  return bed;
}
