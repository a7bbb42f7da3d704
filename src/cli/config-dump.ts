/**
 * `meshinject config dump`: writes the built-in configuration as the three files the kube-inject
 * flags accept. Like `certs`, it never replaces a file (an edited mesh.yaml, say) without --force.
 */
import { join } from "node:path";
import { defaultConfigFiles } from "../inject/defaults.js";
import { ensureFolder, existing, WriteError, writeFileAtomic } from "./output.js";

export interface ConfigDumpOptions {
  dir: string;
  force?: boolean;
  /** A named revision's default (its values and mesh config name istiod-REVISION). */
  revision?: string;
}

/** An error for the user (exit code 1, one line). */
export class ConfigDumpError extends Error {
  override name = "ConfigDumpError";
}

/** Writes the files (creating the folder if missing); returns the lines to print. */
export async function runConfigDump(opts: ConfigDumpOptions): Promise<string> {
  const defaults = defaultConfigFiles(opts.revision);
  const files = [
    [join(opts.dir, "inject-config.yaml"), defaults.config],
    [join(opts.dir, "values.json"), defaults.values],
    [join(opts.dir, "mesh.yaml"), defaults.mesh],
  ] as const;
  if (!opts.force) {
    const present = existing(files.map(([path]) => path));
    if (present.length > 0) {
      const verb = present.length === 1 ? "exists" : "exist";
      throw new ConfigDumpError(`${present.join(", ")} already ${verb} (use --force to replace)`);
    }
  }
  try {
    await ensureFolder(opts.dir);
  } catch (e) {
    throw new ConfigDumpError(`-d ${opts.dir}: ${(e as Error).message}`);
  }
  for (const [path, text] of files) {
    try {
      await writeFileAtomic(path, text);
    } catch (e) {
      if (!(e instanceof WriteError)) throw e;
      throw new ConfigDumpError(`${path}: ${e.message}`);
    }
  }
  const [config, values, mesh] = files.map(([path]) => path);
  return `wrote ${config}, ${values}, ${mesh}\nuse: meshinject kube-inject -f app.yaml --injectConfigFile ${config} --valuesFile ${values} --meshConfigFile ${mesh}\n`;
}
