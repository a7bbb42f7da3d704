/**
 * Which errors reaching `main` are meant for the user (printed as one line, `meshinject: MESSAGE`)
 * rather than bugs (printed with their stack). Imported by `main` only when a command fails: the
 * classes come from every command's modules, which a successful run does not load.
 */
import { ClusterError } from "../cluster/client.js";
import { ConfigError } from "../inject/config.js";
import { InjectionError } from "../inject/inject.js";
import { DocumentError } from "../inject/kube-inject.js";
import { TemplateError } from "../template/index.js";
import { CertsError } from "../webhook/certs.js";
import { WebhookConfigError } from "../webhook/webhook-config.js";
import { CertsCliError } from "./certs.js";
import { CliError } from "./cli-error.js";
import { ConfigDumpError } from "./config-dump.js";
import { KubeInjectError } from "./kube-inject.js";
import { InjectorFlagsError } from "./load-injector.js";
import { PlaygroundError } from "./playground.js";
import { ServeError } from "./serve.js";
import { ValuesInputError } from "./values.js";
import { WebhookConfigCliError } from "./webhook-config.js";

const USER_ERRORS = [
  CliError,
  ValuesInputError,
  TemplateError,
  ConfigError,
  DocumentError,
  InjectionError,
  KubeInjectError,
  InjectorFlagsError,
  ClusterError,
  WebhookConfigError,
  WebhookConfigCliError,
  CertsError,
  CertsCliError,
  ConfigDumpError,
  ServeError,
  PlaygroundError,
];

/** Whether `e` is an error for the user: its message is the whole story. */
export function isUserError(e: unknown): e is Error {
  return USER_ERRORS.some((type) => e instanceof type);
}
