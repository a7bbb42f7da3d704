/**
 * The `dns` kind: the agent's DNS proxy and the name table (see the corpus's FORMAT.md).
 * - dns-proxy-queries.json: live. A fake upstream of ours (the corpus's zones) on loopback, the proxy
 *   started once per agent variant (sequential and parallel forwarding) with the vectors' table
 *   loaded through `updateNameTable`; each vector is one query from a real UDP or TCP client. A vector
 *   passes when it passes under every variant. The round-robin rows pin the shuffle through the
 *   proxy's `messageIds` hook (the counter restarts at the vector's idSeed).
 * - dns-alt-hosts.json: the `/debug/ndsz` view of the table, keys with the vector's prefix.
 * - dns-upstream-timeout.json: live, an upstream that never answers.
 * - name-table.json: `buildNameTable` on the vector's services and endpoints.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { dnsScope } from "../../src/agent/dns/alt-hosts.js";
import { buildNameTable, type NameTableInput } from "../../src/agent/dns/build-name-table.js";
import type { NameTable } from "../../src/agent/dns/name-table.js";
import { ndszView } from "../../src/agent/dns/ndsz.js";
import { startDnsProxy } from "../../src/agent/dns/server.js";
import { query } from "../../src/agent/dns/testing/client.js";
import { type FakeZone, startFakeResolver } from "../../src/agent/dns/testing/fake-resolver.js";
import { RCODE, rcodeOf } from "../../src/agent/dns/wire.js";
import { formatAddr, parseAddr } from "../../src/agent/netip.js";
import type { Failure, KindOptions, KindResult } from "../result.js";
import { shown } from "../result.js";

type Json = Record<string, unknown>;
const show = (v: unknown) => shown(JSON.stringify(v) ?? "undefined");

interface WantRecord {
  name: string;
  type: string;
  class: string;
  ttl: number;
  data: string;
}

interface Verdict {
  pass: boolean;
  reason?: string;
  expected?: unknown;
  got?: unknown;
}

/** Records a verdict: true when it passed, else its failure is listed. */
function tally(verdict: Verdict, file: string, name: string, failures: Failure[]): boolean {
  if (verdict.pass) return true;
  failures.push({ file, name, reason: verdict.reason ?? "", expected: show(verdict.expected), got: show(verdict.got) });
  return false;
}

type Part = { passed: number; total: number };

/** Judges every vector of one file, one after another. */
async function judgeFile(
  dir: string,
  file: string,
  failures: Failure[],
  judge: (vector: Json, doc: Json) => Verdict | Promise<Verdict>,
): Promise<Part> {
  const doc = JSON.parse(await readFile(join(dir, file), "utf8")) as Json;
  const vectors = doc.vectors as Json[];
  let passed = 0;
  for (const v of vectors) if (tally(await judge(v, doc), file, v.id as string, failures)) passed++;
  return { passed, total: vectors.length };
}

const RCODE_NAMES = Object.fromEntries(Object.entries(RCODE).map(([k, v]) => [v, k]));

function fqdn(name: string): string {
  return name === "." ? "." : `${name.replace(/\.$/, "")}.`;
}

function canonicalData(type: string, data: unknown): string {
  if (type === "A" || type === "AAAA") {
    try {
      return formatAddr(parseAddr(String(data)));
    } catch {
      return String(data);
    }
  }
  if (type === "CNAME") return fqdn(String(data));
  return JSON.stringify(data);
}

function recordView(r: { name: string; type: string; class?: string; ttl?: number; data?: unknown }): WantRecord {
  return {
    name: fqdn(r.name),
    type: r.type,
    class: r.class ?? "IN",
    ttl: r.ttl ?? 0,
    data: canonicalData(r.type, r.data),
  };
}

