// Sandbox worker for the gotemplate kind: runs vectors through the engine in a worker thread.
import { serve } from "../sandbox.js";
import { runVector } from "./gotemplate-run.js";

serve(runVector);
