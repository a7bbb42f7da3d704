// The images' build stages (Dockerfile for the webhook, deploy/proxy/Dockerfile for the proxy), run
// without a container runtime: only the files each stage COPYs from the build context are put in an
// empty folder, with this checkout's node_modules standing for its `npm ci`, and its `RUN npm run
// build` must build the CLI from them. A file the build reads but the Dockerfile does not copy fails.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { childOutput, repoRoot } from "./meshinject-cli.js";

/** The build-context paths a Dockerfile's `COPY` lines take (not `COPY --from=STAGE`). */
function copiedPaths(dockerfile: string): string[] {
  const out: string[] = [];
  for (const line of dockerfile.split("\n")) {
    if (!line.startsWith("COPY ") || line.includes("--from=")) continue;
    const parts = line.slice(5).trim().split(/\s+/);
    out.push(...parts.slice(0, -1));
  }
  return out;
}

describe("the images' build stages build from what they copy", async () => {
  const base = await mkdtemp(join(tmpdir(), "meshinject-dockerfile-"));
  after(() => rm(base, { recursive: true, force: true }));

  for (const file of ["Dockerfile", "deploy/proxy/Dockerfile"]) {
    it(file, { timeout: 300_000 }, async () => {
      const dockerfile = await readFile(join(repoRoot, file), "utf8");
      assert.match(dockerfile, /^RUN npm run build\b/m);
      const context = join(base, file.replaceAll("/", "-"));
      await mkdir(context);
      for (const path of copiedPaths(dockerfile)) {
        await mkdir(dirname(join(context, path)), { recursive: true });
        await cp(join(repoRoot, path), join(context, path), { recursive: true });
      }
      await symlink(join(repoRoot, "node_modules"), join(context, "node_modules"));
      const build = childOutput(spawn("npm", ["run", "build"], { cwd: context, stdio: ["ignore", "pipe", "pipe"] }));
      assert.equal(await build.exited, 0, `${build.stdout}${build.stderr}`);
      assert.ok(existsSync(join(context, "dist", "cli", "main.js")));
    });
  }
});
