/**
 * `npm run build:web`: bundles the playground (web/main.ts, the core it imports, CodeMirror) with
 * esbuild for the browser into dist/web/, with index.html and style.css beside it. The built-in
 * configuration's assets (src/inject/defaults/) go into the bundle as text.
 *
 *   node --import tsx web/build.ts [--outdir dist/web]
 */
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { DEFAULT_ASSET_NAMES } from "../src/inject/defaults.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The built-in configuration's files, by name, as one module (what installDefaultAssets takes). */
const defaultAssets: esbuild.Plugin = {
  name: "default-assets",
  setup(build) {
    build.onResolve({ filter: /\/default-assets\.js$/ }, () => ({ path: "default-assets", namespace: "assets" }));
    build.onLoad({ filter: /.*/, namespace: "assets" }, () => {
      const texts: Record<string, string> = {};
      for (const name of DEFAULT_ASSET_NAMES) {
        texts[name] = readFileSync(join(ROOT, "src/inject/defaults", name), "utf8");
      }
      return { contents: `export default ${JSON.stringify(texts)};`, loader: "js" };
    });
  },
};

export async function buildWeb(outdir = join(ROOT, "dist/web")): Promise<esbuild.Metafile> {
  mkdirSync(outdir, { recursive: true });
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [join(ROOT, "web/main.ts")],
    outfile: join(outdir, "app.js"),
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: ["chrome115", "firefox120", "safari17"],
    // A few core modules use Node's Buffer global; the `buffer` package provides it in the page.
    inject: [join(ROOT, "web/buffer-global.ts")],
    define: { "process.env.NODE_ENV": '"production"', global: "globalThis" },
    plugins: [defaultAssets],
    metafile: true,
    logLevel: "warning",
    legalComments: "linked",
  });
  copyFileSync(join(ROOT, "web/index.html"), join(outdir, "index.html"));
  copyFileSync(join(ROOT, "web/style.css"), join(outdir, "style.css"));
  return result.metafile;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const i = process.argv.indexOf("--outdir");
  await buildWeb(i > 0 ? process.argv[i + 1] : undefined);
  console.log("build:web: dist/web/ (index.html, app.js, style.css)");
}
