// Generated Deployments for the streaming kube-inject tests and benchmark: each one different, so
// that nothing can be reused from the document before.

/** Deployment number `i` (its name, labels, namespace, image and env differ by number). */
export function deployment(i: number): string {
  return `apiVersion: apps/v1
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
`;
}

/** Deployments `from` .. `from + n - 1` as one YAML stream, each followed by `---`. */
export function deploymentStream(n: number, from = 0): string {
  let out = "";
  for (let i = from; i < from + n; i++) out += `${deployment(i)}---\n`;
  return out;
}

/** How many lines `text` has (a last line without a line break counts). */
export function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}
