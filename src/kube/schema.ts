/**
 * The Kubernetes Go types that pods and workloads are made of, as data: for each struct, its fields
 * in Go declaration order with the Go name, the JSON name, whether the JSON tag says `omitempty`
 * (or `omitzero`), the field type, and the strategic-merge-patch tags (`patchStrategy`,
 * `patchMergeKey`). This is the one table both typed marshalling (./typed.ts, ./go-view.ts) and the
 * strategic merge (./strategic-merge.ts, through ./merge-keys.ts) read.
 *
 * Sources: k8s.io/api core/v1, apps/v1 and batch/v1 `types.go`, k8s.io/apimachinery meta/v1
 * `types.go` (Kubernetes 1.34, the version Istio's golden files were produced with) and
 * github.com/openshift/api apps/v1 `types.go` for DeploymentConfig.
 *
 * Kept by hand, checked by a test: what typed marshalling and the merge need are Go facts
 * (declaration order, Go names, pointers, `omitempty`/`omitzero`, the patch tags) that no form of the
 * API published on npm carries (the OpenAPI-generated models list fields alphabetically, by JSON name,
 * without them). schema-openapi.test.ts checks every struct's JSON fields and their types against
 * @kubernetes/client-node's models of the same Kubernetes version.
 *
 * Depth of typed marshalling: some values are kept as they are given rather than decoded field by
 * field. A struct listed in {@link OPAQUE} (`Affinity`, `PodStatus`...) is kept as given wherever it
 * appears; a field flagged `raw` (`EphemeralContainers`, the in-tree volume sources...) has its Go type
 * recorded for the merge, but typed marshalling and template views treat it as an unmodelled value
 * (type `raw`: `[]raw`, `*raw`), and so does `%T`. The strategic merge always sees the Go types.
 *
 * Type grammar: a scalar (`string`, `int32`, `int64`, `bool`, `float64`, `quantity`, `intOrString`,
 * `time`, `raw`), a struct name, `*T` (pointer), `[]T` (slice), `map[string]T` (map).
 */

export type ScalarType =
  | "string"
  | "int32"
  | "int64"
  | "bool"
  | "float64"
  | "quantity"
  | "intOrString"
  | "time"
  | "raw";

export interface FieldDef {
  /** Go field name, e.g. `ReadinessProbe`. Embedded structs use the type name. */
  readonly go: string;
  /** JSON name (empty for `json:",inline"` embedded structs). */
  readonly json: string;
  /** The Go type of the field, in the grammar above. */
  readonly goType: string;
  /**
   * The type typed marshalling and template views use: `goType`, except for a field flagged `raw`,
   * where the struct in it is replaced by `raw` (`[]EphemeralContainer` → `[]raw`).
   */
  readonly type: string;
  /** The JSON tag has `omitempty` (for a struct-typed field this changes nothing in encoding/json). */
  readonly omitempty: boolean;
  /** The JSON tag has `omitzero` (Go 1.24): the zero value is omitted, structs included. */
  readonly omitzero?: boolean;
  /** `json:",inline"`: the struct's fields are flattened into the parent. */
  readonly inline?: boolean;
  /** The `patchStrategy` tag (`merge`, `merge,retainKeys`), or "" when absent. */
  readonly patchStrategy: string;
  /** The `patchMergeKey` tag, or "" when absent. */
  readonly patchMergeKey: string;
}

export interface StructDef {
  readonly name: string;
  /** Go package name as `%T` prints it (`v1` for all the Kubernetes and OpenShift packages here). */
  readonly pkg: string;
  readonly fields: readonly FieldDef[];
  /** Kept as given by typed marshalling (absent → `{}`); its fields still serve the merge. */
  readonly opaque?: boolean;
}

/**
 * The compact notation of the table: `goName json type [flag...]`, json `-` marking an inline embed.
 * Flags: `o` (omitempty), `oz` (omitempty and omitzero), `raw` (kept as given by typed marshalling),
 * `merge` / `merge:key` / `merge,retainKeys:key` (patchStrategy and patchMergeKey).
 */
type Row = string;

function parseRow(row: Row): FieldDef {
  // Words are separated by one space. Read without a regular expression, destructuring or spreads:
  // a short command reads a few hundred rows in V8's interpreter, which allocates for each of them.
  const words = row.split(" ");
  if (words.includes("")) throw new Error(`bad schema row (one space between words): ${row}`);
  const go = words[0];
  const json = words[1];
  const goType = words[2];
  if (go === undefined || json === undefined || goType === undefined) throw new Error(`bad schema row: ${row}`);
  let omitempty = false;
  let omitzero: boolean | undefined;
  let raw = false;
  let patchStrategy = "";
  let patchMergeKey = "";
  for (let i = 3; i < words.length; i++) {
    const flag = words[i] as string;
    if (flag === "o" || flag === "oz") {
      omitempty = true;
      if (flag === "oz") omitzero = true;
    } else if (flag === "raw") raw = true;
    else if (flag.startsWith("merge")) {
      const tags = flag.split(":");
      patchStrategy = tags[0] ?? "";
      patchMergeKey = tags[1] ?? "";
    } else throw new Error(`bad schema row: ${row}`);
  }
  const type = raw ? goType.replace(/\w+$/, "raw") : goType;
  return json === "-"
    ? { go, goType, type, omitempty, patchStrategy, patchMergeKey, json: "", inline: true }
    : { go, goType, type, omitempty, patchStrategy, patchMergeKey, json, omitzero };
}

/**
 * Structs typed marshalling keeps as given. Their fields are listed all the same: the strategic
 * merge needs them (a patch merging into `affinity` must know its lists and structs).
 */
const OPAQUE = new Set(["PodStatus", "Affinity", "TopologySpreadConstraint", "FieldsV1"]);

