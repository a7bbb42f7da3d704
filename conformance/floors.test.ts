import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { belowFloor, loadFloors } from "./floors.js";

describe("floors", () => {
  it("flags folders below their floor only", () => {
    const floors = { "gotemplate/gotemplate": 10 };
    assert.equal(belowFloor(floors, "gotemplate", "gotemplate", 10), undefined);
    assert.equal(belowFloor(floors, "gotemplate", "other", 0), undefined);
    assert.equal(
      belowFloor(floors, "gotemplate", "gotemplate", 9),
      "conformance gotemplate gotemplate: BELOW FLOOR: 9 passed, floor is 10",
    );
  });

  it("keys the webhook mode apart", () => {
    const floors = { "istio-inject/istio-inject": 100, "istio-inject/istio-inject@webhook": 90 };
    assert.equal(belowFloor(floors, "istio-inject", "istio-inject", 95, "webhook"), undefined);
    assert.equal(
      belowFloor(floors, "istio-inject", "istio-inject", 95, "kube-inject"),
      belowFloor(floors, "istio-inject", "istio-inject", 95),
    );
    assert.equal(
      belowFloor(floors, "istio-inject", "istio-inject", 89, "webhook"),
      "conformance istio-inject istio-inject (webhook mode): BELOW FLOOR: 89 passed, floor is 90",
    );
  });

  it("loads the checked-in floors file", async () => {
    const floors = await loadFloors(new URL("./floors.json", import.meta.url));
    assert.equal(typeof floors["gotemplate/gotemplate"], "number");
  });
});
