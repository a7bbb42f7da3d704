/**
 * Validation of the pod annotations the injector reads (Istio's `pkg/kube/inject/validate.go`).
 * Before rendering, every annotation that has a validator is checked; any failure aborts injection
 * with one message per bad annotation, `invalid value '<v>' for annotation '<name>': <reason>`,
 * joined the way hashicorp/go-multierror prints a list. Annotations without a validator are not
 * checked. The reasons repeat Istio's wording, including its quirks (the status port's error says
 * `excludeInboundPorts invalid`).
 */

import { parse as parseYAML } from "yaml";
import { multiErrorText } from "../go/multierror.js";
import { parsePrefix } from "../go/netip.js";
import { quantityError } from "../go/quantity.js";
import { parseBool, parseUint64, quote } from "../go/strconv.js";
import { valueKind } from "../kube/value-kind.js";

export {
  ANNOTATIONS,
  type AnnotationInfo,
  type AnnotationResource,
  annotationAppliesTo,
  annotationInfo,
} from "./annotations-table.js";

/** A validator returns the reason a value is refused, or undefined when it is accepted. */
export type AnnotationValidator = (value: string) => string | undefined;

export interface AnnotationValidationOptions {
  /**
   * Full validation of `proxy.istio.io/config` (apply over the default ProxyConfig, then Istio's
   * ProxyConfig validation), supplied by the mesh layer. Without it the value is only checked to be
   * a YAML (or JSON) mapping.
   */
  proxyConfig?: AnnotationValidator;
}

/** One refused annotation. */
export interface AnnotationFailure {
  name: string;
  value: string;
  reason: string;
}

/** Thrown by {@link validateAnnotations}; `message` is the joined list, `failures` the parts. */
export class AnnotationValidationError extends Error {
  override name = "AnnotationValidationError";
  constructor(readonly failures: readonly AnnotationFailure[]) {
    super(multiErrorText(failures.map(failureMessage)));
  }
}

export function failureMessage(f: AnnotationFailure): string {
  return `invalid value '${f.value}' for annotation '${f.name}': ${f.reason}`;
}

// ---------------------------------------------------------------------------------------------
// Go helpers

/** Go's unicode.IsSpace: Latin-1 spaces plus the Unicode Z category (not U+FEFF, which String.trim drops). */
function isGoSpace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x20 ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/**
 * Go's strings.TrimSpace. Two index scans: a regex anchored at the end backtracks quadratically on
 * long runs of inner spaces, which an annotation value could exploit.
 */