/** The fields of `Container`, which `EphemeralContainerCommon` repeats. */
const CONTAINER_FIELDS: readonly Row[] = [
  "Name name string",
  "Image image string o",
  "Command command []string o",
  "Args args []string o",
  "WorkingDir workingDir string o",
  "Ports ports []ContainerPort o merge:containerPort",
  "EnvFrom envFrom []EnvFromSource o",
  "Env env []EnvVar o merge:name",
  "Resources resources ResourceRequirements o",
  "ResizePolicy resizePolicy []ContainerResizePolicy o",
  "RestartPolicy restartPolicy *string o",
  "RestartPolicyRules restartPolicyRules []ContainerRestartRule o raw",
  "VolumeMounts volumeMounts []VolumeMount o merge:mountPath",
  "VolumeDevices volumeDevices []VolumeDevice o merge:devicePath",
  "LivenessProbe livenessProbe *Probe o",
  "ReadinessProbe readinessProbe *Probe o",
  "StartupProbe startupProbe *Probe o",
  "Lifecycle lifecycle *Lifecycle o",
  "TerminationMessagePath terminationMessagePath string o",
  "TerminationMessagePolicy terminationMessagePolicy string o",
  "ImagePullPolicy imagePullPolicy string o",
  "SecurityContext securityContext *SecurityContext o",
  "Stdin stdin bool o",
  "StdinOnce stdinOnce bool o",
  "TTY tty bool o",
];

