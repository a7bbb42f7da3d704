// The package as a user installs it: built dist/, its exports for `import` and `require` (types and
// run time), its engines, and a build that is not repeated when nothing changed.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { startFakeApiServer } from "./fake-apiserver.js";
import { childOutput, repoRoot } from "./meshinject-cli.js";

const built = existsSync(join(repoRoot, "dist", "index.js")) && existsSync(join(repoRoot, "dist", "cjs"));
const skip = built ? false : "dist/ is not built (npm ci builds it through prepare; or npm run build)";

const USER_CODE = `import { inject, loadInjectorConfig, type Injector } from "meshinject";
import { Template } from "meshinject/template";
const injector: Injector = loadInjectorConfig();
const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [{ name: "a", image: "x" }] } };
export const injected: boolean = JSON.stringify(inject(injector, pod)).includes("istio-proxy");
export const template = new Template("t").parse("{{ . }}").execute("ok");
`;

/** A project of the given module type that depends on this package; returns its folder. */
async function project(base: string, type: "commonjs" | "module"): Promise<string> {
  const dir = join(base, type);
  await mkdir(join(dir, "node_modules"), { recursive: true });
  await symlink(repoRoot, join(dir, "node_modules", "meshinject"));
  await symlink(join(repoRoot, "node_modules", "@types"), join(dir, "node_modules", "@types"));
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: `user-${type}`, private: true, type }));
  await writeFile(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { module: "node16", moduleResolution: "node16", strict: true, noEmit: true, types: ["node"] },
      files: ["main.ts"],
    }),
  );
  await writeFile(join(dir, "main.ts"), USER_CODE);
  return dir;
}

describe("the package", { skip }, async () => {
  const base = await mkdtemp(join(tmpdir(), "meshinject-package-"));
  after(() => rm(base, { recursive: true, force: true }));
  const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");

  for (const type of ["commonjs", "module"] as const) {
    it(`type-checks in a ${type} TypeScript project with module node16 (no TS1479)`, async () => {
      const dir = await project(base, type);
      const r = spawnSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" });
      assert.equal(`${r.stdout}${r.stderr}`, "");
      assert.equal(r.status, 0);
    });
  }

  it("is require()d by CommonJS code on this Node (20.19+ loads ES modules with require)", () => {
    const code = `const m = require("meshinject"); const t = require("meshinject/template");
      process.stdout.write(String(typeof m.inject === "function" && typeof t.Template === "function"));`;
    // Resolved from the commonjs project's node_modules (made by the test above).
    const r = spawnSync(process.execPath, ["-e", code], { cwd: join(base, "commonjs"), encoding: "utf8" });
    assert.equal(r.stdout, "true", r.stderr);
  });
});

describe("the meshinject binary (package.json bin, built)", { skip }, () => {
  it("is a node script that reads standard input and exits 0, or 1 with one line on a usage error", async () => {
    const pkg = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8"));
    const bin = join(repoRoot, pkg.bin.meshinject);
    assert.match(await readFile(bin, "utf8"), /^#!\/usr\/bin\/env node\n/);
    const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: a}]\n";
    const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { input: pod, encoding: "utf8" });
    const ok = run(["kube-inject", "-f", "-"]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stderr, "");
    assert.match(ok.stdout, /^apiVersion: v1\nkind: Pod\n[\s\S]*name: istio-proxy\n/);
    const bad = run(["kube-inject", "-f", "-", "--bogus"]);
    assert.equal(bad.status, 1);
    assert.equal(bad.stdout, "");
    assert.equal(bad.stderr, "meshinject: unknown option '--bogus'\n");
  });
});

