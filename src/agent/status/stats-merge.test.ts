import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FMT_OPENMETRICS_1_0_0, FMT_TEXT } from "./metrics-format.js";
import { agentPageText, mergeMetricsPage, withoutEof } from "./stats-merge.js";

const om = "application/openmetrics-text; version=1.0.0";
const b = (s: string) => Buffer.from(s);
const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString();

describe("mergeMetricsPage", () => {
  it("passes a single target through as it came, after the agent's and Envoy's parts", () => {
    const page = mergeMetricsPage({
      agent: b("a 1\n"),
      envoy: b("e 1\n"),
      targets: [{ ok: true, body: b("x_total 1\n# EOF\n"), contentType: om }],
    });
    assert.equal(page.contentType, FMT_OPENMETRICS_1_0_0);
    assert.equal(text(page.chunks), "a 1\ne 1\nx_total 1\n# EOF\n");
  });

  it("strips every target's terminator and ends an OpenMetrics page with one", () => {
    const page = mergeMetricsPage({
      agent: b(""),
      targets: [
        { ok: false },
        { ok: true, body: b("x_total 1\n# EOF\r\n"), contentType: om },
        { ok: true, body: b("y_total 2"), contentType: om },
      ],
    });
    assert.equal(page.contentType, FMT_OPENMETRICS_1_0_0);
    assert.equal(text(page.chunks), "x_total 1\ny_total 2\n# EOF\n");
  });

  it("downgrades to text when the targets disagree, and uses text without targets", () => {
    const page = mergeMetricsPage({
      agent: b(""),
      targets: [
        { ok: true, body: b("x_total 1\n# EOF\n"), contentType: om },
        { ok: true, body: b("y 2\n"), contentType: "text/plain" },
      ],
    });
    assert.equal(page.contentType, FMT_TEXT);
    assert.equal(text(page.chunks), "x_total 1\ny 2\n");
    assert.equal(mergeMetricsPage({ agent: b("a\n") }).contentType, FMT_TEXT);
  });

  it("finds the terminator only at the end of a page", () => {
    assert.equal(withoutEof(b("# EOF\n")).toString(), "");
    assert.equal(withoutEof(b("x 1\n# EOF x\n")).toString(), "x 1\n# EOF x\n");
    assert.equal(withoutEof(b(`${"y".repeat(100)}\n# EOF \n`)).toString(), `${"y".repeat(100)}\n`);
  });

  it("writes the agent's part as Go's encoder does", () => {
    assert.equal(
      agentPageText("# TYPE a gauge\na Nan\n\n# TYPE b gauge\nb 1\n"),
      "# TYPE a gauge\na NaN\n# TYPE b gauge\nb 1\n",
    );
  });
});
