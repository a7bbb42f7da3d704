/**
 * YAML shown highlighted: parsed with the editor's own YAML grammar (@codemirror/lang-yaml's lezer
 * parser) and written as spans with lezer's `tok-*` classes (style.css colours them), so outputs
 * look like the editor without an editor each.
 */
import { yamlLanguage } from "@codemirror/lang-yaml";
import { classHighlighter, highlightCode } from "@lezer/highlight";

/** Replaces `pre`'s content with `text`, highlighted as YAML. */
export function showYaml(pre: HTMLElement, text: string): void {
  const out = document.createDocumentFragment();
  let pending = "";
  const flush = () => {
    if (pending !== "") out.append(pending);
    pending = "";
  };
  highlightCode(
    text,
    yamlLanguage.parser.parse(text),
    classHighlighter,
    (code, classes) => {
      if (classes === "") {
        pending += code;
        return;
      }
      flush();
      const span = document.createElement("span");
      span.className = classes;
      span.textContent = code;
      out.append(span);
    },
    () => {
      pending += "\n";
    },
  );
  flush();
  pre.replaceChildren(out);
}
