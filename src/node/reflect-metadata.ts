/**
 * The three `Reflect` metadata functions @peculiar/x509's dependency tsyringe calls when the library
 * loads (`getMetadata`, `getOwnMetadata`, `defineMetadata`; it refuses to load without them). A
 * complete polyfill (reflect-metadata) is not a dependency; installing it instead is harmless, as
 * nothing here replaces functions already present.
 */

type Key = string | symbol;
type Store = Map<Key | undefined, Map<unknown, unknown>>;

interface ReflectMetadata {
  getMetadata?(key: unknown, target: object, property?: Key): unknown;
  getOwnMetadata?(key: unknown, target: object, property?: Key): unknown;
  defineMetadata?(key: unknown, value: unknown, target: object, property?: Key): void;
}

const stores = new WeakMap<object, Store>();

function ownMap(target: object, property: Key | undefined, create: boolean): Map<unknown, unknown> | undefined {
  let store = stores.get(target);
  if (store === undefined) {
    if (!create) return undefined;
    store = new Map();
    stores.set(target, store);
  }
  let map = store.get(property);
  if (map === undefined && create) {
    map = new Map();
    store.set(property, map);
  }
  return map;
}

function getOwnMetadata(key: unknown, target: object, property?: Key): unknown {
  return ownMap(target, property, false)?.get(key);
}

function getMetadata(key: unknown, target: object, property?: Key): unknown {
  for (let t: object | null = target; t !== null; t = Object.getPrototypeOf(t)) {
    const map = ownMap(t, property, false);
    if (map?.has(key)) return map.get(key);
  }
  return undefined;
}

function defineMetadata(key: unknown, value: unknown, target: object, property?: Key): void {
  ownMap(target, property, true)?.set(key, value);
}

/** Adds the missing functions to the global `Reflect`. */
export function installReflectMetadata(): void {
  const r = Reflect as unknown as ReflectMetadata;
  r.getMetadata ??= getMetadata;
  r.getOwnMetadata ??= getOwnMetadata;
  r.defineMetadata ??= defineMetadata;
}
