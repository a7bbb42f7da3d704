/**
 * Patch metadata of the Kubernetes `core/v1` Pod type tree, as data: what
 * `k8s.io/apimachinery/pkg/util/strategicpatch` reads from the Go struct tags
 * (`patchStrategy`, `patchMergeKey`) and from the Go field types when it merges
 * a patch into a Pod.
 *
 * Every struct reachable from `Pod` is listed with ALL its JSON field names, not
 * only the tagged ones, because apimachinery needs the field to exist: when the
 * original and the patch both hold an object (or both a list) under a key that
 * the struct does not declare, it fails with "unable to find api field in
 * struct ...". Scalar fields are listed too, so that a map patched over a
 * scalar-typed field reports the same error Go would.
 *
 * Field lists come from the Kubernetes 1.30 API (the `kubernetes-types`
 * package), plus the fields added up to 1.34 that Istio's client-go knows
 * (restartPolicyRules, image volumes, podCertificate projections, ...).
 * Embedded `json:",inline"` structs (TypeMeta in Pod, VolumeSource in Volume,
 * EphemeralContainerCommon in EphemeralContainer) are flattened, as Go's JSON
 * field resolution flattens them.
 *
 * Type notation, Go-like: `string`, `int` (Go int32/int64: the width never
 * matters to a merge), `bool`; `Time`, `MicroTime`, `Quantity`, `IntOrString`
 * are Go structs with custom JSON (a string or number on the wire) and have no
 * JSON fields of their own; `[]T` is a slice; `map[string]T` a Go map (merged
 * key by key, its values typed T); any other name is a struct in this table.
 * A field written `[type, strategy, mergeKey?]` carries the struct tags.
 */

/** The `patchStrategy` struct tag values used by core/v1. */
export type PatchStrategy = "merge" | "replace" | "retainKeys" | "merge,retainKeys";

type FieldSpec = string | readonly [type: string, strategy: PatchStrategy, mergeKey?: string];

/** A Go type as the merge sees it. `name` is the Go type name (struct and opaque types). */
export type GoType =
  | { readonly kind: "scalar"; readonly name: string }
  | { readonly kind: "struct"; readonly name: string }
  | { readonly kind: "map"; readonly elem: GoType }
  | { readonly kind: "slice"; readonly elem: GoType };

/** One struct field: its Go type and struct tags. */
export interface FieldMeta {
  readonly jsonName: string;
  readonly type: GoType;
  /** `patchStrategy` split on commas, as apimachinery splits it (`[""]` when the tag is absent). */
  readonly strategies: readonly string[];
  /** `patchMergeKey`, or "" when absent. */
  readonly mergeKey: string;
}

/** Go types with custom JSON marshalling: scalars on the wire, structs with no JSON fields to Go. */
const OPAQUE_STRUCTS = new Set(["Time", "MicroTime", "Quantity", "IntOrString"]);
const SCALARS = new Set(["string", "int", "bool"]);

