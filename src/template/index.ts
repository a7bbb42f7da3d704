/**
 * meshinject's Go text/template engine, with Sprig: the library entry point for `meshinject/template`.
 *
 * ```ts
 * import { parse, sprigFuncs, fromJSON } from "meshinject/template";
 * const out = parse("main", "{{ .name | upper }}", { funcs: sprigFuncs }).execute(fromJSON('{"name":"x"}'));
 * ```
 */

export { formatValue, sprint, sprintf, sprintln } from "../go/fmt.js";
export {
  fromJSON,
  GO_FUNC,
  GO_OBJECT,
  GO_TYPE,
  GoError,
  type GoFunc,
  type GoObject,
  type GoValue,
  goFunc,
  intsFromWholeNumbers,
  isGoObject,
  isMap,
  newMap,
  type ParamType,
  TypedNil,
  TypedNumber,
  typeName,
  withGoType,
} from "../go/value.js";
export { builtinFuncs } from "./builtins.js";
export { MAX_EXEC_DEPTH } from "./exec.js";
export { helmFuncs } from "./helm.js";
export { type HostLookup, hostWithLookup, type TemplateHost, templateHost, withResolvedNames } from "./host.js";
export { MAX_PARSE_DEPTH } from "./parse.js";
export { sprigFuncs } from "./sprig/index.js";
export { parse, Template, TemplateError, type TemplateOptions } from "./template.js";
