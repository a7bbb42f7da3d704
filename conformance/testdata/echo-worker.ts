// Test worker for sandbox.test.ts: echoes, loops forever, throws or exits on request.
import { serve } from "../sandbox.js";

serve((request: string) => {
  if (request === "loop") for (;;) {}
  if (request === "throw") throw new Error("boom");
  if (request === "exit") process.exit(3);
  return `echo ${request}`;
});
