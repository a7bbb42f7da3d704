import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { caseInjector, readCase } from "/work/wt-15/conformance/kinds/istio-inject-case.js";
import { splitYamlStream } from "/work/wt-15/src/kube/stream.js";
import { marshalTyped } from "/work/wt-15/src/kube/typed.js";
import { isInjectable } from "/work/wt-15/src/kube/workloads.js";
import { readYaml } from "/work/wt-15/src/kube/yaml.js";
import { kubeInject } from "/work/wt-15/src/inject/kube-inject.js";
import { kubeUninject } from "/work/wt-15/src/inject/uninject.js";
const CORPUS = "/work/shared/conformance/istio-inject";
function typed(d: any): any { if (d?.kind === "List") return marshalTyped({ ...d, items: (d.items ?? []).map((i: any) => isInjectable(i) ? marshalTyped(i, String(i.kind)) : i) }, "List"); return isInjectable(d) ? marshalTyped(d, String(d.kind)) : d; }
function docs(text: string) { return splitYamlStream(text).map((r) => readYaml(r)).filter((d) => d != null).map(typed); }
function diff(a: any, b: any, p = ""): string { if (isDeepStrictEqual(a, b)) return ""; if (typeof a === "object" && a && typeof b === "object" && b) { for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) { const d = diff(a[k], b[k], `${p}.${k}`); if (d) return d; } } return `${p}: want ${JSON.stringify(a)?.slice(0,150)} got ${JSON.stringify(b)?.slice(0,150)}`; }
let ok = 0, bad = 0;
for (const name of readdirSync(CORPUS).sort()) {
  const dir = join(CORPUS, name);
  if (!existsSync(join(dir, "want.yaml"))) continue;
  const meta = readCase(dir); if (!meta.kubeInject) continue;
  const inj = caseInjector(dir, meta);
  const opts = { settings: inj.settings, config: inj.config, meshConfig: inj.meshConfig, revision: meta.kubeInjectRevision, nativeSidecar: meta.nativeSidecars, warn: () => {} };
  const input = readFileSync(join(dir, "input.yaml"), "utf8");
  try {
    const injected = kubeInject(input, opts);
    const un = kubeUninject(injected, opts);
    const d = diff(docs(input), docs(un));
    if (d) { bad++; console.log(`${name}: ${d}`); } else ok++;
  } catch (e) { bad++; console.log(`${name}: ERROR ${(e as Error).message}`); }
}
console.log({ ok, bad });
// inject(uninject(inject(x))) == inject(x)
let fp = 0, fpbad = 0;
for (const name of readdirSync(CORPUS).sort()) {
  const dir = join(CORPUS, name);
  if (!existsSync(join(dir, "want.yaml"))) continue;
  const meta = readCase(dir); if (!meta.kubeInject) continue;
  const inj = caseInjector(dir, meta);
  const opts = { settings: inj.settings, config: inj.config, meshConfig: inj.meshConfig, revision: meta.kubeInjectRevision, nativeSidecar: meta.nativeSidecars, warn: () => {} };
  const y = kubeInject(readFileSync(join(dir, "input.yaml"), "utf8"), opts);
  const d = diff(docs(y), docs(kubeInject(kubeUninject(y, opts), opts)));
  if (d) { fpbad++; console.log(`FP ${name}: ${d}`); } else fp++;
}
console.log({ fp, fpbad });
