/**
 * The order of answers served from the table (pilot-agent's `roundRobinResponse`, after CoreDNS's
 * loadbalance plugin): CNAMEs first, then other records, then the A/AAAA records shuffled, then MX
 * records shuffled, so that clients of headless services spread over the pods. The shuffle draws
 * from a 16-bit id source (Go's `dns.Id`), which tests may pin.
 */

/** A 16-bit number source, like miekg/dns's `Id()`. */
export type IdSource = () => number;

export function shuffle<T>(records: T[], id: IdSource): void {
  const n = records.length;
  if (n < 2) return;
  const swap = (q: number, p: number) => {
    const t = records[q] as T;
    records[q] = records[p] as T;
    records[p] = t;
  };
  if (n === 2) {
    if (id() % 2 === 0) swap(0, 1);
    return;
  }
  // The loop bound draws a fresh id on every check, as the Go loop condition does.
  for (let j = 0; j < n * ((id() % 4) + 1); j++) {
    const q = id() % n;
    let p = id() % n;
    if (q === p) p = (p + 1) % n;
    swap(q, p);
  }
}

/** Reorders one section: CNAMEs, others, shuffled addresses, shuffled MX. */
export function roundRobin<T extends { type: string }>(section: readonly T[], id: IdSource): T[] {
  const cname: T[] = [];
  const address: T[] = [];
  const mx: T[] = [];
  const rest: T[] = [];
  for (const r of section) {
    if (r.type === "CNAME") cname.push(r);
    else if (r.type === "A" || r.type === "AAAA") address.push(r);
    else if (r.type === "MX") mx.push(r);
    else rest.push(r);
  }
  shuffle(address, id);
  shuffle(mx, id);
  return [...cname, ...rest, ...address, ...mx];
}