async function runQueries(dir: string, failures: Failure[], budgetMs: number): Promise<Part> {
  const file = "dns-proxy-queries.json";
  const doc = JSON.parse(await readFile(join(dir, file), "utf8")) as Json;
  const agent = doc.agent as Json;
  const zones = ((doc.fixtures as Json).upstream as Json).zones as (FakeZone & { truncate?: unknown })[];
  const upstream = await startFakeResolver({
    zones: zones.map((z) => ({ zone: z.zone, rcode: z.rcode, answer: z.answer, truncate: z.truncate !== undefined })),
  });
  const vectors = doc.vectors as Json[];
  const verdicts = new Map<string, Verdict[]>();
  const timeoutMs = Math.min(3000, budgetMs);
  try {
    for (const variant of doc.agentVariants as Json[]) {
      let nextId = 0;
      const proxy = await startDnsProxy({
        address: agent.listenAddr as string,
        proxyNamespace: agent.proxyNamespace as string,
        proxyDomain: agent.proxyDomain as string,
        upstreams: (agent.upstreamServers as string[]).map((s) => s.replace("{{upstream.addr}}", upstream.address)),
        searchNamespaces: agent.searchNamespaces as string[],
        forwardParallel: variant.forwardToUpstreamParallel === true,
        messageIds: () => {
          nextId = (nextId + 1) & 0xffff;
          return nextId;
        },
      });
      try {
        proxy.updateNameTable(agent.nameTable);
        for (const v of vectors) {
          const q = v.query as Json;
          if (typeof q.idSeed === "number") nextId = q.idSeed;
          const transport = v.transport as "udp" | "tcp";
          const port = transport === "udp" ? proxy.ports.udp : proxy.ports.tcp;
          const edns0 = q.edns0 as { udpSize: number; do?: boolean } | undefined;
          let verdict: Verdict;
          try {
            const reply = await query(
              transport,
              "127.0.0.1",
              port,
              {
                name: q.name as string,
                type: q.type as string,
                class: q.class as string,
                recursionDesired: q.recursionDesired !== false,
                edns0,
              },
              timeoutMs,
            );
            verdict = judgeReply(v.want as Json, reply);
          } catch (e) {
            verdict = { pass: false, reason: `exchange failed: ${(e as Error).message}` };
          }
          const label = `${variant.test as string}: `;
          if (verdict.reason) verdict.reason = label + verdict.reason;
          verdicts.set(v.id as string, [...(verdicts.get(v.id as string) ?? []), verdict]);
        }
      } finally {
        await proxy.close();
      }
    }
  } finally {
    await upstream.close();
  }
  let passed = 0;
  for (const v of vectors) {
    const list = verdicts.get(v.id as string) ?? [];
    const verdict = list.find((x) => !x.pass) ?? list[0] ?? { pass: false, reason: "not run" };
    if (tally(verdict, file, v.id as string, failures)) passed++;
  }
  return { passed, total: vectors.length };
}

function judgeReply(want: Json, reply: Awaited<ReturnType<typeof query>>): Verdict {
  const rcode = RCODE_NAMES[rcodeOf(reply.flags ?? 0)] ?? String(rcodeOf(reply.flags ?? 0));
  if (typeof want.rcode === "string" && want.rcode !== rcode)
    return { pass: false, reason: "rcode differs", expected: want.rcode, got: rcode };
  const answers = (reply.answers ?? []).map((a) => recordView(a as never));
  if (want.allAnswersClassIN === true && answers.some((a) => a.class !== "IN"))
    return { pass: false, reason: "an answer is not class IN", got: answers };
  if (want.answerChecked === false) return { pass: true };
  const expected = ((want.answer as WantRecord[] | undefined) ?? []).map((a) => recordView(a));
  if (!isDeepStrictEqual(answers, expected)) return { pass: false, reason: "answers differ", expected, got: answers };
  return { pass: true };
}

function runAltHosts(dir: string, failures: Failure[]): Promise<Part> {
  return judgeFile(dir, "dns-alt-hosts.json", failures, (v, doc) => {
    const input = doc.input as Json;
    const scope = dnsScope(input.proxyNamespace as string, input.proxyDomain as string);
    const view = ndszView(input.nameTable as NameTable, scope);
    const prefix = (v.input as Json).startsWith as string;
    const got = Object.keys(view.table ?? {})
      .filter((k) => k.startsWith(prefix))
      .sort();
    const expected = [...((v.want as Json).keys as string[])].sort();
    return { pass: isDeepStrictEqual(got, expected), reason: "keys differ", expected, got };
  });
}

