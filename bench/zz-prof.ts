import { defaultConfigFiles } from "../src/inject/defaults.js";
import { loadInjector } from "../src/inject/injector.js";
import { DocumentInjector } from "../src/inject/kube-inject.js";
import { splitYamlStreamAt } from "../src/kube/stream.js";
export function deploymentStream(n: number): string {
  let out = "";
  for (let i = 0; i < n; i++) {
    out += `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-${i}
  namespace: team-${i % 7}
  labels: {app: app-${i}, version: v${i % 3}}
spec:
  replicas: 2
  selector:
    matchLabels: {app: app-${i}}
  template:
    metadata:
      labels: {app: app-${i}, version: v${i % 3}}
    spec:
      containers:
      - name: app
        image: example/app:1.${i}
        ports: [{containerPort: 8080}]
        env:
        - name: INSTANCE
          value: "${i}"
        resources:
          requests: {cpu: 100m, memory: 64Mi}
---
`;
  }
  return out;
}
const loaded = loadInjector(defaultConfigFiles());
const options = { settings: loaded.settings, config: loaded.config, meshConfig: loaded.meshConfig, revision: "", nativeSidecar: false, warn: () => {} };
const input = deploymentStream(1000);
for (let r = 0; r < 4; r++) {
  const inj = new DocumentInjector(options);
  for (const raw of splitYamlStreamAt(input)) inj.document(raw);
}
