// Test worker for sandbox.test.ts: fails while loading, as a worker whose engine is missing would.
throw new Error("cannot load");
