/**
 * For tests of getHostByName in injection templates: an injector `config` whose templates (`sidecar`
 * by default) give the proxy `HOST_ADDR`, the address getHostByName picks for `name`, and a pod to
 * inject with it.
 */
export function hostNameConfig(name: string, templates: readonly string[] = ["sidecar"]): string {
  const body = [
    "spec:",
    "  containers:",
    "  - name: istio-proxy",
    "    image: proxy",
    "    env:",
    "    - name: HOST_ADDR",
    `      value: "{{ getHostByName ${JSON.stringify(name)} }}"`,
  ];
  const indented = body.map((line) => `    ${line}\n`).join("");
  return `policy: enabled\ndefaultTemplates: [sidecar]\ntemplates:\n${templates.map((t) => `  ${t}: |\n${indented}`).join("")}`;
}

/** A pod with one container, as kube-inject reads it. */
export const HOST_NAME_POD =
  "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: app\n    image: app\n";
