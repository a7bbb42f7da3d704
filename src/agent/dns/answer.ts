/**
 * What the proxy does with an accepted query (pilot-agent's `ServeDNS`), as a pure decision: answer
 * from the table — authoritative, NOERROR even with no records of the asked type, round-robin order —
 * or forward it upstream. Before the first table arrives the answer is SERVFAIL, unless the agent
 * runs as the node's resolver (`respondBeforeSync`), when it forwards.
 */
import type { DecodedQuery } from "./accept.js";
import { replyTo } from "./accept.js";
import { type LookupTable, lookupHost } from "./lookup-table.js";
import { type IdSource, roundRobin } from "./round-robin.js";
import { FLAG_AA, type Packet, RCODE } from "./wire.js";

export type Decision =
  | { kind: "reply"; reply: Packet; from: "table" | "no-table" | "no-question" }
  | { kind: "forward" };

/** The question's name as the table keys it: lower case, ending in a dot. */
export function tableName(name: string): string {
  const lower = name.toLowerCase();
  if (lower === "." || lower === "") return ".";
  return endsInSeparator(lower) ? lower : `${lower}.`;
}

/** The name ends in a label separator, not in an escaped dot (`a\.` is the one label `a.`). */
function endsInSeparator(name: string): boolean {
  if (!name.endsWith(".")) return false;
  let backslashes = 0;
  for (let i = name.length - 2; i >= 0 && name[i] === "\\"; i--) backslashes++;
  return backslashes % 2 === 0;
}

export function decide(
  query: DecodedQuery,
  table: LookupTable | undefined,
  ids: IdSource,
  respondBeforeSync = false,
): Decision {
  const question = query.questions?.[0];
  if (!question) return { kind: "reply", reply: replyTo(query, RCODE.SERVFAIL), from: "no-question" };
  if (!table) {
    if (respondBeforeSync) return { kind: "forward" };
    return { kind: "reply", reply: replyTo(query, RCODE.SERVFAIL), from: "no-table" };
  }
  const found = lookupHost(table, question.type, tableName(question.name));
  if (!found.found) return { kind: "forward" };
  const reply = replyTo(query);
  // We are the authority for the mesh's names; an empty answer stays NOERROR, not NXDOMAIN (a client
  // asking A and AAAA at once would otherwise give up on the name).
  reply.flags = (reply.flags ?? 0) | FLAG_AA;
  reply.answers = found.answers.length > 0 ? roundRobin(found.answers, ids) : [];
  return { kind: "reply", reply, from: "table" };
}
