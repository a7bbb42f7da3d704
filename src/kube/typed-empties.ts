/**
 * What a typed write adds to an object on its own: Go's encoding/json writes a struct field that
 * has no `omitempty` even when it is empty (`status: {}`, a Deployment's `strategy: {}`, a
 * container's `resources: {}`) and a zero time as `creationTimestamp: null`. kube-inject writes its
 * objects typed, as istioctl does, so these appear in its output; uninject takes them out again so
 * that it gives back no more than the app wrote: dropping one changes nothing a typed reader sees,
 * since writing the result typed (as kube-inject does) adds each back.
 */

import { isRecord } from "../go/json.js";
import { jsonEqual } from "./json-patch.js";
import { marshalTyped } from "./typed.js";

type Path = (string | number)[];

/** The paths of the object keys whose value is `{}` or null. */
function emptyLeaves(value: unknown, path: Path, out: Path[]): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      emptyLeaves(item, [...path, i], out);
    });
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, child] of Object.entries(value)) {
    if (child === null || (isRecord(child) && Object.keys(child).length === 0)) out.push([...path, key]);
    else emptyLeaves(child, [...path, key], out);
  }
}

function parentOf(root: unknown, path: Path): Record<string, unknown> | undefined {
  let node = root;
  for (const step of path.slice(0, -1)) {
    node = Array.isArray(node) ? node[step as number] : isRecord(node) ? node[step as string] : undefined;
  }
  return isRecord(node) ? node : undefined;
}

function at(root: unknown, path: Path): unknown {
  const parent = parentOf(root, path);
  return parent?.[path.at(-1) as string];
}

/**
 * `obj` (as a `kind` is written typed) without the empty objects and nulls that writing it typed
 * adds back by itself; every other one (`emptyDir: {}`, a `securityContext: {}` the app wrote),
 * which means something, stays. A new object; `obj` is not changed.
 */
export function withoutTypedEmpties(obj: Record<string, unknown>, kind: string): Record<string, unknown> {
  const paths: Path[] = [];
  emptyLeaves(obj, [], paths);
  if (paths.length === 0) return obj;
  const bare = structuredClone(obj);
  for (const path of paths) delete parentOf(bare, path)?.[path.at(-1) as string];
  const rewritten = marshalTyped(bare, kind);
  const out = structuredClone(obj);
  for (const path of paths) {
    if (jsonEqual(at(rewritten, path), at(obj, path))) delete parentOf(out, path)?.[path.at(-1) as string];
  }
  return out;
}
