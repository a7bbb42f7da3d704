/**
 * The Kubernetes Pod Security Standards, "restricted" profile (which includes "baseline"), checked on
 * a pod spec the way the PodSecurity admission plugin checks a pod template: one line per violation,
 * naming the field. Written from the standard's published table
 * (https://kubernetes.io/docs/concepts/security/pod-security-standards/), for the tests of deploy/:
 * no library here checks manifests offline without a cluster.
 */

// biome-ignore lint/suspicious/noExplicitAny: pod specs are walked freely; a missing field is undefined.
type Json = Record<string, any>;

/** Capabilities baseline lets a container add; restricted allows only NET_BIND_SERVICE. */
const RESTRICTED_ADD = new Set(["NET_BIND_SERVICE"]);
const RESTRICTED_VOLUMES = new Set([
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "persistentVolumeClaim",
  "projected",
  "secret",
]);
const SAFE_SYSCTLS = new Set([
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.ip_unprivileged_port_start",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_local_reserved_ports",
  "net.ipv4.tcp_keepalive_time",
  "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl",
  "net.ipv4.tcp_keepalive_probes",
]);
const SELINUX_TYPES = new Set(["", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"]);
const SECCOMP_OK = new Set(["RuntimeDefault", "Localhost"]);

/** The violations of the restricted profile in a pod template (`{ metadata, spec }`); [] when it passes. */
export function restrictedViolations(template: Json): string[] {
  const out: string[] = [];
  const spec: Json = template.spec ?? {};
  const podSc: Json = spec.securityContext ?? {};
  const containers: [string, Json][] = [
    ...((spec.initContainers ?? []) as Json[]).map((c): [string, Json] => [`initContainers[${c.name}]`, c]),
    ...((spec.containers ?? []) as Json[]).map((c): [string, Json] => [`containers[${c.name}]`, c]),
    ...((spec.ephemeralContainers ?? []) as Json[]).map((c): [string, Json] => [`ephemeralContainers[${c.name}]`, c]),
  ];

  // baseline
  for (const field of ["hostNetwork", "hostPID", "hostIPC"]) if (spec[field] === true) out.push(`spec.${field}: true`);
  if (podSc.windowsOptions?.hostProcess === true) out.push("spec.securityContext.windowsOptions.hostProcess: true");
  for (const v of (spec.volumes ?? []) as Json[]) {
    const type = Object.keys(v).find((k) => k !== "name") ?? "";
    if (!RESTRICTED_VOLUMES.has(type)) out.push(`spec.volumes[${v.name}]: volume type ${type} is not allowed`);
  }
  for (const s of (podSc.sysctls ?? []) as Json[]) {
    if (!SAFE_SYSCTLS.has(s.name)) out.push(`spec.securityContext.sysctls: ${s.name} is not a safe sysctl`);
  }
  for (const [key, value] of Object.entries((template.metadata?.annotations ?? {}) as Record<string, string>)) {
    if (key.startsWith("container.apparmor.security.beta.kubernetes.io/") && value === "unconfined") {
      out.push(`metadata.annotations[${key}]: unconfined`);
    }
  }
  checkSecurityContext("spec.securityContext", podSc, out);

  // restricted: pod level settings that every container may take instead
  const podNonRoot = podSc.runAsNonRoot === true;
  const podSeccomp = SECCOMP_OK.has(podSc.seccompProfile?.type);
  if (podSc.runAsUser === 0) out.push("spec.securityContext.runAsUser: 0");
  for (const [where, c] of containers) {
    const sc: Json = c.securityContext ?? {};
    const at = `spec.${where}.securityContext`;
    if (sc.privileged === true) out.push(`${at}.privileged: true`);
    if (sc.windowsOptions?.hostProcess === true) out.push(`${at}.windowsOptions.hostProcess: true`);
    if (sc.procMount !== undefined && sc.procMount !== "Default") out.push(`${at}.procMount: ${sc.procMount}`);
    for (const p of (c.ports ?? []) as Json[]) {
      if (p.hostPort !== undefined && p.hostPort !== 0) out.push(`spec.${where}.ports: hostPort ${p.hostPort}`);
    }
    checkSecurityContext(at, sc, out);
    if (sc.allowPrivilegeEscalation !== false) out.push(`${at}.allowPrivilegeEscalation: must be false`);
    if (sc.runAsNonRoot === false || (!podNonRoot && sc.runAsNonRoot !== true)) {
      out.push(`${at}.runAsNonRoot: must be true (here or in the pod's securityContext)`);
    }
    if (sc.runAsUser === 0) out.push(`${at}.runAsUser: 0`);
    const type = sc.seccompProfile?.type;
    if (type !== undefined ? !SECCOMP_OK.has(type) : !podSeccomp) {
      out.push(`${at}.seccompProfile.type: must be RuntimeDefault or Localhost (here or in the pod's)`);
    }
    const caps: Json = sc.capabilities ?? {};
    if (!((caps.drop ?? []) as string[]).includes("ALL")) out.push(`${at}.capabilities.drop: must include ALL`);
    for (const cap of (caps.add ?? []) as string[]) {
      if (!RESTRICTED_ADD.has(cap)) out.push(`${at}.capabilities.add: ${cap} is not allowed`);
    }
  }
  return out;
}

/** What baseline checks in either security context: SELinux, AppArmor, seccomp not Unconfined. */
function checkSecurityContext(at: string, sc: Json, out: string[]): void {
  const se: Json | undefined = sc.seLinuxOptions;
  if (se !== undefined) {
    if (!SELINUX_TYPES.has(se.type ?? "")) out.push(`${at}.seLinuxOptions.type: ${se.type} is not allowed`);
    if (se.user) out.push(`${at}.seLinuxOptions.user: must be empty`);
    if (se.role) out.push(`${at}.seLinuxOptions.role: must be empty`);
  }
  if (sc.appArmorProfile?.type === "Unconfined") out.push(`${at}.appArmorProfile.type: Unconfined`);
  if (sc.seccompProfile?.type === "Unconfined") out.push(`${at}.seccompProfile.type: Unconfined`);
}
