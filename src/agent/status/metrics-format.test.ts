import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  APP_ACCEPTED,
  ENVOY_ACCEPTED,
  FMT_OPENMETRICS_0_0_1,
  FMT_OPENMETRICS_1_0_0,
  FMT_TEXT,
  filterAccept,
  negotiateMetricsFormat,
  parseMediaType,
} from "./metrics-format.js";

describe("metrics formats", () => {
  it("labels the merged page from the application's Content-Type", () => {
    assert.equal(negotiateMetricsFormat("application/openmetrics-text; version=1.0.0"), FMT_OPENMETRICS_1_0_0);
    assert.equal(negotiateMetricsFormat("application/openmetrics-text"), FMT_OPENMETRICS_0_0_1);
    assert.equal(negotiateMetricsFormat("application/openmetrics-text; version=2.0.0"), FMT_TEXT);
    assert.equal(negotiateMetricsFormat("not a type;;"), FMT_TEXT);
    assert.equal(negotiateMetricsFormat(""), FMT_TEXT);
  });

  it("parses media types as Go's mime package", () => {
    assert.deepEqual(parseMediaType('Text/Plain; Version="0.0.4" ;charset=utf-8;'), {
      type: "text/plain",
      params: { version: "0.0.4", charset: "utf-8" },
    });
    assert.throws(() => parseMediaType("/"));
    assert.throws(() => parseMediaType("text/plain; a=1; a=2"));
  });

  it("filters the client's Accept per target, never passing protobuf on", () => {
    const prom =
      "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.6," +
      "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,text/plain;version=0.0.4;q=0.2,*/*;q=0.1";
    assert.equal(
      filterAccept(prom, APP_ACCEPTED),
      "application/openmetrics-text; escaping=allow-utf-8; q=0.3; version=1.0.0, text/plain; q=0.2; version=0.0.4, text/plain; q=0.1; version=0.0.4",
    );
    assert.equal(
      filterAccept(prom, ENVOY_ACCEPTED),
      "text/plain; q=0.2; version=0.0.4, text/plain; q=0.1; version=0.0.4",
    );
    assert.equal(filterAccept("application/*", APP_ACCEPTED), "application/openmetrics-text; q=0.1; version=0.0.1");
    assert.equal(filterAccept("application/*", ENVOY_ACCEPTED), "text/plain;version=0.0.4");
    assert.equal(filterAccept("/", APP_ACCEPTED), "text/plain;version=0.0.4");
    assert.equal(filterAccept(undefined, APP_ACCEPTED), "text/plain;version=0.0.4");
  });
});
