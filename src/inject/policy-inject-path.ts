/**
 * Proxy environment variables carried in the injection webhook's URL path (Istio's parseInjectEnvs):
 * `/inject/cluster/c1/net/n1` gives `ISTIO_META_CLUSTER_ID=c1`, `ISTIO_META_NETWORK=n1`. A remote
 * cluster's webhook uses this to tell the injector which cluster and network the pod is in.
 *
 * Two forms after `/inject/`: key/value path segments (`--slash--` in a value stands for `/`), or the
 * deprecated `:ENV:NAME=value:ENV:NAME=value` list. A key without a value is dropped.
 */

/** Path keys with a fixed variable name; any other key is upper-cased. */
const KEY_TO_ENV: Readonly<Record<string, string>> = {
  cluster: "ISTIO_META_CLUSTER_ID",
  net: "ISTIO_META_NETWORK",
};

const ENV_SEPARATOR = ":ENV:";

/** Go's strings.ToUpper maps rune by rune; a rune whose upper case is several characters (ß) stays. */
function goToUpper(s: string): string {
  let out = "";
  for (const ch of s) {
    const up = ch.toUpperCase();
    out += [...up].length === 1 ? up : ch;
  }
  return out;
}

/** The alternating key, value list of the path after `/inject/`. */
function pathPairs(path: string): string[] {
  const trimmed = path.endsWith("/") ? path.slice(0, -1) : path;
  // "/inject/<rest>": the rest is what follows the second slash.
  const first = trimmed.indexOf("/");
  const second = first < 0 ? -1 : trimmed.indexOf("/", first + 1);
  if (second < 0) return [];
  const rest = trimmed.slice(second + 1);
  if (rest.startsWith(ENV_SEPARATOR)) {
    const pairs: string[] = [];
    for (const item of rest.split(ENV_SEPARATOR).slice(1)) {
      const eq = item.indexOf("=");
      // The name must be non-empty and the "=" present; the value may be empty.
      if (eq > 0) pairs.push(item.slice(0, eq), item.slice(eq + 1));
    }
    return pairs;
  }
  return rest.split("/").map((part, i) => (i % 2 === 1 ? part.replaceAll("--slash--", "/") : part));
}

/** The proxy environment variables encoded in an injection URL path. */
export function parseInjectEnvs(path: string): Record<string, string> {
  const pairs = pathPairs(path);
  const envs: Record<string, string> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const key = pairs[i] as string;
    const name = Object.hasOwn(KEY_TO_ENV, key) ? (KEY_TO_ENV[key] as string) : goToUpper(key);
    // defineProperty: a "__PROTO__"-style key must stay data.
    Object.defineProperty(envs, name, { value: pairs[i + 1], enumerable: true, writable: true, configurable: true });
  }
  return envs;
}
