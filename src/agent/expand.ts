/**
 * Kubernetes' `$(VAR)` expansion of a container's `command`, `args` and env values
 * (k8s.io/kubernetes third_party/forked/golang/expansion): `$(NAME)` is replaced by the variable's
 * value when it is known, and left as written otherwise; `$$` is a literal `$`; any other `$` is kept.
 */

/** The expansion of `text`; `lookup` gives a variable's value, or undefined when it is not defined. */
export function expandVars(text: string, lookup: (name: string) => string | undefined): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c !== "$" || i + 1 >= text.length) {
      out += c;
      i++;
      continue;
    }
    const next = text[i + 1] as string;
    if (next === "$") {
      out += "$";
      i += 2;
      continue;
    }
    if (next === "(") {
      const close = text.indexOf(")", i + 2);
      if (close < 0) {
        // An unterminated reference is kept as written.
        out += text.slice(i);
        break;
      }
      const name = text.slice(i + 2, close);
      const value = name === "" ? undefined : lookup(name);
      out += value ?? text.slice(i, close + 1);
      i = close + 1;
      continue;
    }
    out += c + next;
    i += 2;
  }
  return out;
}

/** The names of the `$(NAME)` references in `text` (after `$$` escapes). */
export function referencedVars(text: string): string[] {
  const names: string[] = [];
  expandVars(text, (name) => {
    names.push(name);
    return undefined;
  });
  return names;
}
