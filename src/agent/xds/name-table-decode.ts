/**
 * The NDS payload: `istio.networking.nds.v1.NameTable` bytes from inside an `Any`, decoded to the
 * proto-JSON shape the DNS proxy takes (`NameTable` of src/agent/dns) and checked by its parser, so
 * anything that is not a name table is a one-line `NameTableError` and never a crash.
 */
import { type NameTable, NameTableError, parseNameTable } from "../dns/name-table.js";
import { messageType } from "../protos.js";

export function decodeNameTable(bytes: Uint8Array): NameTable {
  const type = messageType("istio.networking.nds.v1.NameTable");
  let object: unknown;
  try {
    object = type.toObject(type.decode(bytes));
  } catch (error) {
    throw new NameTableError(`NameTable: undecodable payload (${(error as Error).message})`);
  }
  return parseNameTable(object);
}
