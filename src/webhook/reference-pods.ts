/**
 * Reference pods: the admission requests a new configuration must answer before it becomes active.
 * Parsing a config proves little (a template can parse and still fail on the first real pod);
 * rendering these proves the templates, values and mesh config work together on the common shapes:
 * a Deployment's pod as the API server sends it, a pod that tunes its proxy with annotations (and
 * has probes to rewrite and an init container), and a gateway pod injected with the `gateway`
 * template. Every pod opts in explicitly, so a config whose policy is `disabled` is still rendered.
 */

import { podCreationReview } from "./admission-request.js";

export interface ReferencePod {
  /** Short name for logs and error messages. */
  name: string;
  /** The AdmissionReview (admission.k8s.io/v1) the API server would send. */
  review: Record<string, unknown>;
}

const NAMESPACE = "meshinject-reference";

/** A pod of Deployment `web`, as the ReplicaSet controller creates it (no name yet, no namespace). */
function deploymentPod(): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: "web-5d8f7c9b6-",
      labels: { app: "web", version: "v1", "pod-template-hash": "5d8f7c9b6", "sidecar.istio.io/inject": "true" },
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: "web-5d8f7c9b6",
          uid: "0b6cb1f4-62a5-4a39-9d0e-6d1a7c0f4b21",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      serviceAccountName: "web",
      containers: [
        {
          name: "web",
          image: "docker.io/library/nginx:1.27",
          ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }],
          env: [{ name: "LOG_LEVEL", value: "info" }],
          resources: { requests: { cpu: "100m", memory: "128Mi" } },
          readinessProbe: { httpGet: { path: "/ready", port: 8080 }, periodSeconds: 5 },
          terminationMessagePath: "/dev/termination-log",
          terminationMessagePolicy: "File",
          imagePullPolicy: "IfNotPresent",
        },
      ],
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      securityContext: {},
      schedulerName: "default-scheduler",
    },
  };
}

/** A standalone pod that tunes its proxy through annotations and has probes and an init container. */
function annotatedPod(): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "reviews",
      namespace: NAMESPACE,
      labels: { app: "reviews" },
      annotations: {
        "sidecar.istio.io/inject": "true",
        "sidecar.istio.io/proxyCPU": "200m",
        "sidecar.istio.io/proxyMemory": "256Mi",
        "sidecar.istio.io/logLevel": "warning",
        "traffic.sidecar.istio.io/excludeOutboundPorts": "5432",
        "proxy.istio.io/config": '{"holdApplicationUntilProxyStarts": true}',
      },
    },
    spec: {
      initContainers: [{ name: "migrate", image: "docker.io/library/busybox:1.36", command: ["true"] }],
      containers: [
        {
          name: "reviews",
          image: "docker.io/istio/examples-bookinfo-reviews-v1:1.20.2",
          ports: [{ containerPort: 9080 }, { name: "grpc-admin", containerPort: 9090 }],
          livenessProbe: { httpGet: { path: "/health", port: 9080 } },
          startupProbe: { tcpSocket: { port: 9080 } },
        },
      ],
    },
  };
}

/** A gateway deployment's pod: the `gateway` template, its proxy container already named. */
function gatewayPod(): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: "istio-ingressgateway-6b7d9c4f8-",
      labels: {
        app: "istio-ingressgateway",
        istio: "ingressgateway",
        "pod-template-hash": "6b7d9c4f8",
        "sidecar.istio.io/inject": "true",
      },
      annotations: { "inject.istio.io/templates": "gateway" },
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: "istio-ingressgateway-6b7d9c4f8",
          uid: "5f0b2a8e-3c1d-4e7f-9a6b-2d4c8e1f0a37",
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      serviceAccountName: "istio-ingressgateway",
      containers: [{ name: "istio-proxy", image: "auto" }],
    },
  };
}

/** The reference requests, in a fixed order. */
export function referencePods(): ReferencePod[] {
  return [
    { name: "deployment-pod", review: podCreationReview("reference-deployment-pod", NAMESPACE, deploymentPod()) },
    { name: "annotated-pod", review: podCreationReview("reference-annotated-pod", NAMESPACE, annotatedPod()) },
    { name: "gateway-pod", review: podCreationReview("reference-gateway-pod", NAMESPACE, gatewayPod()) },
  ];
}
