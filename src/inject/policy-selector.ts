/**
 * Kubernetes label selectors (`metav1.LabelSelector`: matchLabels + matchExpressions) as the
 * injector's neverInjectSelector / alwaysInjectSelector use them: converted the way
 * `metav1.LabelSelectorAsSelector` converts them (validating keys, operators and values), then
 * matched against a pod's labels.
 */
import { quote } from "../go/strconv.js";

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[] | null;
}

export interface LabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirement[] | null;
}

export type Labels = Readonly<Record<string, string>>;

/** A selector that could not be converted; the injector logs it and skips the selector. */
export class LabelSelectorError extends Error {
  override name = "LabelSelectorError";
}

type Operator = "In" | "NotIn" | "Exists" | "DoesNotExist";

interface Requirement {
  key: string;
  op: Operator;
  values: readonly string[];
}

export interface CompiledSelector {
  /** A selector with no requirements (Kubernetes' "Everything"); the injector ignores such selectors. */
  empty: boolean;
  matches(labels: Labels | null | undefined): boolean;
}

// apimachinery's validation: qualified names and label values.
const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function keyError(key: string): string | undefined {
  const parts = key.split("/");
  let name = key;
  if (parts.length === 2) {
    const [prefix = "", rest = ""] = parts;
    if (prefix.length === 0) return "prefix part must be non-empty";
    if (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) {
      return "prefix part must be a lowercase RFC 1123 subdomain";
    }
    name = rest;
  } else if (parts.length > 2) {
    return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', with an optional DNS subdomain prefix and '/'";
  }
  if (name.length === 0) return "name part must be non-empty";
  if (name.length > 63) return "name part must be no more than 63 characters";
  if (!NAME_PART.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

function valueError(value: string): string | undefined {
  if (value.length > 63) return "must be no more than 63 characters";
  if (value !== "" && !NAME_PART.test(value)) {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

function requirement(key: string, op: Operator, values: readonly string[]): Requirement {
  const badKey = keyError(key);
  if (badKey !== undefined) throw new LabelSelectorError(`key: Invalid value: ${quote(key)}: ${badKey}`);
  if ((op === "In" || op === "NotIn") && values.length === 0) {
    throw new LabelSelectorError("values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty");
  }
  if ((op === "Exists" || op === "DoesNotExist") && values.length !== 0) {
    throw new LabelSelectorError("values: Invalid value: values set must be empty for exists and does not exist");
  }
  for (const v of values) {
    const bad = valueError(v);
    if (bad !== undefined) throw new LabelSelectorError(`values[]: Invalid value: ${quote(v)}: ${bad}`);
  }
  return { key, op, values };
}

const OPERATORS: ReadonlySet<string> = new Set(["In", "NotIn", "Exists", "DoesNotExist"]);

/** `metav1.LabelSelectorAsSelector`; throws {@link LabelSelectorError} for an invalid selector. */
export function compileSelector(selector: LabelSelector | null | undefined): CompiledSelector {
  // A nil selector selects nothing; an empty one everything.
  if (selector == null) return { empty: false, matches: () => false };
  const reqs: Requirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) reqs.push(requirement(key, "In", [value]));
  for (const expr of selector.matchExpressions ?? []) {
    if (!OPERATORS.has(expr.operator)) {
      throw new LabelSelectorError(`${quote(String(expr.operator))} is not a valid label selector operator`);
    }
    reqs.push(requirement(expr.key, expr.operator as Operator, expr.values ?? []));
  }
  return {
    empty: reqs.length === 0,
    matches(labels) {
      return reqs.every((r) => matchesRequirement(r, labels ?? {}));
    },
  };
}

function matchesRequirement(r: Requirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.op) {
    case "In":
      return has && r.values.includes(labels[r.key] as string);
    case "NotIn":
      return !has || !r.values.includes(labels[r.key] as string);
    case "Exists":
      return has;
    case "DoesNotExist":
      return !has;
  }
}
