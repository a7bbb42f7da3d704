/**
 * `meshinject certs`: the I/O around src/webhook/certs.ts (reading a CA to reuse, writing the PEM
 * files; private keys are written with mode 0600, and existing files are kept unless --force).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Command } from "commander";
import {
  type CertsOptions,
  createWebhookCerts,
  DEFAULT_CA_DAYS,
  DEFAULT_SERVING_DAYS,
  type KeyType,
} from "../webhook/certs.js";
import type { CliIo } from "./io.js";
import { ensureFolder, existing, WriteError, writeFileAtomic } from "./output.js";
import { DEFAULT_NAMESPACE, DEFAULT_SERVICE, serviceFor } from "./service-defaults.js";

export interface CertsCliOptions {
  /** Default: the Service of `revision`'s injector. */
  service?: string;
  revision?: string;
  namespace: string;
  outDir: string;
  days: string;
  /** Validity of a CA created here (default 3650). */
  caDays?: string;
  keyType: string;
  clusterDomain: string;
  caCert?: string;
  caKey?: string;
  force?: boolean;
  /** Extra DNS names of the serving certificate (repeatable). */
  host?: string[];
  /** IP addresses of the serving certificate (repeatable). */
  ip?: string[];
}

/** An error for the user (exit code 1, one line). */
export class CertsCliError extends Error {
  override name = "CertsCliError";
}

async function readPem(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    throw new CertsCliError(`cannot read ${what} ${path}: ${(e as Error).message}`);
  }
}

/** Writes the files; returns the lines to print. `now` is injectable for tests. */
export async function runCerts(opts: CertsCliOptions, now: Date = new Date()): Promise<string> {
  for (const [flag, value] of [
    ["--days", opts.days],
    ["--ca-days", opts.caDays ?? String(DEFAULT_CA_DAYS)],
  ] as const) {
    if (!/^[0-9]+$/.test(value))
      throw new CertsCliError(`${flag} must be a whole number, got ${JSON.stringify(value)}`);
  }
  if (opts.caDays !== undefined && opts.caCert !== undefined) {
    throw new CertsCliError("--ca-days is for a new CA; a CA given with --ca-cert keeps its own validity");
  }
  if ((opts.caCert === undefined) !== (opts.caKey === undefined)) {
    throw new CertsCliError("--ca-cert and --ca-key go together");
  }
  const service = opts.service ?? serviceFor(opts.revision ?? "");
  const revisionFlag = opts.revision ? ` --revision ${opts.revision}` : "";
  const options: CertsOptions = {
    service,
    namespace: opts.namespace,
    days: Number(opts.days),
    caDays: Number(opts.caDays ?? DEFAULT_CA_DAYS),
    now,
    keyType: opts.keyType as KeyType,
    clusterDomain: opts.clusterDomain,
    hosts: opts.host ?? [],
    ips: opts.ip ?? [],
  };
  if (opts.caCert !== undefined && opts.caKey !== undefined) {
    options.ca = { certPem: await readPem(opts.caCert, "CA certificate"), keyPem: await readPem(opts.caKey, "CA key") };
  }
  const result = await createWebhookCerts(options);

  const files: [name: string, text: string, secret: boolean][] = [
    ["ca.crt", result.caCertPem, false],
    ["tls.crt", result.certPem, false],
    ["tls.key", result.keyPem, true],
  ];
  if (result.caKeyPem !== undefined) files.push(["ca.key", result.caKeyPem, true]);
  if (!opts.force) {
    const present = existing(files.map(([name]) => join(opts.outDir, name)));
    if (present.length > 0) throw new CertsCliError(`${present.join(", ")} already exist (use --force to replace)`);
  }
  try {
    // Private keys go in here: a folder created now is the owner's only (an existing one is kept as it is).
    await ensureFolder(opts.outDir, 0o700);
  } catch (e) {
    throw new CertsCliError(`--out-dir ${opts.outDir}: ${(e as Error).message}`);
  }
  for (const [name, text, secret] of files) {
    const path = join(opts.outDir, name);
    try {
      await writeFileAtomic(path, text, secret ? 0o600 : 0o644);
    } catch (e) {
      if (!(e instanceof WriteError)) throw e;
      throw new CertsCliError(`${path}: ${e.message}`);
    }
  }
  const dir = opts.outDir;
  const names = [...result.dnsNames, ...result.ipAddresses];
  return [
    `wrote ${files.map(([name]) => join(dir, name)).join(", ")}`,
    `serving certificate for ${names.join(", ")}, valid ${options.days} days (until ${day(result.notAfter)})`,
    `CA ${result.caKeyPem === undefined ? "reused" : "created"}, valid until ${day(result.caNotAfter)}`,
    "next:",
    `  kubectl -n ${opts.namespace} create secret tls ${service}-certs --cert ${join(dir, "tls.crt")} --key ${join(dir, "tls.key")}`,
    `  kubectl -n ${opts.namespace} label secret ${service}-certs app.kubernetes.io/part-of=meshinject   # for the labelled uninstall`,
    `  meshinject webhook-config${revisionFlag} --namespace ${opts.namespace} --service ${service} --ca-bundle-file ${join(dir, "ca.crt")} | kubectl apply -f -`,
    ...localTry(dir, result.dnsNames, result.ipAddresses),
    "",
  ].join("\n");
}