describe("the packed tarball (npm pack)", () => {
  it("holds the licence, the notice, the changelog, the contributing guide and the README", async () => {
    const r = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    assert.equal(r.status, 0, r.stderr);
    const [pack] = JSON.parse(r.stdout) as { files: { path: string }[] }[];
    const paths = new Set(pack?.files.map((f) => f.path));
    for (const file of ["LICENSE", "NOTICE", "CHANGELOG.md", "CONTRIBUTING.md", "README.md", "package.json"]) {
      assert.ok(paths.has(file), `${file} is not in the tarball`);
    }
    // The licence package.json names, in full; the notice credits the Istio templates ours derive from.
    const pkg = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8")) as { license: string };
    assert.equal(pkg.license, "Apache-2.0");
    const license = await readFile(join(repoRoot, "LICENSE"), "utf8");
    assert.match(license, /^\s*Apache License\n\s*Version 2\.0, January 2004\n/);
    assert.match(license, /END OF TERMS AND CONDITIONS/);
    assert.ok(license.length > 11_000, "not the full text");
    const notice = await readFile(join(repoRoot, "NOTICE"), "utf8");
    assert.match(notice, /derived from the injection templates and values of Istio[\s\S]*Apache License, Version 2\.0/);
  });
});

describe("package.json", () => {
  it("asks for Node 20.19 or later (require of ES modules), as the README says", async () => {
    const pkg = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8"));
    assert.equal(pkg.engines.node, ">=20.19");
    const readme = await readFile(join(repoRoot, "README.md"), "utf8");
    assert.match(readme.slice(0, 400), /Node\.js 20\.19 or later/);
  });

  it("builds once in `npm ci && npm run build`: prepare and build skip when dist/ is current", { skip }, async () => {
    const pkg = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8"));
    assert.equal(pkg.scripts.prepare, "node scripts/build.mjs");
    assert.equal(pkg.scripts.build, "node scripts/build.mjs");
    const build = () => spawnSync(process.execPath, ["scripts/build.mjs"], { cwd: repoRoot, encoding: "utf8" });
    // The first run builds only if the sources changed since the last build (in CI it is current).
    assert.equal(build().status, 0);
    const again = build();
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^dist\/ is up to date/);
  });
});

