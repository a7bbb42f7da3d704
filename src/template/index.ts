/**
 * meshinject's Go text/template engine, with Sprig: the library entry point for `meshinject/template`.
 *
 * ```ts
 * import { parse, sprigFuncs, fromJSON } from "meshinject/template";
 * const out = parse("main", "{{ .name | upper }}", { funcs: sprigFuncs }).execute(fromJSON('{"name":"x"}'));
 * ```
 */

export { builtinFuncs } from "./builtins.js";
export { MAX_EXEC_DEPTH } from "./exec.js";
export { formatValue, sprint, sprintf, sprintln } from "./fmt.js";
export { MAX_PARSE_DEPTH } from "./parse.js";
export { sprigFuncs } from "./sprig/index.js";
export { helmFuncs } from "./helm.js";
export { Template, TemplateError, type TemplateOptions, currentTemplate, parse } from "./template.js";
export {
  GO_FUNC,
  GO_OBJECT,
  GO_TYPE,
  GoError,
  type GoFunc,
  type GoObject,
  type GoValue,
  type ParamType,
  TypedNil,
  TypedNumber,
  fromJSON,
  goFunc,
  intsFromWholeNumbers,
  isGoObject,
  newMap,
  typeName,
  withGoType,
} from "./value.js";
