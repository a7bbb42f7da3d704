/**
 * The injector's check of a `proxy.istio.io/config` annotation (pkg/kube/inject/validate.go): the YAML
 * applied over DefaultProxyConfig(), then ValidateMeshConfigProxyConfig. Returns Istio's error text,
 * or undefined when the value is accepted.
 */

import { multiErrorText } from "../go/multierror.js";
import { applyJSON } from "./apply.js";
import { defaultProxyConfig } from "./defaults.js";
import { validateProxyConfig } from "./validate.js";
import { readYamlObject } from "./yaml.js";

export function validateProxyConfigAnnotation(value: string): string | undefined {
  let pc: Record<string, unknown>;
  try {
    pc = applyJSON("ProxyConfig", defaultProxyConfig(), readYamlObject(value));
  } catch (e) {
    return `failed to convert to apply proxy config: ${(e as Error).message}`;
  }
  const { errors } = validateProxyConfig(pc);
  return errors.length === 0 ? undefined : multiErrorText(errors);
}