describe("the built binary (dist/cli/main.js)", { skip }, () => {
  const run = (env: Record<string, string>, ...args: string[]) =>
    spawnSync(process.execPath, [join(repoRoot, "dist", "cli", "main.js"), ...args], {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, ...env },
    });

  it("injects the README's example the same with its compile cache cold, warm and off", async () => {
    // A cache folder of its own, so that the first run is cold.
    const cacheHome = await mkdtemp(join(tmpdir(), "meshinject-cache-"));
    try {
      const env = { TMPDIR: cacheHome };
      const cold = run(env, "kube-inject", "-f", "examples/curl.yaml");
      assert.equal(cold.status, 0, cold.stderr);
      assert.match(cold.stdout, /name: istio-proxy/);
      const warm = run(env, "kube-inject", "-f", "examples/curl.yaml");
      assert.equal(warm.status, 0, warm.stderr);
      assert.equal(warm.stdout, cold.stdout);
      const off = run({ NODE_DISABLE_COMPILE_CACHE: "1" }, "kube-inject", "-f", "examples/curl.yaml");
      assert.equal(off.stdout, cold.stdout);
      // A cache per command: the first run of another command does not stand in for kube-inject's.
      assert.equal(run(env, "--version").status, 0);
      const [folder] = await readdir(cacheHome);
      const files = await readdir(join(cacheHome, folder ?? ""));
      assert.deepEqual(files.map((f) => f.replace(/^.*_/, "")).sort(), ["kube-inject.bin", "other.bin"]);
    } finally {
      await rm(cacheHome, { recursive: true, force: true });
    }
  });

  it("ends quietly when its reader has gone (help | head)", async () => {
    for (const command of [["--help"], ["serve", "--help"]]) {
      const child = spawn(process.execPath, [join(repoRoot, "dist", "cli", "main.js"), ...command], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      // Closed before the child writes anything: its writes to standard output fail with EPIPE.
      child.stdout.destroy();
      const out = childOutput(child);
      const code = await out.exited;
      assert.equal(out.stderr, "", command.join(" "));
      assert.equal(code, 0, command.join(" "));
    }
  });

  it("runs serve from the whole program, agent from agent.js, the others from everyday.js", async () => {
    // serve, run from everyday.js, would stop at its first dynamic import with an internal error.
    const serve = run(
      {},
      "serve",
      "--port",
      "0",
      "--tls-cert-file",
      "no-such-cert.pem",
      "--tls-key-file",
      "no-such-key.pem",
    );
    assert.equal(serve.status, 1);
    assert.doesNotMatch(serve.stderr, /everyday\.js|internal error/);
    assert.match(serve.stderr, /no-such-cert\.pem/);
    const agent = run({}, "agent", "bootstrap", "--help");
    assert.doesNotMatch(agent.stderr, /everyday\.js|internal error/);
    const everyday = await readFile(join(repoRoot, "dist", "cli", "everyday.js"), "utf8");
    const whole = await readFile(join(repoRoot, "dist", "cli", "program.js"), "utf8");
    const agentOnly = await readFile(join(repoRoot, "dist", "cli", "agent.js"), "utf8");
    assert.ok(
      everyday.length < whole.length * 0.97,
      `everyday.js ${everyday.length} bytes, program.js ${whole.length}`,
    );
    // agent.js holds the agent alone (none of commander, which every other command is parsed with),
    // with the packages it uses bundled in: no require() of gRPC from node_modules at its start.
    assert.doesNotMatch(agentOnly, /commander\.unknownOption/);
    assert.doesNotMatch(agentOnly, /require\("@grpc\/grpc-js"\)/);
    assert.match(agentOnly, /name:"@grpc\/grpc-js"/);
    assert.match(whole, /commander\.unknownOption/);
  });

  /** `run` without blocking this process (a fake API server here answers the child). */
  const runAsync = async (env: Record<string, string>, ...args: string[]) => {
    const child = spawn(process.execPath, [join(repoRoot, "dist", "cli", "main.js"), ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
    });
    const out = childOutput(child);
    const status = await out.exited;
    return { status, stdout: out.stdout, stderr: out.stderr };
  };

  it("loads the packages it imports on demand from its compile cache too (certs, --from-cluster)", async () => {
    // Node 20 calls no dynamic-import handler for code from the cache: a second run is the test.
    const base = await mkdtemp(join(tmpdir(), "meshinject-on-demand-"));
    const api = await startFakeApiServer([]);
    try {
      const env = { TMPDIR: base };
      const kubeconfig = await api.kubeconfig(base);
      for (const round of [1, 2]) {
        const certs = await runAsync(env, "certs", "--out-dir", join(base, `certs-${round}`));
        assert.equal(certs.stderr, "", `certs, run ${round}`);
        assert.equal(certs.status, 0);
        const cluster = await runAsync(
          env,
          "kube-inject",
          "-f",
          "examples/curl.yaml",
          "--from-cluster",
          "--kubeconfig",
          kubeconfig,
        );
        // The fake has no Istio ConfigMaps: a user error naming the one it looked for.
        assert.equal(cluster.status, 1, `kube-inject --from-cluster, run ${round}`);
        assert.match(cluster.stderr, /^meshinject: .*istio-sidecar-injector/);
        assert.doesNotMatch(cluster.stderr, /internal error/);
      }
    } finally {
      await api.close();
      await rm(base, { recursive: true, force: true });
    }
  });

  it("runs Sprig's regex functions (re2js, loaded by the bundle at the first compile)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "meshinject-regex-"));
    try {
      const file = join(dir, "t.tmpl");
      await writeFile(file, '{{ regexFind "[a-z]+" "123abc456" }} {{ regexReplaceAll "a(x*)b" "-ab-axxb-" "$1W" }}');
      const r = run({}, "template", "render", "-f", file);
      assert.equal(r.stderr, "");
      // Go reads $1W as ${1W}, a group that does not exist: empty.
      assert.equal(r.stdout, "abc ---");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("ships no test fakes or fixtures (testing/, testdata/)", { skip }, async () => {
    const shipped: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        if (!entry.isDirectory()) continue;
        const path = join(dir, entry.name);
        if (entry.name === "testing" || entry.name === "testdata") shipped.push(path.slice(repoRoot.length + 1));
        else await walk(path);
      }
    };
    await walk(join(repoRoot, "dist"));
    assert.deepEqual(shipped, []);
  });

  it("prints its version and a user error as one line", async () => {
    const pkg = JSON.parse(await readFile(join(repoRoot, "package.json"), "utf8"));
    assert.equal(run({}, "--version").stdout, `${pkg.version}\n`);
    const missing = run({}, "kube-inject", "-f", "no-such-file.yaml");
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /^meshinject: .*no-such-file\.yaml.*\n$/);
  });
});
