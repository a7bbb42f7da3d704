/**
 * The name table istiod pushes to the agent (`istio.networking.nds.v1.NameTable`), in its proto-JSON
 * shape: host → addresses, registry, and for Kubernetes services the short name and namespace the
 * agent expands. `parseNameTable` checks a table that arrives as JSON and names the bad field.
 */

/** One host of the table (`NameTable.NameInfo`); absent fields are empty. */
export interface NameInfo {
  ips?: string[];
  /** `Kubernetes`, `External`, … (the service registry the host came from). */
  registry?: string;
  /** Kubernetes services: the service name the agent answers as `name.`, `name.namespace.`, … */
  shortname?: string;
  namespace?: string;
  /** Further names this host answers to (for instance `name.ns.svc.clusterset.local`). */
  altHosts?: string[];
}

export interface NameTable {
  table?: Record<string, NameInfo>;
}

/** A name table that does not have the NameTable shape; the message names the field. */
export class NameTableError extends Error {
  override name = "NameTableError";
}

function stringList(value: unknown, where: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
    throw new NameTableError(`NameTable: ${where} must be a list of strings`);
  return value as string[];
}

function optionalString(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new NameTableError(`NameTable: ${where} must be a string`);
  return value;
}

/** Checks a JSON value against the NameTable shape and returns a clean copy; throws NameTableError. */
export function parseNameTable(value: unknown): NameTable {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new NameTableError("NameTable: must be an object");
  const raw = (value as { table?: unknown }).table;
  if (raw === undefined || raw === null) return { table: {} };
  if (typeof raw !== "object" || Array.isArray(raw)) throw new NameTableError("NameTable: table must be an object");
  const table: Record<string, NameInfo> = {};
  for (const [host, info] of Object.entries(raw as Record<string, unknown>)) {
    const where = `table[${JSON.stringify(host)}]`;
    if (info === null || typeof info !== "object" || Array.isArray(info))
      throw new NameTableError(`NameTable: ${where} must be an object`);
    const i = info as Record<string, unknown>;
    const entry: NameInfo = {};
    const ips = stringList(i.ips, `${where}.ips`);
    if (ips) entry.ips = [...ips];
    const altHosts = stringList(i.altHosts ?? i.alt_hosts, `${where}.altHosts`);
    if (altHosts) entry.altHosts = [...altHosts];
    for (const field of ["registry", "shortname", "namespace"] as const) {
      const s = optionalString(i[field], `${where}.${field}`);
      if (s !== undefined && s !== "") entry[field] = s;
    }
    table[host] = entry;
  }
  return { table };
}