export function goTrimSpace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isGoSpace(s.charCodeAt(start))) start++;
  while (end > start && isGoSpace(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

function numErrorText(fn: string, s: string, err: "syntax" | "range"): string {
  return `strconv.${fn}: parsing ${quote(s)}: ${err === "syntax" ? "invalid syntax" : "value out of range"}`;
}

/** Go's strconv.ParseUint(s, 10, bits): the error text, or undefined. */
function parseUintError(s: string, bits: 16 | 32): string | undefined {
  // Base 10 takes neither prefixes nor underscores; parseUint64's base-0 extras are off with base 10.
  const r = parseUint64(s, 10);
  if (r.err !== undefined) return numErrorText("ParseUint", s, r.err);
  if (r.value >= 1n << BigInt(bits)) return numErrorText("ParseUint", s, "range");
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Validators

function parsePortError(port: string): string | undefined {
  const e = parseUintError(goTrimSpace(port), 16);
  return e === undefined ? undefined : `failed parsing port '${port}': ${e}`;
}

/** Istio's parsePorts: the trimmed list, comma-separated; empty is an empty list. */
function portListError(ports: string): string | undefined {
  const trimmed = goTrimSpace(ports);
  if (trimmed === "") return undefined;
  for (const port of trimmed.split(",")) {
    const e = parsePortError(port);
    if (e !== undefined) return `failed parsing port '${port}': ${e}`;
  }
  return undefined;
}

const portList =
  (parameter: string, allowStar: boolean): AnnotationValidator =>
  (value) => {
    if (allowStar && value === "*") return undefined;
    const e = portListError(value);
    return e === undefined ? undefined : `${parameter} invalid: ${e}`;
  };

function cidrListError(cidrs: string): string | undefined {
  if (cidrs === "") return undefined;
  for (const cidr of cidrs.split(",")) {
    const e = parsePrefix(cidr).err;
    if (e !== undefined) return `failed parsing cidr '${cidr}': ${e}`;
  }
  return undefined;
}

const cidrList =
  (parameter: string, allowStar: boolean): AnnotationValidator =>
  (value) => {
    if (allowStar && value === "*") return undefined;
    const e = cidrListError(value);
    return e === undefined ? undefined : `${parameter} invalid: ${e}`;
  };

const validateInterceptionMode: AnnotationValidator = (mode) =>
  mode === "REDIRECT" || mode === "TPROXY" || mode === "NONE"
    ? undefined
    : `interceptionMode invalid, use REDIRECT,TPROXY,NONE: ${mode}`;

const validateStatusPort: AnnotationValidator = (port) => {
  const e = parsePortError(port);
  return e === undefined ? undefined : `excludeInboundPorts invalid: ${e}`;
};

const validateUInt32: AnnotationValidator = (value) => parseUintError(value, 32);

const validateBool: AnnotationValidator = (value) =>
  parseBool(value) === undefined ? numErrorText("ParseBool", value, "syntax") : undefined;

/** Go's unicode.IsControl: C0, DEL and C1. */
function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

/** Resource quantities end up in the proxy's YAML; control characters could smuggle in fields. */
const validateResourceQuantity: AnnotationValidator = (value) => {
  if (hasControl(value)) return "value contains control characters";
  const e = quantityError(value);
  return e === undefined ? undefined : `invalid resource quantity: ${e}`;
};

const INTERFACE_NAME = /^[a-zA-Z][a-zA-Z0-9_.-]*$/;
/** Linux IFNAMSIZ less the terminating NUL. */
const MAX_INTERFACE_NAME = 15;

/** Interface names reach iptables arguments, so only plain names pass. */
const validateInterfaceNames: AnnotationValidator = (value) => {
  if (value === "") return undefined;
  for (const part of value.split(",")) {
    const name = goTrimSpace(part);
    if (name === "") return "interface name must not be empty";
    if ([...name].length > MAX_INTERFACE_NAME) {
      return `interface name ${quote(name)} is longer than ${MAX_INTERFACE_NAME} characters`;
    }
    if (!INTERFACE_NAME.test(name)) {
      return `invalid interface name ${quote(name)}: must start with a letter and contain only letters, digits, '_', '.' or '-'`;
    }
  }
  return undefined;
};

/** The structural part of validateProxyConfig: the value must read as a YAML/JSON mapping. */
const validateProxyConfigShape: AnnotationValidator = (value) => {
  let parsed: unknown;
  try {
    // Warnings (e.g. a value starting with "%", read as a directive) must not reach stderr.
    parsed = parseYAML(value, { logLevel: "error" });
  } catch (e) {
    return `failed to convert to apply proxy config: ${(e as Error).message}`;
  }
  if (parsed === null || parsed === undefined) return undefined;
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    return "failed to convert to apply proxy config: the value is not a mapping";
  }
  return undefined;
};

/** Istio's AnnotationValidation table: which annotations are checked, and how. */
export const ANNOTATION_VALIDATORS: ReadonlyMap<string, AnnotationValidator> = new Map([
  ["sidecar.istio.io/interceptionMode", validateInterceptionMode],
  ["status.sidecar.istio.io/port", validateStatusPort],
  ["readiness.status.sidecar.istio.io/initialDelaySeconds", validateUInt32],
  ["readiness.status.sidecar.istio.io/periodSeconds", validateUInt32],
  ["readiness.status.sidecar.istio.io/failureThreshold", validateUInt32],
  ["traffic.sidecar.istio.io/includeOutboundIPRanges", cidrList("includeIPRanges", true)],
  ["traffic.sidecar.istio.io/excludeOutboundIPRanges", cidrList("excludeIPRanges", false)],
  ["traffic.sidecar.istio.io/includeInboundPorts", portList("includeInboundPorts", true)],
  ["traffic.sidecar.istio.io/excludeInboundPorts", portList("excludeInboundPorts", false)],
  ["traffic.sidecar.istio.io/excludeOutboundPorts", portList("excludeOutboundPorts", false)],
  ["traffic.sidecar.istio.io/excludeInterfaces", validateInterfaceNames],
  ["traffic.sidecar.istio.io/kubevirtInterfaces", validateInterfaceNames],
  ["istio.io/reroute-virtual-interfaces", validateInterfaceNames],
  ["prometheus.istio.io/merge-metrics", validateBool],
  ["proxy.istio.io/config", validateProxyConfigShape],
  ["sidecar.istio.io/proxyCPU", validateResourceQuantity],
  ["sidecar.istio.io/proxyCPULimit", validateResourceQuantity],
  ["sidecar.istio.io/proxyMemory", validateResourceQuantity],
  ["sidecar.istio.io/proxyMemoryLimit", validateResourceQuantity],
]);

function displayValue(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * Every refused annotation, in name order (Go visits the map in random order; sorting keeps the
 * joined message stable).
 */
export function annotationFailures(
  annotations: Readonly<Record<string, string>> | null | undefined,
  options: AnnotationValidationOptions = {},
): AnnotationFailure[] {
  const failures: AnnotationFailure[] = [];
  for (const name of Object.keys(annotations ?? {}).sort()) {
    let validator = ANNOTATION_VALIDATORS.get(name);
    if (validator === undefined) continue;
    if (name === "proxy.istio.io/config" && options.proxyConfig !== undefined) validator = options.proxyConfig;
    const value: unknown = (annotations as Record<string, unknown>)[name];
    if (typeof value !== "string") {
      // Typed pods only have strings here; anything else is refused rather than handed to a validator.
      failures.push({
        name,
        value: displayValue(value),
        reason: `the value must be a string, got ${valueKind(value)}`,
      });
      continue;
    }
    const reason = validator(value);
    if (reason !== undefined) failures.push({ name, value, reason });
  }
  return failures;
}

/** Istio's validateAnnotations: throws an {@link AnnotationValidationError} listing every refused annotation. */
export function validateAnnotations(
  annotations: Readonly<Record<string, string>> | null | undefined,
  options: AnnotationValidationOptions = {},
): void {
  const failures = annotationFailures(annotations, options);
  if (failures.length > 0) throw new AnnotationValidationError(failures);
}

/** Validates one annotation alone: the reason it is refused, or undefined (also for unchecked names). */
export function validateAnnotation(
  name: string,
  value: string,
  options: AnnotationValidationOptions = {},
): string | undefined {
  return annotationFailures({ [name]: value }, options)[0]?.reason;
}