/**
 * How to try the certificate on this machine, when it names a local address: `serve --cert-dir`
 * (it logs the matching curl command; the CA is ca.crt beside tls.crt).
 */
function localTry(dir: string, dnsNames: readonly string[], ips: readonly string[]): string[] {
  const host = ips.find((ip) => ip === "127.0.0.1" || ip === "::1") ?? dnsNames.find((n) => n === "localhost");
  if (host === undefined) return [];
  return [
    "try it on this machine (serve logs the curl command to call it with):",
    `  meshinject serve --cert-dir ${dir} --port 9443`,
  ];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

const day = (d: Date) => d.toISOString().slice(0, 10);

export async function runCertsCommand(opts: CertsCliOptions, io: CliIo): Promise<void> {
  io.stdout.write(await runCerts(opts));
}

export const CERTS_HELP = `
Creates a CA and a serving certificate for the webhook Service's DNS names (SVC, SVC.NS, SVC.NS.svc,
SVC.NS.svc.cluster.local), signed by it: OUT_DIR/ca.crt and ca.key (the CA), tls.crt and tls.key
(the serving pair, for a kubernetes.io/tls Secret). ca.crt is the webhook configuration's caBundle.
--host and --ip add names and addresses to the serving certificate (--ip 127.0.0.1 to call a
local \`meshinject serve --cert-dir OUT_DIR\` with curl --cacert OUT_DIR/ca.crt). The CA lives
10 years (--ca-days), the serving certificate 90 days (--days). To renew the serving certificate
without changing the caBundle, pass the CA back with --ca-cert and --ca-key. OUT_DIR is created
with mode 0700, the keys 0600; keep ca.key out of the cluster and out of version control.

Examples:
  meshinject certs --out-dir certs
  meshinject certs --out-dir certs --host localhost --ip 127.0.0.1   # also for a local serve
  meshinject certs --out-dir certs-renewed --ca-cert certs/ca.crt --ca-key certs/ca.key   # renewal
`;

/** Adds `certs` to the program. */
export function registerCerts(program: Command, io: CliIo): void {
  program
    .command("certs")
    .description("create a CA and a serving certificate for the webhook Service")
    .option(
      "--service <name>",
      `webhook Service name (default: "${DEFAULT_SERVICE}" as in deploy/service.yaml, or "${DEFAULT_SERVICE}-REVISION" with --revision)`,
    )
    .option(
      "-r, --revision <name>",
      "the injector's control-plane revision; names its Service when --service is not given",
      "",
    )
    .option("--namespace <ns>", "webhook Service namespace", DEFAULT_NAMESPACE)
    .requiredOption("--out-dir <dir>", "folder for ca.crt, ca.key, tls.crt, tls.key, created if missing (required)")
    .option("--days <n>", "validity of the serving certificate in days", String(DEFAULT_SERVING_DAYS))
    .option("--ca-days <n>", `validity of a new CA in days (default ${DEFAULT_CA_DAYS})`)
    .option("--key-type <type>", "ecdsa (P-256) or rsa (2048)", "ecdsa")
    .option("--cluster-domain <domain>", "the cluster's DNS domain", "cluster.local")
    .option("--ca-cert <file>", "sign with this existing CA certificate (with --ca-key)")
    .option("--ca-key <file>", "the existing CA's PKCS#8 key")
    .option("--host <name>", "another DNS name for the serving certificate (repeatable)", collect)
    .option("--ip <address>", "an IP address for the serving certificate (repeatable)", collect)
    .option("--force", "replace existing files")
    .addHelpText("after", CERTS_HELP)
    .action((opts: CertsCliOptions) => runCertsCommand(opts, io));
}
