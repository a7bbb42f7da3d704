// protos.json is what scripts/agent-protos.ts writes from the .proto files now (run it after changing
// a .proto file or the roots), and it holds every service and payload type the agent looks up.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { AGENT_PROTOS_FILE, agentProtosJson } from "../../scripts/agent-protos.js";
import { AGENT_PROTO_ROOTS } from "./proto-files.js";
import { messageType, serviceClient } from "./protos.js";

describe("the agent's protos", () => {
  it("protos.json is up to date with the .proto files (node --import tsx scripts/agent-protos.ts)", () => {
    assert.deepEqual(JSON.parse(readFileSync(AGENT_PROTOS_FILE, "utf8")), agentProtosJson());
  });

  it("holds the services and payloads the agent uses, with proto-loader's method paths and aliases", () => {
    for (const name of AGENT_PROTO_ROOTS) {
      if (name.endsWith("Service")) {
        const service = serviceClient(name).service;
        for (const [method, def] of Object.entries(service)) {
          assert.equal(def.path, `/${name}/${method}`);
          assert.equal(def.originalName, method.charAt(0).toLowerCase() + method.slice(1));
        }
      } else assert.equal(messageType(name).fullName, `.${name}`);
    }
    const ads = serviceClient("envoy.service.discovery.v3.AggregatedDiscoveryService").service;
    assert.equal(ads.StreamAggregatedResources?.requestStream, true);
    assert.equal(ads.StreamAggregatedResources?.responseStream, true);
    const ca = serviceClient("istio.v1.auth.IstioCertificateService").service;
    assert.equal(ca.CreateCertificate?.requestStream, false);
  });
});
