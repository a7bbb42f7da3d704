/**
 * Writing Envoy's bootstrap as pilot-agent's bootstrap.Instance.CreateFile does: the lightstep
 * access token file first (when tracing is lightstep), then the rendered template, written
 * atomically (a temporary file renamed over `<configPath>/envoy-rev.json`).
 */
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ProxyConfig } from "../../mesh/index.js";
import { bootstrapText } from "../bootstrap/render.js";
import type { BootstrapConfig } from "../bootstrap/template-params.js";
import { LIGHTSTEP_TOKEN_FILE } from "../plan.js";

export { LIGHTSTEP_TOKEN_FILE };

export const BOOTSTRAP_FILE = "envoy-rev.json";

/** Writes `text` to `path` through a temporary file in the same folder and a rename. */
export async function writeFileAtomic(path: string, text: string, mode = 0o644): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  await writeFile(tmp, text, { mode });
  await rename(tmp, path);
}

export interface WrittenBootstrap {
  path: string;
  text: string;
}

/**
 * Renders the bootstrap for `cfg` from `templateText` into `<configDir>/envoy-rev.json`
 * (`configDir` is the proxy config's configPath as seen by this process).
 */
export async function writeBootstrap(
  cfg: BootstrapConfig,
  templateText: string,
  templateName: string,
  configDir: string,
): Promise<WrittenBootstrap> {
  await mkdir(configDir, { recursive: true });
  const pc = (cfg.node.metadata.PROXY_CONFIG as ProxyConfig | undefined) ?? {};
  const lightstep = (pc.tracing as { lightstep?: { accessToken?: string } } | undefined)?.lightstep;
  if (lightstep !== undefined) {
    // The path Envoy reads is the configured one (cfg.lightstepTokenPath); the file goes where this process sees it.
    await writeFile(join(configDir, LIGHTSTEP_TOKEN_FILE), lightstep.accessToken ?? "", { mode: 0o666 });
  }
  const lightstepTokenPath = cfg.lightstepTokenPath ?? join(pc.configPath ?? "", LIGHTSTEP_TOKEN_FILE);
  const text = bootstrapText({ ...cfg, lightstepTokenPath }, { text: templateText, name: templateName });
  const path = join(configDir, BOOTSTRAP_FILE);
  await writeFileAtomic(path, text);
  return { path, text };
}