function runTimeouts(dir: string, failures: Failure[]): Promise<Part> {
  return judgeFile(dir, "dns-upstream-timeout.json", failures, async (v) => {
    const agent = v.agent as Json;
    const want = v.want as Json;
    const duration = want.durationMs as { min: number; max: number };
    const silent = await startFakeResolver({ silent: true });
    const proxy = await startDnsProxy({
      address: agent.listenAddr as string,
      proxyNamespace: agent.proxyNamespace as string,
      proxyDomain: agent.proxyDomain as string,
      upstreams: (agent.upstreamServers as string[]).map((s) => s.replace("{{upstream.addr}}", silent.address)),
      searchNamespaces: [],
      upstreamTimeoutMs: agent.upstreamTimeoutMs as number,
    });
    let verdict: Verdict;
    try {
      // Before a table the proxy answers SERVFAIL at once; any table makes it forward.
      proxy.updateNameTable({ table: {} });
      const q = v.query as Json;
      const started = performance.now();
      const reply = await query("udp", "127.0.0.1", proxy.ports.udp, {
        name: q.name as string,
        type: q.type as string,
      });
      const took = performance.now() - started;
      const rcode = RCODE_NAMES[rcodeOf(reply.flags ?? 0)];
      // The client round trip adds a little to the proxy's own wait.
      const slack = 100;
      if (rcode !== want.rcode) verdict = { pass: false, reason: "rcode differs", expected: want.rcode, got: rcode };
      else if ((reply.answers ?? []).length !== 0)
        verdict = { pass: false, reason: "answers present", got: reply.answers };
      else if (took < duration.min || took > duration.max + slack)
        verdict = { pass: false, reason: "duration out of range", expected: duration, got: Math.round(took) };
      else verdict = { pass: true };
    } catch (e) {
      verdict = { pass: false, reason: `exchange failed: ${(e as Error).message}` };
    } finally {
      await proxy.close();
      await silent.close();
    }
    return verdict;
  });
}

function runNameTables(dir: string, failures: Failure[]): Promise<Part> {
  return judgeFile(dir, "name-table.json", failures, (v) => {
    const input = v.input as Json;
    const push = input.push as Json;
    const built = buildNameTable({
      proxy: input.proxy as NameTableInput["proxy"],
      services: push.services as NameTableInput["services"],
      endpoints: push.endpoints as NameTableInput["endpoints"],
      multiclusterHeadlessEnabled: input.multiclusterHeadlessEnabled === true,
      features: input.features as NameTableInput["features"],
    });
    const want = v.want as Json;
    const table = built.table ?? {};
    let verdict: Verdict;
    if (want.nameTable !== undefined) {
      const pass = isDeepStrictEqual(built, want.nameTable);
      verdict = { pass, reason: "table differs", expected: want.nameTable, got: built };
    } else if (want.keysPresent !== undefined) {
      const missing = (want.keysPresent as string[]).filter((k) => !Object.hasOwn(table, k));
      verdict = {
        pass: missing.length === 0,
        reason: "keys missing",
        expected: want.keysPresent,
        got: Object.keys(table),
      };
    } else {
      const entry = want.entry as string;
      const got = Object.hasOwn(table, entry) ? table[entry]?.ips : undefined;
      verdict = { pass: isDeepStrictEqual(got, want.ips), reason: "entry ips differ", expected: want.ips, got };
    }
    return verdict;
  });
}

export async function runDns(dir: string, options: KindOptions): Promise<KindResult> {
  const failures: Failure[] = [];
  const parts = [
    await runQueries(dir, failures, options.budgetMs),
    await runAltHosts(dir, failures),
    await runTimeouts(dir, failures),
    await runNameTables(dir, failures),
  ];
  return {
    passed: parts.reduce((n, p) => n + p.passed, 0),
    total: parts.reduce((n, p) => n + p.total, 0),
    failures,
  };
}
