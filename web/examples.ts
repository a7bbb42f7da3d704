/** The examples menu: workloads that show what injection does (our own manifests). */

export interface Example {
  id: string;
  title: string;
  yaml: string;
  /** A custom injector config (the `config` key of istio-sidecar-injector) to load with it. */
  config?: string;
}

const curl = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: curl
  namespace: default
spec:
  replicas: 1
  selector:
    matchLabels:
      app: curl
  template:
    metadata:
      labels:
        app: curl
    spec:
      containers:
      - name: curl
        image: curlimages/curl
        command: ["/bin/sleep", "infinity"]
`;

const probes = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 8080
        - containerPort: 9090
          name: grpc
        livenessProbe:
          httpGet:
            path: /healthz
            port: 8080
        readinessProbe:
          tcpSocket:
            port: 8080
        startupProbe:
          grpc:
            port: 9090
`;

const statefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  replicas: 3
  selector:
    matchLabels:
      app: db
  template:
    metadata:
      labels:
        app: db
    spec:
      containers:
      - name: postgres
        image: postgres:16
        ports:
        - containerPort: 5432
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: ["ReadWriteOnce"]
      resources:
        requests:
          storage: 1Gi
`;

const job = `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
spec:
  template:
    metadata:
      labels:
        app: migrate
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: example/migrate:1.0
        args: ["--once"]
`;

const annotations = `apiVersion: v1
kind: Pod
metadata:
  name: tuned
  labels:
    app: tuned
  annotations:
    sidecar.istio.io/proxyCPU: 200m
    sidecar.istio.io/proxyMemory: 256Mi
    sidecar.istio.io/logLevel: debug
    traffic.sidecar.istio.io/excludeOutboundPorts: "5432"
    traffic.sidecar.istio.io/includeInboundPorts: "8080"
    proxy.istio.io/config: |
      holdApplicationUntilProxyStarts: true
spec:
  containers:
  - name: app
    image: example/app:2
    ports:
    - containerPort: 8080
`;

const override = `apiVersion: v1
kind: Pod
metadata:
  name: custom-proxy
  labels:
    app: custom-proxy
spec:
  containers:
  - name: app
    image: example/app:2
  - name: istio-proxy
    image: auto
    resources:
      limits:
        memory: 512Mi
`;

const customConfig = `policy: enabled
defaultTemplates: [sidecar]
templates:
  sidecar: |
    spec:
      containers:
      - name: istio-proxy
        image: "{{ .Values.global.hub }}/proxyv2:{{ .Values.global.tag }}"
        args: ["proxy", "sidecar", "--domain", "{{ .Values.global.proxy.clusterDomain | default "cluster.local" }}"]
        env:
        - name: APP_CONTAINERS
          value: "{{ range $i, $c := .Spec.Containers }}{{ if $i }},{{ end }}{{ $c.Name }}{{ end }}"
`;

export const EXAMPLES: readonly Example[] = [
  { id: "curl", title: "curl (Deployment)", yaml: curl },
  { id: "probes", title: "Deployment with HTTP/TCP/gRPC probes", yaml: probes },
  { id: "statefulset", title: "StatefulSet", yaml: statefulSet },
  { id: "job", title: "Job", yaml: job },
  { id: "annotations", title: "Pod with sidecar.istio.io annotations", yaml: annotations },
  { id: "override", title: "istio-proxy override with image: auto", yaml: override },
  { id: "custom-template", title: "Custom template (pasted config)", yaml: curl, config: customConfig },
];
