/**
 * Floors: the minimum number of passing vectors per corpus folder, keyed `KIND/NAME` in
 * floors.json (`KIND/NAME@webhook` for the webhook mode of istio-inject). CI fails when a folder
 * drops below its floor; raise a floor when you pass more.
 */
import { readFile } from "node:fs/promises";

export type Floors = Record<string, number>;

export async function loadFloors(path: URL): Promise<Floors> {
  const parsed: unknown = JSON.parse(await readFile(path, "utf8"));
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error(`${path.pathname}: expected an object mapping "KIND/NAME" to a number`);
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
      throw new Error(`${path.pathname}: floor of ${key} must be a non-negative integer`);
    }
  }
  return parsed as Floors;
}

/** The floors.json key of a folder: `KIND/NAME`, with `@MODE` for a mode other than the default (`@webhook`). */
export function floorKey(kind: string, name: string, mode?: string): string {
  return mode === undefined || mode === "kube-inject" ? `${kind}/${name}` : `${kind}/${name}@${mode}`;
}

/** The message when `passed` is below the folder's floor (for that mode), or undefined when it is not. */
export function belowFloor(
  floors: Floors,
  kind: string,
  name: string,
  passed: number,
  mode?: string,
): string | undefined {
  const floor = floors[floorKey(kind, name, mode)];
  if (floor === undefined || passed >= floor) return undefined;
  const where = mode === undefined || mode === "kube-inject" ? name : `${name} (${mode} mode)`;
  return `conformance ${kind} ${where}: BELOW FLOOR: ${passed} passed, floor is ${floor}`;
}