const STRUCTS: Readonly<Record<string, Readonly<Record<string, FieldSpec>>>> = {
  Pod: {
    apiVersion: "string",
    kind: "string",
    metadata: "ObjectMeta",
    spec: "PodSpec",
    status: "PodStatus",
  },
  ObjectMeta: {
    annotations: "map[string]string",
    creationTimestamp: "Time",
    deletionGracePeriodSeconds: "int",
    deletionTimestamp: "Time",
    finalizers: ["[]string", "merge"],
    generateName: "string",
    generation: "int",
    labels: "map[string]string",
    managedFields: "[]ManagedFieldsEntry",
    name: "string",
    namespace: "string",
    ownerReferences: ["[]OwnerReference", "merge", "uid"],
    resourceVersion: "string",
    selfLink: "string",
    uid: "string",
  },
  ManagedFieldsEntry: {
    apiVersion: "string",
    fieldsType: "string",
    fieldsV1: "FieldsV1",
    manager: "string",
    operation: "string",
    subresource: "string",
    time: "Time",
  },
  FieldsV1: {},
  OwnerReference: {
    apiVersion: "string",
    blockOwnerDeletion: "bool",
    controller: "bool",
    kind: "string",
    name: "string",
    uid: "string",
  },
  PodSpec: {
    activeDeadlineSeconds: "int",
    affinity: "Affinity",
    automountServiceAccountToken: "bool",
    containers: ["[]Container", "merge", "name"],
    dnsConfig: "PodDNSConfig",
    dnsPolicy: "string",
    enableServiceLinks: "bool",
    ephemeralContainers: ["[]EphemeralContainer", "merge", "name"],
    hostAliases: ["[]HostAlias", "merge", "ip"],
    hostIPC: "bool",
    hostNetwork: "bool",
    hostPID: "bool",
    hostUsers: "bool",
    hostname: "string",
    hostnameOverride: "string",
    imagePullSecrets: ["[]LocalObjectReference", "merge", "name"],
    initContainers: ["[]Container", "merge", "name"],
    nodeName: "string",
    nodeSelector: "map[string]string",
    os: "PodOS",
    overhead: "map[string]Quantity",
    preemptionPolicy: "string",
    priority: "int",
    priorityClassName: "string",
    readinessGates: "[]PodReadinessGate",
    resourceClaims: ["[]PodResourceClaim", "merge,retainKeys", "name"],
    resources: "ResourceRequirements",
    restartPolicy: "string",
    runtimeClassName: "string",
    schedulerName: "string",
    schedulingGates: ["[]PodSchedulingGate", "merge", "name"],
    securityContext: "PodSecurityContext",
    serviceAccount: "string",
    serviceAccountName: "string",
    setHostnameAsFQDN: "bool",
    shareProcessNamespace: "bool",
    subdomain: "string",
    terminationGracePeriodSeconds: "int",
    tolerations: "[]Toleration",
    topologySpreadConstraints: ["[]TopologySpreadConstraint", "merge", "topologyKey"],
    volumes: ["[]Volume", "merge,retainKeys", "name"],
  },
  Affinity: {
    nodeAffinity: "NodeAffinity",
    podAffinity: "PodAffinity",
    podAntiAffinity: "PodAntiAffinity",
  },
  NodeAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: "[]PreferredSchedulingTerm",
    requiredDuringSchedulingIgnoredDuringExecution: "NodeSelector",
  },
  PreferredSchedulingTerm: {
    preference: "NodeSelectorTerm",
    weight: "int",
  },
  NodeSelectorTerm: {
    matchExpressions: "[]NodeSelectorRequirement",
    matchFields: "[]NodeSelectorRequirement",
  },
  NodeSelectorRequirement: {
    key: "string",
    operator: "string",
    values: "[]string",
  },
  NodeSelector: {
    nodeSelectorTerms: "[]NodeSelectorTerm",
  },
  PodAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: "[]WeightedPodAffinityTerm",
    requiredDuringSchedulingIgnoredDuringExecution: "[]PodAffinityTerm",
  },
  WeightedPodAffinityTerm: {
    podAffinityTerm: "PodAffinityTerm",
    weight: "int",
  },
  PodAffinityTerm: {
    labelSelector: "LabelSelector",
    matchLabelKeys: "[]string",
    mismatchLabelKeys: "[]string",
    namespaceSelector: "LabelSelector",
    namespaces: "[]string",
    topologyKey: "string",
  },
  LabelSelector: {
    matchExpressions: "[]LabelSelectorRequirement",
    matchLabels: "map[string]string",
  },
  LabelSelectorRequirement: {
    key: "string",
    operator: "string",
    values: "[]string",
  },
  PodAntiAffinity: {
    preferredDuringSchedulingIgnoredDuringExecution: "[]WeightedPodAffinityTerm",
    requiredDuringSchedulingIgnoredDuringExecution: "[]PodAffinityTerm",
  },
  Container: {
    args: "[]string",
    command: "[]string",
    env: ["[]EnvVar", "merge", "name"],
    envFrom: "[]EnvFromSource",
    image: "string",
    imagePullPolicy: "string",
    lifecycle: "Lifecycle",
    livenessProbe: "Probe",
    name: "string",
    ports: ["[]ContainerPort", "merge", "containerPort"],
    readinessProbe: "Probe",
    resizePolicy: "[]ContainerResizePolicy",
    resources: "ResourceRequirements",
    restartPolicy: "string",
    restartPolicyRules: "[]ContainerRestartRule",
    securityContext: "SecurityContext",
    startupProbe: "Probe",
    stdin: "bool",
    stdinOnce: "bool",
    terminationMessagePath: "string",
    terminationMessagePolicy: "string",
    tty: "bool",
    volumeDevices: ["[]VolumeDevice", "merge", "devicePath"],
    volumeMounts: ["[]VolumeMount", "merge", "mountPath"],
    workingDir: "string",
  },
  EnvVar: {
    name: "string",
    value: "string",
    valueFrom: "EnvVarSource",
  },
  EnvVarSource: {
    configMapKeyRef: "ConfigMapKeySelector",
    fieldRef: "ObjectFieldSelector",
    fileKeyRef: "FileKeySelector",
    resourceFieldRef: "ResourceFieldSelector",
    secretKeyRef: "SecretKeySelector",
  },
  ConfigMapKeySelector: {
    key: "string",
    name: "string",
    optional: "bool",
  },
  ObjectFieldSelector: {
    apiVersion: "string",
    fieldPath: "string",
  },
  ResourceFieldSelector: {
    containerName: "string",
    divisor: "Quantity",
    resource: "string",
  },
  SecretKeySelector: {
    key: "string",
    name: "string",
    optional: "bool",
  },
  EnvFromSource: {
    configMapRef: "ConfigMapEnvSource",
    prefix: "string",
    secretRef: "SecretEnvSource",
  },
  ConfigMapEnvSource: {
    name: "string",
    optional: "bool",
  },
  SecretEnvSource: {
    name: "string",
    optional: "bool",
  },
  Lifecycle: {
    postStart: "LifecycleHandler",
    preStop: "LifecycleHandler",
    stopSignal: "string",
  },
  LifecycleHandler: {
    exec: "ExecAction",
    httpGet: "HTTPGetAction",
    sleep: "SleepAction",
    tcpSocket: "TCPSocketAction",
  },
  ExecAction: {
    command: "[]string",
  },
  HTTPGetAction: {
    host: "string",
    httpHeaders: "[]HTTPHeader",
    path: "string",
    port: "IntOrString",
    scheme: "string",
  },
  HTTPHeader: {
    name: "string",
    value: "string",
  },
  SleepAction: {
    seconds: "int",
  },
  TCPSocketAction: {
    host: "string",
    port: "IntOrString",
  },
  Probe: {
    exec: "ExecAction",
    failureThreshold: "int",
    grpc: "GRPCAction",
    httpGet: "HTTPGetAction",
    initialDelaySeconds: "int",
    periodSeconds: "int",
    successThreshold: "int",
    tcpSocket: "TCPSocketAction",
    terminationGracePeriodSeconds: "int",
    timeoutSeconds: "int",
  },
  GRPCAction: {
    port: "int",
    service: "string",
  },
  ContainerPort: {
    containerPort: "int",
    hostIP: "string",
    hostPort: "int",
    name: "string",
    protocol: "string",
  },
  ContainerResizePolicy: {
    resourceName: "string",
    restartPolicy: "string",
  },
  ResourceRequirements: {
    claims: "[]ResourceClaim",
    limits: "map[string]Quantity",
    requests: "map[string]Quantity",
  },
  ResourceClaim: {
    name: "string",
    request: "string",
  },
  SecurityContext: {
    allowPrivilegeEscalation: "bool",
    appArmorProfile: "AppArmorProfile",
    capabilities: "Capabilities",
    privileged: "bool",
    procMount: "string",
    readOnlyRootFilesystem: "bool",
    runAsGroup: "int",
    runAsNonRoot: "bool",
    runAsUser: "int",
    seLinuxOptions: "SELinuxOptions",
    seccompProfile: "SeccompProfile",
    windowsOptions: "WindowsSecurityContextOptions",
  },
  AppArmorProfile: {
    localhostProfile: "string",
    type: "string",
  },
  Capabilities: {
    add: "[]string",
    drop: "[]string",
  },
  SELinuxOptions: {
    level: "string",
    role: "string",
    type: "string",
    user: "string",
  },
  SeccompProfile: {
    localhostProfile: "string",
    type: "string",
  },
  WindowsSecurityContextOptions: {
    gmsaCredentialSpec: "string",
    gmsaCredentialSpecName: "string",
    hostProcess: "bool",
    runAsUserName: "string",
  },
  VolumeDevice: {
    devicePath: "string",
    name: "string",
  },
  VolumeMount: {
    mountPath: "string",
    mountPropagation: "string",
    name: "string",
    readOnly: "bool",
    recursiveReadOnly: "string",
    subPath: "string",
    subPathExpr: "string",
  },
  PodDNSConfig: {
    nameservers: "[]string",
    options: "[]PodDNSConfigOption",
    searches: "[]string",
  },
  PodDNSConfigOption: {
    name: "string",
    value: "string",
  },
  EphemeralContainer: {
    args: "[]string",
    command: "[]string",
    env: ["[]EnvVar", "merge", "name"],
    envFrom: "[]EnvFromSource",
    image: "string",
    imagePullPolicy: "string",
    lifecycle: "Lifecycle",
    livenessProbe: "Probe",
    name: "string",
    ports: ["[]ContainerPort", "merge", "containerPort"],
    readinessProbe: "Probe",
    resizePolicy: "[]ContainerResizePolicy",
    resources: "ResourceRequirements",
    restartPolicy: "string",
    restartPolicyRules: "[]ContainerRestartRule",
    securityContext: "SecurityContext",
    startupProbe: "Probe",
    stdin: "bool",
    stdinOnce: "bool",
    targetContainerName: "string",
    terminationMessagePath: "string",
    terminationMessagePolicy: "string",
    tty: "bool",
    volumeDevices: ["[]VolumeDevice", "merge", "devicePath"],
    volumeMounts: ["[]VolumeMount", "merge", "mountPath"],
    workingDir: "string",
  },
  HostAlias: {
    hostnames: "[]string",
    ip: "string",
  },
  LocalObjectReference: {
    name: "string",
  },
  PodOS: {
    name: "string",
  },
  PodReadinessGate: {
    conditionType: "string",
  },
  PodResourceClaim: {
    name: "string",
    resourceClaimName: "string",
    resourceClaimTemplateName: "string",
    source: "ClaimSource",
  },
  ClaimSource: {
    resourceClaimName: "string",
    resourceClaimTemplateName: "string",
  },
  PodSchedulingGate: {
    name: "string",
  },
  PodSecurityContext: {
    appArmorProfile: "AppArmorProfile",
    fsGroup: "int",
    fsGroupChangePolicy: "string",
    runAsGroup: "int",
    runAsNonRoot: "bool",
    runAsUser: "int",
    seLinuxChangePolicy: "string",
    seLinuxOptions: "SELinuxOptions",
    seccompProfile: "SeccompProfile",
    supplementalGroups: "[]int",
    supplementalGroupsPolicy: "string",
    sysctls: "[]Sysctl",
    windowsOptions: "WindowsSecurityContextOptions",
  },
  Sysctl: {
    name: "string",
    value: "string",
  },
  Toleration: {
    effect: "string",
    key: "string",
    operator: "string",
    tolerationSeconds: "int",
    value: "string",
  },
  TopologySpreadConstraint: {
    labelSelector: "LabelSelector",
    matchLabelKeys: "[]string",
    maxSkew: "int",
    minDomains: "int",
    nodeAffinityPolicy: "string",
    nodeTaintsPolicy: "string",
    topologyKey: "string",
    whenUnsatisfiable: "string",
  },
  Volume: {
    awsElasticBlockStore: "AWSElasticBlockStoreVolumeSource",
    azureDisk: "AzureDiskVolumeSource",
    azureFile: "AzureFileVolumeSource",
    cephfs: "CephFSVolumeSource",
    cinder: "CinderVolumeSource",
    configMap: "ConfigMapVolumeSource",
    csi: "CSIVolumeSource",
    downwardAPI: "DownwardAPIVolumeSource",
    emptyDir: "EmptyDirVolumeSource",
    ephemeral: "EphemeralVolumeSource",
    fc: "FCVolumeSource",
    flexVolume: "FlexVolumeSource",
    flocker: "FlockerVolumeSource",
    gcePersistentDisk: "GCEPersistentDiskVolumeSource",
    gitRepo: "GitRepoVolumeSource",
    glusterfs: "GlusterfsVolumeSource",
    hostPath: "HostPathVolumeSource",
    image: "ImageVolumeSource",
    iscsi: "ISCSIVolumeSource",
    name: "string",
    nfs: "NFSVolumeSource",
    persistentVolumeClaim: "PersistentVolumeClaimVolumeSource",
    photonPersistentDisk: "PhotonPersistentDiskVolumeSource",
    portworxVolume: "PortworxVolumeSource",
    projected: "ProjectedVolumeSource",
    quobyte: "QuobyteVolumeSource",
    rbd: "RBDVolumeSource",
    scaleIO: "ScaleIOVolumeSource",
    secret: "SecretVolumeSource",
    storageos: "StorageOSVolumeSource",
    vsphereVolume: "VsphereVirtualDiskVolumeSource",
  },
  AWSElasticBlockStoreVolumeSource: {
    fsType: "string",
    partition: "int",
    readOnly: "bool",
    volumeID: "string",
  },
  AzureDiskVolumeSource: {
    cachingMode: "string",
    diskName: "string",
    diskURI: "string",
    fsType: "string",
    kind: "string",
    readOnly: "bool",
  },
  AzureFileVolumeSource: {
    readOnly: "bool",
    secretName: "string",
    shareName: "string",
  },
  CephFSVolumeSource: {
    monitors: "[]string",
    path: "string",
    readOnly: "bool",
    secretFile: "string",
    secretRef: "LocalObjectReference",
    user: "string",
  },
  CinderVolumeSource: {
    fsType: "string",
    readOnly: "bool",
    secretRef: "LocalObjectReference",
    volumeID: "string",
  },
  ConfigMapVolumeSource: {
    defaultMode: "int",
    items: "[]KeyToPath",
    name: "string",
    optional: "bool",
  },
  KeyToPath: {
    key: "string",
    mode: "int",
    path: "string",
  },
  CSIVolumeSource: {
    driver: "string",
    fsType: "string",
    nodePublishSecretRef: "LocalObjectReference",
    readOnly: "bool",
    volumeAttributes: "map[string]string",
  },
  DownwardAPIVolumeSource: {
    defaultMode: "int",
    items: "[]DownwardAPIVolumeFile",
  },
  DownwardAPIVolumeFile: {
    fieldRef: "ObjectFieldSelector",
    mode: "int",
    path: "string",
    resourceFieldRef: "ResourceFieldSelector",
  },
  EmptyDirVolumeSource: {
    medium: "string",
    sizeLimit: "Quantity",
  },
  EphemeralVolumeSource: {
    volumeClaimTemplate: "PersistentVolumeClaimTemplate",
  },
  PersistentVolumeClaimTemplate: {
    metadata: "ObjectMeta",
    spec: "PersistentVolumeClaimSpec",
  },
  PersistentVolumeClaimSpec: {
    accessModes: "[]string",
    dataSource: "TypedLocalObjectReference",
    dataSourceRef: "TypedObjectReference",
    resources: "VolumeResourceRequirements",
    selector: "LabelSelector",
    storageClassName: "string",
    volumeAttributesClassName: "string",
    volumeMode: "string",
    volumeName: "string",
  },
  TypedLocalObjectReference: {
    apiGroup: "string",
    kind: "string",
    name: "string",
  },
  TypedObjectReference: {
    apiGroup: "string",
    kind: "string",
    name: "string",
    namespace: "string",
  },
  VolumeResourceRequirements: {
    limits: "map[string]Quantity",
    requests: "map[string]Quantity",
  },
  FCVolumeSource: {
    fsType: "string",
    lun: "int",
    readOnly: "bool",
    targetWWNs: "[]string",
    wwids: "[]string",
  },
  FlexVolumeSource: {
    driver: "string",
    fsType: "string",
    options: "map[string]string",
    readOnly: "bool",
    secretRef: "LocalObjectReference",
  },
  FlockerVolumeSource: {
    datasetName: "string",
    datasetUUID: "string",
  },
  GCEPersistentDiskVolumeSource: {
    fsType: "string",
    partition: "int",
    pdName: "string",
    readOnly: "bool",
  },
  GitRepoVolumeSource: {
    directory: "string",
    repository: "string",
    revision: "string",
  },
  GlusterfsVolumeSource: {
    endpoints: "string",
    path: "string",
    readOnly: "bool",
  },
  HostPathVolumeSource: {
    path: "string",
    type: "string",
  },
  ISCSIVolumeSource: {
    chapAuthDiscovery: "bool",
    chapAuthSession: "bool",
    fsType: "string",
    initiatorName: "string",
    iqn: "string",
    iscsiInterface: "string",
    lun: "int",
    portals: "[]string",
    readOnly: "bool",
    secretRef: "LocalObjectReference",
    targetPortal: "string",
  },
  NFSVolumeSource: {
    path: "string",
    readOnly: "bool",
    server: "string",
  },
  PersistentVolumeClaimVolumeSource: {
    claimName: "string",
    readOnly: "bool",
  },
  PhotonPersistentDiskVolumeSource: {
    fsType: "string",
    pdID: "string",
  },
  PortworxVolumeSource: {
    fsType: "string",
    readOnly: "bool",
    volumeID: "string",
  },
  ProjectedVolumeSource: {
    defaultMode: "int",
    sources: "[]VolumeProjection",
  },
  VolumeProjection: {
    clusterTrustBundle: "ClusterTrustBundleProjection",
    configMap: "ConfigMapProjection",
    downwardAPI: "DownwardAPIProjection",
    podCertificate: "PodCertificateProjection",
    secret: "SecretProjection",
    serviceAccountToken: "ServiceAccountTokenProjection",
  },
  ClusterTrustBundleProjection: {
    labelSelector: "LabelSelector",
    name: "string",
    optional: "bool",
    path: "string",
    signerName: "string",
  },
  ConfigMapProjection: {
    items: "[]KeyToPath",
    name: "string",
    optional: "bool",
  },
  DownwardAPIProjection: {
    items: "[]DownwardAPIVolumeFile",
  },
  SecretProjection: {
    items: "[]KeyToPath",
    name: "string",
    optional: "bool",
  },
  ServiceAccountTokenProjection: {
    audience: "string",
    expirationSeconds: "int",
    path: "string",
  },
  QuobyteVolumeSource: {
    group: "string",
    readOnly: "bool",
    registry: "string",
    tenant: "string",
    user: "string",
    volume: "string",
  },
  RBDVolumeSource: {
    fsType: "string",
    image: "string",
    keyring: "string",
    monitors: "[]string",
    pool: "string",
    readOnly: "bool",
    secretRef: "LocalObjectReference",
    user: "string",
  },
  ScaleIOVolumeSource: {
    fsType: "string",
    gateway: "string",
    protectionDomain: "string",
    readOnly: "bool",
    secretRef: "LocalObjectReference",
    sslEnabled: "bool",
    storageMode: "string",
    storagePool: "string",
    system: "string",
    volumeName: "string",
  },
  SecretVolumeSource: {
    defaultMode: "int",
    items: "[]KeyToPath",
    optional: "bool",
    secretName: "string",
  },
  StorageOSVolumeSource: {
    fsType: "string",
    readOnly: "bool",
    secretRef: "LocalObjectReference",
    volumeName: "string",
    volumeNamespace: "string",
  },
  VsphereVirtualDiskVolumeSource: {
    fsType: "string",
    storagePolicyID: "string",
    storagePolicyName: "string",
    volumePath: "string",
  },
  PodStatus: {
    conditions: ["[]PodCondition", "merge", "type"],
    containerStatuses: "[]ContainerStatus",
    ephemeralContainerStatuses: "[]ContainerStatus",
    hostIP: "string",
    hostIPs: ["[]HostIP", "merge", "ip"],
    initContainerStatuses: "[]ContainerStatus",
    message: "string",
    nominatedNodeName: "string",
    observedGeneration: "int",
    phase: "string",
    podIP: "string",
    podIPs: ["[]PodIP", "merge", "ip"],
    qosClass: "string",
    reason: "string",
    resize: "string",
    resourceClaimStatuses: ["[]PodResourceClaimStatus", "merge,retainKeys", "name"],
    startTime: "Time",
  },
  PodCondition: {
    lastProbeTime: "Time",
    lastTransitionTime: "Time",
    message: "string",
    observedGeneration: "int",
    reason: "string",
    status: "string",
    type: "string",
  },
  ContainerStatus: {
    allocatedResources: "map[string]Quantity",
    allocatedResourcesStatus: ["[]ResourceStatus", "merge", "name"],
    containerID: "string",
    image: "string",
    imageID: "string",
    lastState: "ContainerState",
    name: "string",
    ready: "bool",
    resources: "ResourceRequirements",
    restartCount: "int",
    started: "bool",
    state: "ContainerState",
    stopSignal: "string",
    user: "ContainerUser",
    volumeMounts: "[]VolumeMountStatus",
  },
  ContainerState: {
    running: "ContainerStateRunning",
    terminated: "ContainerStateTerminated",
    waiting: "ContainerStateWaiting",
  },
  ContainerStateRunning: {
    startedAt: "Time",
  },
  ContainerStateTerminated: {
    containerID: "string",
    exitCode: "int",
    finishedAt: "Time",
    message: "string",
    reason: "string",
    signal: "int",
    startedAt: "Time",
  },
  ContainerStateWaiting: {
    message: "string",
    reason: "string",
  },
  VolumeMountStatus: {
    mountPath: "string",
    name: "string",
    readOnly: "bool",
    recursiveReadOnly: "string",
  },
  HostIP: {
    ip: "string",
  },
  PodIP: {
    ip: "string",
  },
  PodResourceClaimStatus: {
    name: "string",
    resourceClaimName: "string",
  },
  ContainerRestartRule: {
    action: "string",
    exitCodes: "ContainerRestartRuleOnExitCodes",
  },
  ContainerRestartRuleOnExitCodes: {
    operator: "string",
    values: "[]int",
  },
  ImageVolumeSource: {
    pullPolicy: "string",
    reference: "string",
  },
  PodCertificateProjection: {
    certificateChainPath: "string",
    credentialBundlePath: "string",
    keyPath: "string",
    keyType: "string",
    maxExpirationSeconds: "int",
    signerName: "string",
  },
  FileKeySelector: {
    key: "string",
    optional: "bool",
    path: "string",
    volumeName: "string",
  },
  ResourceStatus: {
    name: "string",
    resources: "[]ResourceHealth",
  },
  ResourceHealth: {
    health: "string",
    resourceID: "string",
  },
  ContainerUser: {
    linux: "LinuxContainerUser",
  },
  LinuxContainerUser: {
    gid: "int",
    supplementalGroups: "[]int",
    uid: "int",
  },
  PodTemplateSpec: {
    metadata: "ObjectMeta",
    spec: "PodSpec",
  },
};