const TABLE: Record<string, readonly Row[]> = {
  // meta/v1
  TypeMeta: ["Kind kind string o", "APIVersion apiVersion string o"],
  ObjectMeta: [
    "Name name string o",
    "GenerateName generateName string o",
    "Namespace namespace string o",
    "SelfLink selfLink string o",
    "UID uid string o",
    "ResourceVersion resourceVersion string o",
    "Generation generation int64 o",
    "CreationTimestamp creationTimestamp time oz",
    "DeletionTimestamp deletionTimestamp *time o",
    "DeletionGracePeriodSeconds deletionGracePeriodSeconds *int64 o",
    "Labels labels map[string]string o",
    "Annotations annotations map[string]string o",
    "OwnerReferences ownerReferences []OwnerReference o merge:uid",
    "Finalizers finalizers []string o merge",
    "ManagedFields managedFields []ManagedFieldsEntry o raw",
  ],
  OwnerReference: [
    "APIVersion apiVersion string",
    "Kind kind string",
    "Name name string",
    "UID uid string",
    "Controller controller *bool o",
    "BlockOwnerDeletion blockOwnerDeletion *bool o",
  ],
  ListMeta: [
    "SelfLink selfLink string o",
    "ResourceVersion resourceVersion string o",
    "Continue continue string o",
    "RemainingItemCount remainingItemCount *int64 o",
  ],
  LabelSelector: [
    "MatchLabels matchLabels map[string]string o",
    "MatchExpressions matchExpressions []LabelSelectorRequirement o",
  ],
  LabelSelectorRequirement: ["Key key string", "Operator operator string", "Values values []string o"],
  ManagedFieldsEntry: [
    "Manager manager string o",
    "Operation operation string o",
    "APIVersion apiVersion string o",
    "Time time *time o",
    "FieldsType fieldsType string o",
    "FieldsV1 fieldsV1 *FieldsV1 o",
    "Subresource subresource string o",
  ],
  // Custom JSON (the raw field set): no JSON fields of its own.
  FieldsV1: [],

  // core/v1: pods
  Pod: ["TypeMeta - TypeMeta", "ObjectMeta metadata ObjectMeta o", "Spec spec PodSpec o", "Status status PodStatus o"],
  PodTemplateSpec: ["ObjectMeta metadata ObjectMeta o", "Spec spec PodSpec o"],
  PodSpec: [
    "Volumes volumes []Volume o merge,retainKeys:name",
    "InitContainers initContainers []Container o merge:name",
    "Containers containers []Container merge:name",
    "EphemeralContainers ephemeralContainers []EphemeralContainer o raw merge:name",
    "RestartPolicy restartPolicy string o",
    "TerminationGracePeriodSeconds terminationGracePeriodSeconds *int64 o",
    "ActiveDeadlineSeconds activeDeadlineSeconds *int64 o",
    "DNSPolicy dnsPolicy string o",
    "NodeSelector nodeSelector map[string]string o",
    "ServiceAccountName serviceAccountName string o",
    "DeprecatedServiceAccount serviceAccount string o",
    "AutomountServiceAccountToken automountServiceAccountToken *bool o",
    "NodeName nodeName string o",
    "HostNetwork hostNetwork bool o",
    "HostPID hostPID bool o",
    "HostIPC hostIPC bool o",
    "ShareProcessNamespace shareProcessNamespace *bool o",
    "SecurityContext securityContext *PodSecurityContext o",
    "ImagePullSecrets imagePullSecrets []LocalObjectReference o merge:name",
    "Hostname hostname string o",
    "Subdomain subdomain string o",
    "Affinity affinity *Affinity o",
    "SchedulerName schedulerName string o",
    "Tolerations tolerations []Toleration o",
    "HostAliases hostAliases []HostAlias o merge:ip",
    "PriorityClassName priorityClassName string o",
    "Priority priority *int32 o",
    "DNSConfig dnsConfig *PodDNSConfig o",
    "ReadinessGates readinessGates []PodReadinessGate o",
    "RuntimeClassName runtimeClassName *string o",
    "EnableServiceLinks enableServiceLinks *bool o",
    "PreemptionPolicy preemptionPolicy *string o",
    "Overhead overhead map[string]quantity o",
    "TopologySpreadConstraints topologySpreadConstraints []TopologySpreadConstraint o merge:topologyKey",
    "SetHostnameAsFQDN setHostnameAsFQDN *bool o",
    "OS os *PodOS o",
    "HostUsers hostUsers *bool o",
    "SchedulingGates schedulingGates []PodSchedulingGate o raw merge:name",
    "ResourceClaims resourceClaims []PodResourceClaim o raw merge,retainKeys:name",
    "Resources resources *ResourceRequirements o",
    "HostnameOverride hostnameOverride *string o",
  ],
  PodSchedulingGate: ["Name name string"],
  PodResourceClaim: [
    "Name name string",
    // Tombstoned since Kubernetes 1.31; kept from the 1.30 field list the merge was first written against.
    "Source source ClaimSource o",
    "ResourceClaimName resourceClaimName *string o",
    "ResourceClaimTemplateName resourceClaimTemplateName *string o",
  ],
  ClaimSource: [
    "ResourceClaimName resourceClaimName *string o",
    "ResourceClaimTemplateName resourceClaimTemplateName *string o",
  ],
  Affinity: [
    "NodeAffinity nodeAffinity *NodeAffinity o",
    "PodAffinity podAffinity *PodAffinity o",
    "PodAntiAffinity podAntiAffinity *PodAntiAffinity o",
  ],
  NodeAffinity: [
    "RequiredDuringSchedulingIgnoredDuringExecution requiredDuringSchedulingIgnoredDuringExecution *NodeSelector o",
    "PreferredDuringSchedulingIgnoredDuringExecution preferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm o",
  ],
  NodeSelector: ["NodeSelectorTerms nodeSelectorTerms []NodeSelectorTerm"],
  NodeSelectorTerm: [
    "MatchExpressions matchExpressions []NodeSelectorRequirement o",
    "MatchFields matchFields []NodeSelectorRequirement o",
  ],
  NodeSelectorRequirement: ["Key key string", "Operator operator string", "Values values []string o"],
  PreferredSchedulingTerm: ["Weight weight int32", "Preference preference NodeSelectorTerm"],
  PodAffinity: [
    "RequiredDuringSchedulingIgnoredDuringExecution requiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm o",
    "PreferredDuringSchedulingIgnoredDuringExecution preferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm o",
  ],
  PodAntiAffinity: [
    "RequiredDuringSchedulingIgnoredDuringExecution requiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm o",
    "PreferredDuringSchedulingIgnoredDuringExecution preferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm o",
  ],
  WeightedPodAffinityTerm: ["Weight weight int32", "PodAffinityTerm podAffinityTerm PodAffinityTerm"],
  PodAffinityTerm: [
    "LabelSelector labelSelector *LabelSelector o",
    "Namespaces namespaces []string o",
    "TopologyKey topologyKey string",
    "NamespaceSelector namespaceSelector *LabelSelector o",
    "MatchLabelKeys matchLabelKeys []string o",
    "MismatchLabelKeys mismatchLabelKeys []string o",
  ],
  TopologySpreadConstraint: [
    "MaxSkew maxSkew int32",
    "TopologyKey topologyKey string",
    "WhenUnsatisfiable whenUnsatisfiable string",
    "LabelSelector labelSelector *LabelSelector o",
    "MinDomains minDomains *int32 o",
    "NodeAffinityPolicy nodeAffinityPolicy *string o",
    "NodeTaintsPolicy nodeTaintsPolicy *string o",
    "MatchLabelKeys matchLabelKeys []string o",
  ],
  PodOS: ["Name name string"],
  PodReadinessGate: ["ConditionType conditionType string"],
  PodDNSConfig: [
    "Nameservers nameservers []string o",
    "Searches searches []string o",
    "Options options []PodDNSConfigOption o",
  ],
  PodDNSConfigOption: ["Name name string o", "Value value *string o"],
  HostAlias: ["IP ip string", "Hostnames hostnames []string o"],
  Toleration: [
    "Key key string o",
    "Operator operator string o",
    "Value value string o",
    "Effect effect string o",
    "TolerationSeconds tolerationSeconds *int64 o",
  ],
  LocalObjectReference: ["Name name string o"],
  PodSecurityContext: [
    "SELinuxOptions seLinuxOptions *SELinuxOptions o",
    "WindowsOptions windowsOptions *WindowsSecurityContextOptions o",
    "RunAsUser runAsUser *int64 o",
    "RunAsGroup runAsGroup *int64 o",
    "RunAsNonRoot runAsNonRoot *bool o",
    "SupplementalGroups supplementalGroups []int64 o",
    "SupplementalGroupsPolicy supplementalGroupsPolicy *string o",
    "FSGroup fsGroup *int64 o",
    "Sysctls sysctls []Sysctl o",
    "FSGroupChangePolicy fsGroupChangePolicy *string o",
    "SeccompProfile seccompProfile *SeccompProfile o",
    "AppArmorProfile appArmorProfile *AppArmorProfile o",
    "SELinuxChangePolicy seLinuxChangePolicy *string o",
  ],
  Sysctl: ["Name name string", "Value value string"],

  // core/v1: containers
  Container: CONTAINER_FIELDS,
  // The same fields under another name (Go converts one into the other), inlined in EphemeralContainer.
  EphemeralContainerCommon: CONTAINER_FIELDS,
  EphemeralContainer: [
    "EphemeralContainerCommon - EphemeralContainerCommon",
    "TargetContainerName targetContainerName string o",
  ],
  ContainerRestartRule: ["Action action string o", "ExitCodes exitCodes *ContainerRestartRuleOnExitCodes o"],
  ContainerRestartRuleOnExitCodes: ["Operator operator string o", "Values values []int32 o"],
  ContainerPort: [
    "Name name string o",
    "HostPort hostPort int32 o",
    "ContainerPort containerPort int32",
    "Protocol protocol string o",
    "HostIP hostIP string o",
  ],
  ContainerResizePolicy: ["ResourceName resourceName string", "RestartPolicy restartPolicy string"],
  EnvFromSource: [
    "Prefix prefix string o",
    "ConfigMapRef configMapRef *ConfigMapEnvSource o",
    "SecretRef secretRef *SecretEnvSource o",
  ],
  ConfigMapEnvSource: ["LocalObjectReference - LocalObjectReference", "Optional optional *bool o"],
  SecretEnvSource: ["LocalObjectReference - LocalObjectReference", "Optional optional *bool o"],
  EnvVar: ["Name name string", "Value value string o", "ValueFrom valueFrom *EnvVarSource o"],
  EnvVarSource: [
    "FieldRef fieldRef *ObjectFieldSelector o",
    "ResourceFieldRef resourceFieldRef *ResourceFieldSelector o",
    "ConfigMapKeyRef configMapKeyRef *ConfigMapKeySelector o",
    "SecretKeyRef secretKeyRef *SecretKeySelector o",
    "FileKeyRef fileKeyRef *FileKeySelector o raw",
  ],
  FileKeySelector: ["VolumeName volumeName string", "Path path string", "Key key string", "Optional optional *bool o"],
  ObjectFieldSelector: ["APIVersion apiVersion string o", "FieldPath fieldPath string"],
  ResourceFieldSelector: [
    "ContainerName containerName string o",
    "Resource resource string",
    "Divisor divisor quantity o",
  ],
  ConfigMapKeySelector: ["LocalObjectReference - LocalObjectReference", "Key key string", "Optional optional *bool o"],
  SecretKeySelector: ["LocalObjectReference - LocalObjectReference", "Key key string", "Optional optional *bool o"],
  ResourceRequirements: [
    "Limits limits map[string]quantity o",
    "Requests requests map[string]quantity o",
    "Claims claims []ResourceClaim o",
  ],
  ResourceClaim: ["Name name string", "Request request string o"],
  VolumeMount: [
    "Name name string",
    "ReadOnly readOnly bool o",
    "RecursiveReadOnly recursiveReadOnly *string o",
    "MountPath mountPath string",
    "SubPath subPath string o",
    "MountPropagation mountPropagation *string o",
    "SubPathExpr subPathExpr string o",
  ],
  VolumeDevice: ["Name name string", "DevicePath devicePath string"],
  Probe: [
    "ProbeHandler - ProbeHandler",
    "InitialDelaySeconds initialDelaySeconds int32 o",
    "TimeoutSeconds timeoutSeconds int32 o",
    "PeriodSeconds periodSeconds int32 o",
    "SuccessThreshold successThreshold int32 o",
    "FailureThreshold failureThreshold int32 o",
    "TerminationGracePeriodSeconds terminationGracePeriodSeconds *int64 o",
  ],
  ProbeHandler: [
    "Exec exec *ExecAction o",
    "HTTPGet httpGet *HTTPGetAction o",
    "TCPSocket tcpSocket *TCPSocketAction o",
    "GRPC grpc *GRPCAction o",
  ],
  ExecAction: ["Command command []string o"],
  HTTPGetAction: [
    "Path path string o",
    "Port port intOrString",
    "Host host string o",
    "Scheme scheme string o",
    "HTTPHeaders httpHeaders []HTTPHeader o",
  ],
  HTTPHeader: ["Name name string", "Value value string"],
  TCPSocketAction: ["Port port intOrString", "Host host string o"],
  GRPCAction: ["Port port int32", "Service service *string"],
  Lifecycle: [
    "PostStart postStart *LifecycleHandler o",
    "PreStop preStop *LifecycleHandler o",
    "StopSignal stopSignal *string o",
  ],
  LifecycleHandler: [
    "Exec exec *ExecAction o",
    "HTTPGet httpGet *HTTPGetAction o",
    "TCPSocket tcpSocket *TCPSocketAction o",
    "Sleep sleep *SleepAction o",
  ],
  SleepAction: ["Seconds seconds int64"],
  SecurityContext: [
    "Capabilities capabilities *Capabilities o",
    "Privileged privileged *bool o",
    "SELinuxOptions seLinuxOptions *SELinuxOptions o",
    "WindowsOptions windowsOptions *WindowsSecurityContextOptions o",
    "RunAsUser runAsUser *int64 o",
    "RunAsGroup runAsGroup *int64 o",
    "RunAsNonRoot runAsNonRoot *bool o",
    "ReadOnlyRootFilesystem readOnlyRootFilesystem *bool o",
    "AllowPrivilegeEscalation allowPrivilegeEscalation *bool o",
    "ProcMount procMount *string o",
    "SeccompProfile seccompProfile *SeccompProfile o",
    "AppArmorProfile appArmorProfile *AppArmorProfile o",
  ],
  Capabilities: ["Add add []string o", "Drop drop []string o"],
  SELinuxOptions: ["User user string o", "Role role string o", "Type type string o", "Level level string o"],
  WindowsSecurityContextOptions: [
    "GMSACredentialSpecName gmsaCredentialSpecName *string o",
    "GMSACredentialSpec gmsaCredentialSpec *string o",
    "RunAsUserName runAsUserName *string o",
    "HostProcess hostProcess *bool o",
  ],
  SeccompProfile: ["Type type string", "LocalhostProfile localhostProfile *string o"],
  AppArmorProfile: ["Type type string", "LocalhostProfile localhostProfile *string o"],

  // core/v1: volumes
  Volume: ["Name name string", "VolumeSource - VolumeSource"],
  VolumeSource: [
    "HostPath hostPath *HostPathVolumeSource o",
    "EmptyDir emptyDir *EmptyDirVolumeSource o",
    "GCEPersistentDisk gcePersistentDisk *GCEPersistentDiskVolumeSource o raw",
    "AWSElasticBlockStore awsElasticBlockStore *AWSElasticBlockStoreVolumeSource o raw",
    "GitRepo gitRepo *GitRepoVolumeSource o raw",
    "Secret secret *SecretVolumeSource o",
    "NFS nfs *NFSVolumeSource o raw",
    "ISCSI iscsi *ISCSIVolumeSource o raw",
    "Glusterfs glusterfs *GlusterfsVolumeSource o raw",
    "PersistentVolumeClaim persistentVolumeClaim *PersistentVolumeClaimVolumeSource o",
    "RBD rbd *RBDVolumeSource o raw",
    "FlexVolume flexVolume *FlexVolumeSource o raw",
    "Cinder cinder *CinderVolumeSource o raw",
    "CephFS cephfs *CephFSVolumeSource o raw",
    "Flocker flocker *FlockerVolumeSource o raw",
    "DownwardAPI downwardAPI *DownwardAPIVolumeSource o",
    "FC fc *FCVolumeSource o raw",
    "AzureFile azureFile *AzureFileVolumeSource o raw",
    "ConfigMap configMap *ConfigMapVolumeSource o",
    "VsphereVolume vsphereVolume *VsphereVirtualDiskVolumeSource o raw",
    "Quobyte quobyte *QuobyteVolumeSource o raw",
    "AzureDisk azureDisk *AzureDiskVolumeSource o raw",
    "PhotonPersistentDisk photonPersistentDisk *PhotonPersistentDiskVolumeSource o raw",
    "Projected projected *ProjectedVolumeSource o",
    "PortworxVolume portworxVolume *PortworxVolumeSource o raw",
    "ScaleIO scaleIO *ScaleIOVolumeSource o raw",
    "StorageOS storageos *StorageOSVolumeSource o raw",
    "CSI csi *CSIVolumeSource o",
    "Ephemeral ephemeral *EphemeralVolumeSource o",
    "Image image *ImageVolumeSource o raw",
  ],
  HostPathVolumeSource: ["Path path string", "Type type *string o"],
  EmptyDirVolumeSource: ["Medium medium string o", "SizeLimit sizeLimit *quantity o"],
  SecretVolumeSource: [
    "SecretName secretName string o",
    "Items items []KeyToPath o",
    "DefaultMode defaultMode *int32 o",
    "Optional optional *bool o",
  ],
  KeyToPath: ["Key key string", "Path path string", "Mode mode *int32 o"],
  PersistentVolumeClaimVolumeSource: ["ClaimName claimName string", "ReadOnly readOnly bool o"],
  DownwardAPIVolumeSource: ["Items items []DownwardAPIVolumeFile o", "DefaultMode defaultMode *int32 o"],
  DownwardAPIVolumeFile: [
    "Path path string",
    "FieldRef fieldRef *ObjectFieldSelector o",
    "ResourceFieldRef resourceFieldRef *ResourceFieldSelector o",
    "Mode mode *int32 o",
  ],
  ConfigMapVolumeSource: [
    "LocalObjectReference - LocalObjectReference",
    "Items items []KeyToPath o",
    "DefaultMode defaultMode *int32 o",
    "Optional optional *bool o",
  ],
  ProjectedVolumeSource: ["Sources sources []VolumeProjection", "DefaultMode defaultMode *int32 o"],
  VolumeProjection: [
    "Secret secret *SecretProjection o",
    "DownwardAPI downwardAPI *DownwardAPIProjection o",
    "ConfigMap configMap *ConfigMapProjection o",
    "ServiceAccountToken serviceAccountToken *ServiceAccountTokenProjection o",
    "ClusterTrustBundle clusterTrustBundle *ClusterTrustBundleProjection o",
    "PodCertificate podCertificate *PodCertificateProjection o raw",
  ],
  SecretProjection: [
    "LocalObjectReference - LocalObjectReference",
    "Items items []KeyToPath o",
    "Optional optional *bool o",
  ],
  ConfigMapProjection: [
    "LocalObjectReference - LocalObjectReference",
    "Items items []KeyToPath o",
    "Optional optional *bool o",
  ],
  DownwardAPIProjection: ["Items items []DownwardAPIVolumeFile o"],
  ServiceAccountTokenProjection: [
    "Audience audience string o",
    "ExpirationSeconds expirationSeconds *int64 o",
    "Path path string",
  ],
  ClusterTrustBundleProjection: [
    "Name name *string o",
    "SignerName signerName *string o",
    "LabelSelector labelSelector *LabelSelector o",
    "Optional optional *bool o",
    "Path path string",
  ],
  CSIVolumeSource: [
    "Driver driver string",
    "ReadOnly readOnly *bool o",
    "FSType fsType *string o",
    "VolumeAttributes volumeAttributes map[string]string o",
    "NodePublishSecretRef nodePublishSecretRef *LocalObjectReference o",
  ],
  EphemeralVolumeSource: ["VolumeClaimTemplate volumeClaimTemplate *PersistentVolumeClaimTemplate o raw"],
  PersistentVolumeClaimTemplate: ["ObjectMeta metadata ObjectMeta o", "Spec spec PersistentVolumeClaimSpec"],
  PersistentVolumeClaimSpec: [
    "AccessModes accessModes []string o",
    "Selector selector *LabelSelector o",
    "Resources resources VolumeResourceRequirements o",
    "VolumeName volumeName string o",
    "StorageClassName storageClassName *string o",
    "VolumeMode volumeMode *string o",
    "DataSource dataSource *TypedLocalObjectReference o",
    "DataSourceRef dataSourceRef *TypedObjectReference o",
    "VolumeAttributesClassName volumeAttributesClassName *string o",
  ],
  VolumeResourceRequirements: ["Limits limits map[string]quantity o", "Requests requests map[string]quantity o"],
  TypedLocalObjectReference: ["APIGroup apiGroup *string", "Kind kind string", "Name name string"],
  TypedObjectReference: [
    "APIGroup apiGroup *string",
    "Kind kind string",
    "Name name string",
    "Namespace namespace *string o",
  ],
  ImageVolumeSource: ["Reference reference string o", "PullPolicy pullPolicy string o"],
  PodCertificateProjection: [
    "SignerName signerName string o",
    "KeyType keyType string o",
    "MaxExpirationSeconds maxExpirationSeconds *int32 o",
    "CredentialBundlePath credentialBundlePath string o",
    "KeyPath keyPath string o",
    "CertificateChainPath certificateChainPath string o",
  ],

  // core/v1: in-tree volume sources (deprecated, all but NFS, ISCSI and FC)
  GCEPersistentDiskVolumeSource: [
    "PDName pdName string",
    "FSType fsType string o",
    "Partition partition int32 o",
    "ReadOnly readOnly bool o",
  ],
  AWSElasticBlockStoreVolumeSource: [
    "VolumeID volumeID string",
    "FSType fsType string o",
    "Partition partition int32 o",
    "ReadOnly readOnly bool o",
  ],
  GitRepoVolumeSource: ["Repository repository string", "Revision revision string o", "Directory directory string o"],
  NFSVolumeSource: ["Server server string", "Path path string", "ReadOnly readOnly bool o"],
  ISCSIVolumeSource: [
    "TargetPortal targetPortal string",
    "IQN iqn string",
    "Lun lun int32",
    "ISCSIInterface iscsiInterface string o",
    "FSType fsType string o",
    "ReadOnly readOnly bool o",
    "Portals portals []string o",
    "DiscoveryCHAPAuth chapAuthDiscovery bool o",
    "SessionCHAPAuth chapAuthSession bool o",
    "SecretRef secretRef *LocalObjectReference o",
    "InitiatorName initiatorName *string o",
  ],
  GlusterfsVolumeSource: ["EndpointsName endpoints string", "Path path string", "ReadOnly readOnly bool o"],
  RBDVolumeSource: [
    "CephMonitors monitors []string",
    "RBDImage image string",
    "FSType fsType string o",
    "RBDPool pool string o",
    "RadosUser user string o",
    "Keyring keyring string o",
    "SecretRef secretRef *LocalObjectReference o",
    "ReadOnly readOnly bool o",
  ],
  FlexVolumeSource: [
    "Driver driver string",
    "FSType fsType string o",
    "SecretRef secretRef *LocalObjectReference o",
    "ReadOnly readOnly bool o",
    "Options options map[string]string o",
  ],
  CinderVolumeSource: [
    "VolumeID volumeID string",
    "FSType fsType string o",
    "ReadOnly readOnly bool o",
    "SecretRef secretRef *LocalObjectReference o",
  ],
  CephFSVolumeSource: [
    "Monitors monitors []string",
    "Path path string o",
    "User user string o",
    "SecretFile secretFile string o",
    "SecretRef secretRef *LocalObjectReference o",
    "ReadOnly readOnly bool o",
  ],
  FlockerVolumeSource: ["DatasetName datasetName string o", "DatasetUUID datasetUUID string o"],
  FCVolumeSource: [
    "TargetWWNs targetWWNs []string o",
    "Lun lun *int32 o",
    "FSType fsType string o",
    "ReadOnly readOnly bool o",
    "WWIDs wwids []string o",
  ],
  AzureFileVolumeSource: ["SecretName secretName string", "ShareName shareName string", "ReadOnly readOnly bool o"],
  VsphereVirtualDiskVolumeSource: [
    "VolumePath volumePath string",
    "FSType fsType string o",
    "StoragePolicyName storagePolicyName string o",
    "StoragePolicyID storagePolicyID string o",
  ],
  QuobyteVolumeSource: [
    "Registry registry string",
    "Volume volume string",
    "ReadOnly readOnly bool o",
    "User user string o",
    "Group group string o",
    "Tenant tenant string o",
  ],
  AzureDiskVolumeSource: [
    "DiskName diskName string",
    "DataDiskURI diskURI string",
    "CachingMode cachingMode *string o",
    "FSType fsType *string o",
    "ReadOnly readOnly *bool o",
    "Kind kind *string o",
  ],
  PhotonPersistentDiskVolumeSource: ["PdID pdID string", "FSType fsType string o"],
  PortworxVolumeSource: ["VolumeID volumeID string", "FSType fsType string o", "ReadOnly readOnly bool o"],
  ScaleIOVolumeSource: [
    "Gateway gateway string",
    "System system string",
    "SecretRef secretRef *LocalObjectReference",
    "SSLEnabled sslEnabled bool o",
    "ProtectionDomain protectionDomain string o",
    "StoragePool storagePool string o",
    "StorageMode storageMode string o",
    "VolumeName volumeName string o",
    "FSType fsType string o",
    "ReadOnly readOnly bool o",
  ],
  StorageOSVolumeSource: [
    "VolumeName volumeName string o",
    "VolumeNamespace volumeNamespace string o",
    "FSType fsType string o",
    "ReadOnly readOnly bool o",
    "SecretRef secretRef *LocalObjectReference o",
  ],

  // core/v1: pod status
  PodStatus: [
    "ObservedGeneration observedGeneration int64 o",
    "Phase phase string o",
    "Conditions conditions []PodCondition o merge:type",
    "Message message string o",
    "Reason reason string o",
    "NominatedNodeName nominatedNodeName string o",
    "HostIP hostIP string o",
    "HostIPs hostIPs []HostIP o merge:ip",
    "PodIP podIP string o",
    "PodIPs podIPs []PodIP o merge:ip",
    "StartTime startTime *time o",
    "InitContainerStatuses initContainerStatuses []ContainerStatus o",
    "ContainerStatuses containerStatuses []ContainerStatus o",
    "QOSClass qosClass string o",
    "EphemeralContainerStatuses ephemeralContainerStatuses []ContainerStatus o",
    "Resize resize string o",
    "ResourceClaimStatuses resourceClaimStatuses []PodResourceClaimStatus o merge,retainKeys:name",
    "ExtendedResourceClaimStatus extendedResourceClaimStatus *PodExtendedResourceClaimStatus o",
  ],
  PodExtendedResourceClaimStatus: [
    "RequestMappings requestMappings []ContainerExtendedResourceRequest",
    "ResourceClaimName resourceClaimName string",
  ],
  ContainerExtendedResourceRequest: [
    "ContainerName containerName string",
    "ResourceName resourceName string",
    "RequestName requestName string",
  ],
  PodCondition: [
    "Type type string",
    "ObservedGeneration observedGeneration int64 o",
    "Status status string",
    "LastProbeTime lastProbeTime time o",
    "LastTransitionTime lastTransitionTime time o",
    "Reason reason string o",
    "Message message string o",
  ],
  HostIP: ["IP ip string"],
  PodIP: ["IP ip string"],
  PodResourceClaimStatus: ["Name name string", "ResourceClaimName resourceClaimName *string o"],
  ContainerStatus: [
    "Name name string",
    "State state ContainerState o",
    "LastTerminationState lastState ContainerState o",
    "Ready ready bool",
    "RestartCount restartCount int32",
    "Image image string",
    "ImageID imageID string",
    "ContainerID containerID string o",
    "Started started *bool o",
    "AllocatedResources allocatedResources map[string]quantity o",
    "Resources resources *ResourceRequirements o",
    "VolumeMounts volumeMounts []VolumeMountStatus o merge:mountPath",
    "User user *ContainerUser o",
    "AllocatedResourcesStatus allocatedResourcesStatus []ResourceStatus o merge:name",
    "StopSignal stopSignal *string o",
  ],
  ContainerState: [
    "Waiting waiting *ContainerStateWaiting o",
    "Running running *ContainerStateRunning o",
    "Terminated terminated *ContainerStateTerminated o",
  ],
  ContainerStateWaiting: ["Reason reason string o", "Message message string o"],
  ContainerStateRunning: ["StartedAt startedAt time o"],
  ContainerStateTerminated: [
    "ExitCode exitCode int32",
    "Signal signal int32 o",
    "Reason reason string o",
    "Message message string o",
    "StartedAt startedAt time o",
    "FinishedAt finishedAt time o",
    "ContainerID containerID string o",
  ],
  VolumeMountStatus: [
    "Name name string",
    "MountPath mountPath string",
    "ReadOnly readOnly bool o",
    "RecursiveReadOnly recursiveReadOnly *string o",
  ],
  ContainerUser: ["Linux linux *LinuxContainerUser o"],
  LinuxContainerUser: ["UID uid int64", "GID gid int64", "SupplementalGroups supplementalGroups []int64 o"],
  ResourceStatus: ["Name name string", "Resources resources []ResourceHealth o"],
  ResourceHealth: ["ResourceID resourceID string", "Health health string o"],

  // core/v1: ReplicationController, List
  ReplicationController: [
    "TypeMeta - TypeMeta",
    "ObjectMeta metadata ObjectMeta o",
    "Spec spec ReplicationControllerSpec o",
    "Status status ReplicationControllerStatus o",
  ],
  ReplicationControllerSpec: [
    "Replicas replicas *int32 o",
    "MinReadySeconds minReadySeconds int32 o",
    "Selector selector map[string]string o",
    "Template template *PodTemplateSpec o",
  ],
  ReplicationControllerStatus: [
    "Replicas replicas int32",
    "FullyLabeledReplicas fullyLabeledReplicas int32 o",
    "ReadyReplicas readyReplicas int32 o",
    "AvailableReplicas availableReplicas int32 o",
    "ObservedGeneration observedGeneration int64 o",
    "Conditions conditions []raw o",
  ],
  List: ["TypeMeta - TypeMeta", "ListMeta metadata ListMeta o", "Items items []raw"],

  // apps/v1
  Deployment: [
    "TypeMeta - TypeMeta",
    "ObjectMeta metadata ObjectMeta o",
    "Spec spec DeploymentSpec o",
    "Status status DeploymentStatus o",
  ],
  DeploymentSpec: [
    "Replicas replicas *int32 o",
    "Selector selector *LabelSelector",
    "Template template PodTemplateSpec",
    "Strategy strategy DeploymentStrategy o",
    "MinReadySeconds minReadySeconds int32 o",
    "RevisionHistoryLimit revisionHistoryLimit *int32 o",
    "Paused paused bool o",
    "ProgressDeadlineSeconds progressDeadlineSeconds *int32 o",
  ],
  DeploymentStrategy: ["Type type string o", "RollingUpdate rollingUpdate *RollingUpdateDeployment o"],
  RollingUpdateDeployment: ["MaxUnavailable maxUnavailable *intOrString o", "MaxSurge maxSurge *intOrString o"],
  DeploymentStatus: [
    "ObservedGeneration observedGeneration int64 o",
    "Replicas replicas int32 o",
    "UpdatedReplicas updatedReplicas int32 o",
    "ReadyReplicas readyReplicas int32 o",
    "AvailableReplicas availableReplicas int32 o",
    "UnavailableReplicas unavailableReplicas int32 o",
    "TerminatingReplicas terminatingReplicas *int32 o",
    "Conditions conditions []raw o",
    "CollisionCount collisionCount *int32 o",
  ],
  DaemonSet: [
    "TypeMeta - TypeMeta",
    "ObjectMeta metadata ObjectMeta o",
    "Spec spec DaemonSetSpec o",
    "Status status DaemonSetStatus o",
  ],
  DaemonSetSpec: [
    "Selector selector *LabelSelector",
    "Template template PodTemplateSpec",
    "UpdateStrategy updateStrategy DaemonSetUpdateStrategy o",
    "MinReadySeconds minReadySeconds int32 o",
    "RevisionHistoryLimit revisionHistoryLimit *int32 o",
  ],
  DaemonSetUpdateStrategy: ["Type type string o", "RollingUpdate rollingUpdate *RollingUpdateDaemonSet o"],
  RollingUpdateDaemonSet: ["MaxUnavailable maxUnavailable *intOrString o", "MaxSurge maxSurge *intOrString o"],
  DaemonSetStatus: [
    "CurrentNumberScheduled currentNumberScheduled int32",
    "NumberMisscheduled numberMisscheduled int32",
    "DesiredNumberScheduled desiredNumberScheduled int32",
    "NumberReady numberReady int32",
    "ObservedGeneration observedGeneration int64 o",
    "UpdatedNumberScheduled updatedNumberScheduled int32 o",
    "NumberAvailable numberAvailable int32 o",
    "NumberUnavailable numberUnavailable int32 o",
    "CollisionCount collisionCount *int32 o",
    "Conditions conditions []raw o",
  ],
  StatefulSet: [
    "TypeMeta - TypeMeta",
    "ObjectMeta metadata ObjectMeta o",
    "Spec spec StatefulSetSpec o",
    "Status status StatefulSetStatus o",
  ],
  StatefulSetSpec: [
    "Replicas replicas *int32 o",
    "Selector selector *LabelSelector",
    "Template template PodTemplateSpec",
    "VolumeClaimTemplates volumeClaimTemplates []raw o",
    "ServiceName serviceName string o",
    "PodManagementPolicy podManagementPolicy string o",
    "UpdateStrategy updateStrategy StatefulSetUpdateStrategy o",
    "RevisionHistoryLimit revisionHistoryLimit *int32 o",
    "MinReadySeconds minReadySeconds int32 o",
    "PersistentVolumeClaimRetentionPolicy persistentVolumeClaimRetentionPolicy *raw o",
    "Ordinals ordinals *raw o",
  ],
  StatefulSetUpdateStrategy: ["Type type string o", "RollingUpdate rollingUpdate *raw o"],
  StatefulSetStatus: [
    "ObservedGeneration observedGeneration int64 o",
    "Replicas replicas int32",
    "ReadyReplicas readyReplicas int32 o",
    "CurrentReplicas currentReplicas int32 o",
    "UpdatedReplicas updatedReplicas int32 o",
    "CurrentRevision currentRevision string o",
    "UpdateRevision updateRevision string o",
    "CollisionCount collisionCount *int32 o",
    "Conditions conditions []raw o",
    "AvailableReplicas availableReplicas int32",
  ],
  ReplicaSet: [
    "TypeMeta - TypeMeta",
    "ObjectMeta metadata ObjectMeta o",
    "Spec spec ReplicaSetSpec o",
    "Status status ReplicaSetStatus o",
  ],
  ReplicaSetSpec: [
    "Replicas replicas *int32 o",
    "MinReadySeconds minReadySeconds int32 o",
    "Selector selector *LabelSelector",
    "Template template PodTemplateSpec o",
  ],
  ReplicaSetStatus: [
    "Replicas replicas int32",
    "FullyLabeledReplicas fullyLabeledReplicas int32 o",
    "ReadyReplicas readyReplicas int32 o",
    "AvailableReplicas availableReplicas int32 o",
    "TerminatingReplicas terminatingReplicas *int32 o",
    "ObservedGeneration observedGeneration int64 o",
    "Conditions conditions []raw o",
  ],

  // batch/v1
  Job: ["TypeMeta - TypeMeta", "ObjectMeta metadata ObjectMeta o", "Spec spec JobSpec o", "Status status JobStatus o"],
  JobSpec: [
    "Parallelism parallelism *int32 o",
    "Completions completions *int32 o",
    "ActiveDeadlineSeconds activeDeadlineSeconds *int64 o",
    "PodFailurePolicy podFailurePolicy *raw o",
    "SuccessPolicy successPolicy *raw o",
    "BackoffLimit backoffLimit *int32 o",
    "BackoffLimitPerIndex backoffLimitPerIndex *int32 o",
    "MaxFailedIndexes maxFailedIndexes *int32 o",
    "Selector selector *LabelSelector o",
    "ManualSelector manualSelector *bool o",
    "Template template PodTemplateSpec",
    "TTLSecondsAfterFinished ttlSecondsAfterFinished *int32 o",
    "CompletionMode completionMode *string o",
    "Suspend suspend *bool o",
    "PodReplacementPolicy podReplacementPolicy *string o",
    "ManagedBy managedBy *string o",
  ],
  JobStatus: [
    "Conditions conditions []raw o",
    "StartTime startTime *time o",
    "CompletionTime completionTime *time o",
    "Active active int32 o",
    "Succeeded succeeded int32 o",
    "Failed failed int32 o",
    "Terminating terminating *int32 o",
    "CompletedIndexes completedIndexes string o",
    "FailedIndexes failedIndexes *string o",
    "UncountedTerminatedPods uncountedTerminatedPods *raw o",
    "Ready ready *int32 o",
  ],
  CronJob: [
    "TypeMeta - TypeMeta",
    "ObjectMeta metadata ObjectMeta o",
    "Spec spec CronJobSpec o",
    "Status status CronJobStatus o",
  ],
  CronJobSpec: [
    "Schedule schedule string",
    "TimeZone timeZone *string o",
    "StartingDeadlineSeconds startingDeadlineSeconds *int64 o",
    "ConcurrencyPolicy concurrencyPolicy string o",
    "Suspend suspend *bool o",
    "JobTemplate jobTemplate JobTemplateSpec",
    "SuccessfulJobsHistoryLimit successfulJobsHistoryLimit *int32 o",
    "FailedJobsHistoryLimit failedJobsHistoryLimit *int32 o",
  ],
  JobTemplateSpec: ["ObjectMeta metadata ObjectMeta o", "Spec spec JobSpec o"],
  CronJobStatus: [
    "Active active []raw o",
    "LastScheduleTime lastScheduleTime *time o",
    "LastSuccessfulTime lastSuccessfulTime *time o",
  ],

  // apps.openshift.io/v1 (github.com/openshift/api apps/v1)
  DeploymentConfig: [
    "TypeMeta - TypeMeta",
    "ObjectMeta metadata ObjectMeta o",
    "Spec spec DeploymentConfigSpec",
    "Status status DeploymentConfigStatus",
  ],
  DeploymentConfigSpec: [
    "Strategy strategy DeploymentConfigStrategy",
    "MinReadySeconds minReadySeconds int32 o",
    "Triggers triggers []raw",
    "Replicas replicas int32",
    "RevisionHistoryLimit revisionHistoryLimit *int32 o",
    "Test test bool",
    "Paused paused bool o",
    "Selector selector map[string]string o",
    "Template template *PodTemplateSpec o",
  ],
  DeploymentConfigStrategy: [
    "Type type string o",
    "CustomParams customParams *raw o",
    "RecreateParams recreateParams *raw o",
    "RollingParams rollingParams *raw o",
    "Resources resources ResourceRequirements o",
    "Labels labels map[string]string o",
    "Annotations annotations map[string]string o",
    "ActiveDeadlineSeconds activeDeadlineSeconds *int64 o",
  ],
  DeploymentConfigStatus: [
    "LatestVersion latestVersion int64",
    "ObservedGeneration observedGeneration int64",
    "Replicas replicas int32",
    "UpdatedReplicas updatedReplicas int32",
    "AvailableReplicas availableReplicas int32",
    "UnavailableReplicas unavailableReplicas int32",
    "Details details *raw o",
    "Conditions conditions []raw o",
    "ReadyReplicas readyReplicas int32 o",
  ],
};

