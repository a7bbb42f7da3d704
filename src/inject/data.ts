/**
 * What injection templates see as dot: Istio's SidecarTemplateData, as Go-style objects, so that
 * templates written for Istio (`.ObjectMeta.Annotations`, `.Spec.Containers`, `.ProxyConfig.X`,
 * `.Values.global.hub`, `.DeploymentMeta.Name`, ...) run unchanged.
 */

import { GO_OBJECT, type GoObject, type GoValue, TypedNumber } from "../go/value.js";
import { goTypedView, goView } from "../kube/go-view.js";

/** A Go struct with fixed fields, in declaration order. */
export function goStruct(typeName: string, fields: ReadonlyArray<readonly [string, GoValue]>): GoObject {
  const byName = new Map(fields);
  return {
    [GO_OBJECT]: true,
    goTypeName: () => typeName,
    goField: (name) => (byName.has(name) ? byName.get(name) : undefined),
    goFields: () => fields,
  };
}

export interface TemplateInputs {
  /** The top-level object's kind and apiVersion (Deployment, not Pod, for a Deployment's pods). */
  typeMeta: { kind: string; apiVersion: string };
  /** The workload's name and namespace. */
  deployMeta: { name: string; namespace: string };
  /** The pod's metadata and spec (plain JSON, after stripping a previous injection). */
  metadata: unknown;
  spec: unknown;
  /** Whether `metadata` and `spec` are typed already (marshalTyped as ObjectMeta and PodSpec): not marshalled again. */
  typed?: { metadata: boolean; spec: boolean };
  /** Go views of the effective ProxyConfig and MeshConfig. */
  proxyConfig: GoValue;
  meshConfig: GoValue;
  /** `.Values` in the Go value model. */
  values: GoValue;
  revision: string;
  nativeSidecars: boolean;
  proxyImage: string;
  proxyInitImage: string;
  proxyUID: bigint;
  proxyGID: bigint;
  inboundTrafficPolicyMode: string;
  compliancePolicy: string;
}

/** Builds dot for the injection templates. */
export function templateData(inputs: TemplateInputs): GoObject {
  return goStruct("*inject.SidecarTemplateData", [
    [
      "TypeMeta",
      goStruct("v1.TypeMeta", [
        ["Kind", inputs.typeMeta.kind],
        ["APIVersion", inputs.typeMeta.apiVersion],
      ]),
    ],
    [
      "DeploymentMeta",
      goStruct("types.NamespacedName", [
        ["Namespace", inputs.deployMeta.namespace],
        ["Name", inputs.deployMeta.name],
      ]),
    ],
    ["ObjectMeta", (inputs.typed?.metadata ? goTypedView : goView)(inputs.metadata ?? {}, "ObjectMeta")],
    ["Spec", (inputs.typed?.spec ? goTypedView : goView)(inputs.spec ?? {}, "PodSpec")],
    ["ProxyConfig", inputs.proxyConfig],
    ["MeshConfig", inputs.meshConfig],
    ["Values", inputs.values],
    ["Revision", inputs.revision],
    ["NativeSidecars", inputs.nativeSidecars],
    ["ProxyImage", inputs.proxyImage],
    ["ProxyInitImage", inputs.proxyInitImage],
    ["ProxyUID", new TypedNumber("int64", inputs.proxyUID)],
    ["ProxyGID", new TypedNumber("int64", inputs.proxyGID)],
    ["InboundTrafficPolicyMode", inputs.inboundTrafficPolicyMode],
    ["CompliancePolicy", inputs.compliancePolicy],
  ]);
}
