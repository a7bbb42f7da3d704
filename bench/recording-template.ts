/**
 * Injector settings whose `sidecar` template records the data it is executed with and the time its
 * executions take, so that a benchmark can time the template's execution alone on exactly what an
 * injection gives it: a lower bound for any injector that renders Istio's templates (no YAML
 * reading or writing, no merge).
 */

import type { InjectorSettings } from "../src/inject/inject.js";
import type { Template } from "../src/template/index.js";

export interface RecordingSidecar {
  /** The settings with the recording template in place of `sidecar`. */
  settings: InjectorSettings;
  /** The plain `sidecar` template. */
  template: Template;
  /** The data of the last execution (throws when there was none). */
  data(): unknown;
  /** Executions so far and their wall time in all (ns): the template's share of an injection. */
  executions: { count: number; ns: number };
}

export function recordingSidecar(settings: InjectorSettings): RecordingSidecar {
  const sidecar = settings.templates.get("sidecar");
  if (sidecar === undefined) throw new Error("the config has no sidecar template");
  let seen: unknown;
  const executions = { count: 0, ns: 0 };
  const recording = Object.create(sidecar) as Template;
  recording.execute = (data: unknown) => {
    seen = data;
    const start = process.hrtime.bigint();
    try {
      return sidecar.execute(data);
    } finally {
      executions.ns += Number(process.hrtime.bigint() - start);
      executions.count++;
    }
  };
  const templates = new Map(settings.templates);
  templates.set("sidecar", recording);
  return {
    settings: { ...settings, templates },
    template: sidecar,
    executions,
    data: () => {
      if (seen === undefined) throw new Error("the sidecar template was not executed");
      return seen;
    },
  };
}