/** Go type names where the struct's Go name differs from its table key. */
const GO_NAMES: Record<string, string> = {
  // OpenShift's DeploymentStrategy shares its Go name with apps/v1's.
  DeploymentConfigStrategy: "DeploymentStrategy",
};

/** Named Go types of some non-struct fields, for `%T` (`v1.ResourceList` for resource maps). */
export const NAMED_TYPES: Readonly<Record<string, string>> = {
  "map[string]quantity": "v1.ResourceList",
};

/** The struct definitions read so far: a row is read when its type is first asked for, not at load. */
const STRUCTS = new Map<string, StructDef>();

/** The struct definition for a type name, or undefined. */
export function structDef(name: string): StructDef | undefined {
  let def = STRUCTS.get(name);
  if (def === undefined && Object.hasOwn(TABLE, name)) {
    const fields = (TABLE[name] as readonly Row[]).map(parseRow);
    def = OPAQUE.has(name) ? { name, pkg: "v1", fields, opaque: true } : { name, pkg: "v1", fields };
    STRUCTS.set(name, def);
  }
  return def;
}

/** Every struct name in the table. */
export function structNames(): string[] {
  return Object.keys(TABLE);
}

/** The Go name of a struct type (`v1.Container`), as `%T` prints it. */
export function goStructName(name: string): string {
  const def = structDef(name);
  return `${def?.pkg ?? "v1"}.${GO_NAMES[name] ?? name}`;
}

