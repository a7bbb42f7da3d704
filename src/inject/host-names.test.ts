// Host-name resolution for injection templates (getHostByName): the library's synchronous injection
// names the function when a name cannot be resolved; withResolvedNames resolves what a run asked for
// and runs it again. The hosts here are fakes (no DNS): src/webhook/template-host.ts is the real one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { injectYaml, loadInjectorConfig } from "../index.js";
import { templateHost, withResolvedNames } from "../template/index.js";
import { hostNameConfig, HOST_NAME_POD as POD } from "./testing/host-name-config.js";

const CONFIG = hostNameConfig("svc.example");

/** A host that knows names only once resolveHost was asked for them; counts the resolutions. */
function fakeHost(addresses: Record<string, string>) {
  const known = new Map<string, string[]>();
  const resolved: string[] = [];
  const host = templateHost({
    lookupHost: (name) => known.get(name) ?? [],
    resolveHost: async (name) => {
      resolved.push(name);
      known.set(name, addresses[name] === undefined ? [] : [addresses[name]]);
    },
  });
  return { host, resolved };
}

test("the library's synchronous injection fails getHostByName with an error naming the function", () => {
  const injector = loadInjectorConfig({ config: CONFIG });
  assert.throws(() => injectYaml(injector, POD), /getHostByName/);
});

test("withResolvedNames resolves the names a run asked for, runs it again, and returns the last run", async () => {
  const injector = loadInjectorConfig({ config: CONFIG });
  const { host, resolved } = fakeHost({ "svc.example": "127.0.0.9" });
  let runs = 0;
  const out = await withResolvedNames(host, (lookupHost) => {
    runs++;
    return injectYaml({ ...injector, settings: { ...injector.settings, lookupHost } }, POD);
  });
  assert.equal(runs, 2);
  assert.deepEqual(resolved, ["svc.example"]);
  assert.match(out, /name: HOST_ADDR\n\s+value: 127\.0\.0\.9\n/);
});

test("withResolvedNames: a name that does not resolve is tried once, and the run's error comes out", async () => {
  const injector = loadInjectorConfig({ config: CONFIG });
  const { host, resolved } = fakeHost({});
  let runs = 0;
  await assert.rejects(
    withResolvedNames(host, (lookupHost) => {
      runs++;
      return injectYaml({ ...injector, settings: { ...injector.settings, lookupHost } }, POD);
    }),
    /error calling getHostByName: invalid argument to Intn/,
  );
  assert.equal(runs, 2);
  assert.deepEqual(resolved, ["svc.example"]);
});

test("withResolvedNames runs once when nothing is asked for, or when the host cannot resolve", async () => {
  let runs = 0;
  assert.equal(await withResolvedNames(fakeHost({}).host, () => ++runs), 1);
  const noResolver = templateHost();
  assert.equal(
    await withResolvedNames(noResolver, (lookup) => {
      runs++;
      return lookup("x").length;
    }),
    0,
  );
  assert.equal(runs, 2);
});