/** Parses the table's type notation. */
export function parseGoType(text: string): GoType {
  if (text.startsWith("[]")) return { kind: "slice", elem: parseGoType(text.slice(2)) };
  if (text.startsWith("map[string]")) return { kind: "map", elem: parseGoType(text.slice(11)) };
  if (SCALARS.has(text)) return { kind: "scalar", name: text };
  if (OPAQUE_STRUCTS.has(text)) return { kind: "scalar", name: text };
  if (Object.hasOwn(STRUCTS, text)) return { kind: "struct", name: text };
  throw new Error(`merge-keys: unknown Go type ${JSON.stringify(text)}`);
}

/**
 * The Go `reflect.Kind` name of a type, as apimachinery prints it in messages
 * ("struct", "map", "slice", "string", ...). The opaque types are Go structs.
 */
export function goKindName(type: GoType): string {
  switch (type.kind) {
    case "struct":
      return "struct";
    case "map":
      return "map";
    case "slice":
      return "slice";
    case "scalar":
      if (OPAQUE_STRUCTS.has(type.name)) return "struct";
      return type.name === "int" ? "int64" : type.name;
  }
}

const fieldCache = new Map<string, ReadonlyMap<string, FieldMeta>>();

/** All JSON fields of a struct in the table, or undefined when the name is not a struct here. */
export function structFields(structName: string): ReadonlyMap<string, FieldMeta> | undefined {
  const cached = fieldCache.get(structName);
  if (cached) return cached;
  if (OPAQUE_STRUCTS.has(structName)) {
    const empty = new Map<string, FieldMeta>();
    fieldCache.set(structName, empty);
    return empty;
  }
  if (!Object.hasOwn(STRUCTS, structName)) return undefined;
  const fields = new Map<string, FieldMeta>();
  for (const [jsonName, spec] of Object.entries(STRUCTS[structName])) {
    const [typeText, strategy, mergeKey] = typeof spec === "string" ? [spec, undefined, undefined] : spec;
    fields.set(jsonName, {
      jsonName,
      type: parseGoType(typeText),
      strategies: (strategy ?? "").split(","),
      mergeKey: mergeKey ?? "",
    });
  }
  fieldCache.set(structName, fields);
  return fields;
}

/** The struct type named `name` (e.g. "Pod", "PodSpec", "Container"), or undefined. */
export function structType(name: string): GoType | undefined {
  return Object.hasOwn(STRUCTS, name) ? { kind: "struct", name } : undefined;
}

/**
 * Finds the field a JSON key maps to, the way Go's encoding/json does (and
 * apimachinery's fork of it): an exact match first, otherwise a
 * case-insensitive one.
 */
export function lookupField(structName: string, key: string): FieldMeta | undefined {
  const fields = structFields(structName);
  if (!fields) return undefined;
  const exact = fields.get(key);
  if (exact) return exact;
  const folded = key.toLowerCase();
  for (const field of fields.values()) {
    if (field.jsonName.toLowerCase() === folded) return field;
  }
  return undefined;
}

/** Names of all structs in the table (for tests and tooling). */
export function structNames(): string[] {
  return Object.keys(STRUCTS);
}
