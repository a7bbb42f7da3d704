import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  CheckInjectInputError,
  namespaceLabels,
  parseLabelPairs,
  parseNamespaces,
  parseWebhookConfigurations,
  stringLabels,
} from "./check-inject-inputs.js";

const MWC = (name: string) => `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: ${name}}
webhooks:
- name: namespace.sidecar-injector.istio.io
`;

describe("parseWebhookConfigurations", () => {
  it("reads documents and List items (any *List kind), skipping other kinds", () => {
    const list = `apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfigurationList\nitems:\n- ${MWC("b").replaceAll("\n", "\n  ").trimEnd()}\n`;
    const text = [MWC("a"), "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n", list].join("---\n");
    assert.deepEqual(
      parseWebhookConfigurations(text, "f.yaml").map((c) => (c.metadata as { name: string }).name),
      ["a", "b"],
    );
  });
  it("a file without one, or with webhooks that are not a list, is an error naming it", () => {
    assert.throws(
      () => parseWebhookConfigurations("kind: Service\n", "f.yaml"),
      /^CheckInjectInputError: f\.yaml: no Mut/,
    );
    assert.throws(
      () =>
        parseWebhookConfigurations("kind: MutatingWebhookConfiguration\nmetadata: {name: x}\nwebhooks: {}\n", "f.yaml"),
      /f\.yaml: document 1 \(MutatingWebhookConfiguration "x"\): webhooks must be a list/,
    );
  });
});

describe("parseNamespaces and namespaceLabels", () => {
  const list = `apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: shop, labels: {istio-injection: enabled}}}
- {apiVersion: v1, kind: Namespace, metadata: {name: dev}}
`;
  it("labels by name; kubernetes.io/metadata.name added; extra labels over them", () => {
    const byName = parseNamespaces(list, "ns.yaml");
    assert.deepEqual([...byName.keys()], ["shop", "dev"]);
    assert.deepEqual(namespaceLabels({ byName }, "shop"), {
      "kubernetes.io/metadata.name": "shop",
      "istio-injection": "enabled",
    });
    assert.deepEqual(
      namespaceLabels({ byName, extra: { "istio-injection": "disabled" } }, "shop")["istio-injection"],
      "disabled",
    );
    assert.deepEqual(namespaceLabels({}, "x"), { "kubernetes.io/metadata.name": "x" });
    assert.throws(
      () => namespaceLabels({ byName }, "prod"),
      /namespace "prod" is not in --namespace-file \(it has shop, dev\)/,
    );
  });
  it("documents that are not named Namespaces are errors", () => {
    assert.throws(
      () => parseNamespaces("kind: Pod\nmetadata: {name: p}\n", "ns.yaml"),
      /ns\.yaml: document 1 \(Pod "p"\): not a Namespace/,
    );
    assert.throws(() => parseNamespaces("kind: Namespace\n", "ns.yaml"), /metadata\.name is missing/);
    assert.throws(() => parseNamespaces("", "ns.yaml"), /ns\.yaml: no Namespace/);
  });
});

describe("parseLabelPairs and stringLabels", () => {
  it("k=v pairs, spaces trimmed, empty values kept; a pair without = is an error", () => {
    assert.deepEqual(parseLabelPairs(" a=b, c= ,d=e=f,", "--x"), { a: "b", c: "", d: "e=f" });
    assert.throws(() => parseLabelPairs("a", "--x"), CheckInjectInputError);
    assert.throws(() => parseLabelPairs("=v", "--x"), /--x: "=v" is not key=value/);
  });
  it('label values must be strings (null reads as "")', () => {
    assert.deepEqual(stringLabels({ a: "b", c: null }, "metadata.labels"), { a: "b", c: "" });
    assert.throws(
      () => stringLabels({ v: 1 }, "metadata.labels"),
      /metadata\.labels\["v"\] must be a string, got number \(quote it: "1"/,
    );
    assert.throws(() => stringLabels([], "metadata.labels"), /must be a map of strings/);
  });
});