/**
 * {@link goTypeString} of the field types asked for so far: templates' views ask for the same few
 * dozen again and again. A pure function of a constant table, so an entry never goes stale; past
 * {@link GO_TYPE_STRINGS_MAX} types (only callers outside the schema could ask for that many) the
 * rest are worked out each time.
 */
const GO_TYPE_STRINGS = new Map<string, string>();
const GO_TYPE_STRINGS_MAX = 4096;

/** The Go spelling of a field type (`[]v1.Container`, `*v1.Probe`, `map[string]string`, `*int64`). */
export function goTypeString(type: string): string {
  let s = GO_TYPE_STRINGS.get(type);
  if (s === undefined) {
    s = spellGoType(type);
    if (GO_TYPE_STRINGS.size < GO_TYPE_STRINGS_MAX) GO_TYPE_STRINGS.set(type, s);
  }
  return s;
}

function spellGoType(type: string): string {
  if (type.startsWith("*")) return `*${goTypeString(type.slice(1))}`;
  if (type.startsWith("[]")) return `[]${goTypeString(type.slice(2))}`;
  const named = NAMED_TYPES[type];
  if (named) return named;
  if (type.startsWith("map[string]")) return `map[string]${goTypeString(type.slice("map[string]".length))}`;
  switch (type) {
    case "string":
    case "int32":
    case "int64":
    case "bool":
    case "float64":
      return type;
    case "quantity":
      return "resource.Quantity";
    case "intOrString":
      return "intstr.IntOrString";
    case "time":
      return "v1.Time";
    case "raw":
      return "interface {}";
  }
  return goStructName(type);
}

/** True for a struct name of the table. */
export function isStructType(type: string): boolean {
  return Object.hasOwn(TABLE, type);
}
