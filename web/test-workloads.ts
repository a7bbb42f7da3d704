/** Workloads the playground's tests inject (web/pictures.test.ts, test/playground-browser.test.ts). */

/** A pod to inject with native sidecars on: ports excluded both ways, and a volume of its own. */
export const NATIVE_POD = `apiVersion: v1
kind: Pod
metadata:
  name: native
  annotations:
    traffic.sidecar.istio.io/excludeInboundPorts: "9000"
    traffic.sidecar.istio.io/excludeOutboundPorts: "5432"
spec:
  volumes:
  - name: cache
    emptyDir: {}
  containers:
  - name: app
    image: example/app:1
    ports:
    - containerPort: 8080
    - containerPort: 9000
    volumeMounts:
    - name: cache
      mountPath: /cache
`;
