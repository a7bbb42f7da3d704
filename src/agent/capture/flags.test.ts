import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { defaultCaptureConfig } from "./config.js";
import { CaptureFlagError, parseCaptureArgs } from "./flags.js";
import { flagEnvName } from "./iptables-command.js";

/** The args of istio-init in a default injection. */
const DEFAULT_INIT_ARGS = [
  "istio-iptables",
  "-p",
  "15001",
  "-z",
  "15006",
  "-u",
  "1337",
  "-m",
  "REDIRECT",
  "-i",
  "*",
  "-x",
  "",
  "-b",
  "*",
  "-d",
  "15090,15021,15020",
  "--log_output_level=default:info",
];

describe("parseCaptureArgs", () => {
  test("the default istio-init args", () => {
    const parsed = parseCaptureArgs(DEFAULT_INIT_ARGS);
    assert.deepEqual(parsed.config, {
      ...defaultCaptureConfig(),
      ProxyUID: "1337",
      ProxyGID: "1337",
      InboundInterceptionMode: "REDIRECT",
      OutboundIPRangesInclude: "*",
      OutboundIPRangesExclude: "",
      InboundPortsInclude: "*",
      InboundPortsExclude: "15090,15021,15020",
    });
    assert.deepEqual(parsed.positional, []);
    assert.deepEqual(parsed.ignored, ["--log_output_level=default:info"]);
  });

  test("no args: the command's defaults, proxy uid 1337 and gid = uid", () => {
    const { config } = parseCaptureArgs([]);
    assert.equal(config.ProxyPort, "15001");
    assert.equal(config.InboundCapturePort, "15006");
    assert.equal(config.InboundTunnelPort, "15008");
    assert.equal(config.InboundTProxyMark, "1337");
    assert.equal(config.InboundTProxyRouteTable, "133");
    assert.equal(config.IptablesProbePort, 15002);
    assert.equal(config.ProbeTimeout, "5s");
    assert.equal(config.ProxyUID, "1337");
    assert.equal(config.ProxyGID, "1337");
    assert.equal(config.OwnerGroupsInclude, "*");
    assert.equal(config.HostIPv4LoopbackCidr, "127.0.0.1/32");
    assert.equal(config.RedirectDNS, false);
    assert.equal(parseCaptureArgs(["-u", "4242"]).config.ProxyGID, "4242");
  });

  test("pilot-agent and istio-iptables command names are skipped, only at the start", () => {
    assert.equal(parseCaptureArgs(["pilot-agent", "istio-iptables", "-p", "1"]).config.ProxyPort, "1");
    assert.equal(parseCaptureArgs(["/usr/local/bin/istio-iptables", "-p", "2"]).config.ProxyPort, "2");
    assert.deepEqual(parseCaptureArgs(["-p", "3", "istio-iptables"]).positional, ["istio-iptables"]);
  });

  test("long forms, with = or a separate value, and an empty value", () => {
    const { config } = parseCaptureArgs([
      "--envoy-port=16001",
      "--inbound-capture-port",
      "16006",
      "--istio-service-exclude-cidr=",
      "--istio-inbound-ports",
      "",
      "--probe-timeout=5000ms",
      "--iptables-probe-port",
      "0x3a9a",
    ]);
    assert.equal(config.ProxyPort, "16001");
    assert.equal(config.InboundCapturePort, "16006");
    assert.equal(config.OutboundIPRangesExclude, "");
    assert.equal(config.InboundPortsInclude, "");
    assert.equal(config.ProbeTimeout, "5s");
    assert.equal(config.IptablesProbePort, 15002);
  });

  test("short forms: separate, attached, with =, and grouped booleans", () => {
    const { config } = parseCaptureArgs(["-p16001", "-z=16006", "-nu", "7", "-m", "TPROXY", "-k", "net1"]);
    assert.equal(config.ProxyPort, "16001");
    assert.equal(config.InboundCapturePort, "16006");
    assert.equal(config.DryRun, true);
    assert.equal(config.ProxyUID, "7");
    assert.equal(config.ProxyGID, "7");
    assert.equal(config.InboundInterceptionMode, "TPROXY");
    assert.equal(config.RerouteVirtualInterfaces, "net1");
  });

  test("booleans: bare is true, =value parses Go's way, a separate value is not taken", () => {
    assert.equal(parseCaptureArgs(["--redirect-dns"]).config.RedirectDNS, true);
    assert.equal(parseCaptureArgs(["--redirect-dns=false"]).config.RedirectDNS, false);
    assert.equal(parseCaptureArgs(["--native-nftables=T", "--cni-mode=1"]).config.NativeNftables, true);
    assert.equal(parseCaptureArgs(["--cni-mode=1"]).config.HostFilesystemPodNetwork, true);
    const spaced = parseCaptureArgs(["--redirect-dns", "false"]);
    assert.equal(spaced.config.RedirectDNS, true);
    assert.deepEqual(spaced.positional, ["false"]);
    assert.throws(() => parseCaptureArgs(["--redirect-dns=yes"]), /invalid argument "yes" for --redirect-dns/);
  });

  test("the later of two flags wins; -- ends the flags", () => {
    const parsed = parseCaptureArgs(["-p", "1", "--envoy-port", "2", "--", "-p", "3"]);
    assert.equal(parsed.config.ProxyPort, "2");
    assert.deepEqual(parsed.positional, ["-p", "3"]);
  });

  test("unknown flags are errors naming the flag", () => {
    assert.throws(
      () => parseCaptureArgs(["--restore-format=true"]),
      (e: unknown) => {
        assert.ok(e instanceof CaptureFlagError);
        assert.match(e.message, /unknown flag: --restore-format/);
        return true;
      },
    );
    assert.throws(() => parseCaptureArgs(["-p", "1", "-y"]), /unknown shorthand flag: 'y' in -y/);
    assert.throws(() => parseCaptureArgs(["-ny"]), /unknown shorthand flag: 'y' in -ny/);
    assert.throws(() => parseCaptureArgs(["---x"]), /bad flag syntax: ---x/);
    assert.throws(() => parseCaptureArgs(["--help"]), /print its help/);
  });

  test("a missing or unparsable value is an error naming the flag", () => {
    assert.throws(() => parseCaptureArgs(["-p"]), /flag needs an argument: 'p' in -p \(--envoy-port\)/);
    assert.throws(() => parseCaptureArgs(["--proxy-uid"]), /flag needs an argument: --proxy-uid/);
    assert.throws(() => parseCaptureArgs(["--iptables-probe-port=70000"]), /--iptables-probe-port.*out of range/);
    // Go's ParseUint(s, 0, 16) reads Go literal syntax: prefixes and `_` separators.
    assert.equal(parseCaptureArgs(["--iptables-probe-port=15_003"]).config.IptablesProbePort, 15003);
    assert.equal(parseCaptureArgs(["--iptables-probe-port=0x3a9b"]).config.IptablesProbePort, 15003);
    assert.throws(() => parseCaptureArgs(["--iptables-probe-port=-1"]), /--iptables-probe-port.*invalid syntax/);
    assert.throws(() => parseCaptureArgs(["--probe-timeout", "5"]), /--probe-timeout: time: missing unit/);
  });

  test("logging flags are accepted and ignored, with their values", () => {
    const parsed = parseCaptureArgs([
      "--log_as_json",
      "--log_output_level",
      "default:debug",
      "--log_caller=all",
      "-p",
      "9",
    ]);
    assert.equal(parsed.config.ProxyPort, "9");
    assert.deepEqual(parsed.ignored, ["--log_as_json", "--log_output_level default:debug", "--log_caller=all"]);
    assert.deepEqual(parsed.positional, []);
  });

  test("environment: flag variables, flags winning over them, invalid values as pflag leaves them", () => {
    const env = {
      PROXY_UID: "2000",
      ISTIO_INBOUND_PORTS: "80,443",
      ISTIO_SERVICE_CIDR: "10.0.0.0/8",
      ENVOY_PORT: "9999",
      DROP_INVALID: "not-a-bool",
      IPTABLES_PROBE_PORT: "99999",
      NATIVE_NFTABLES: "true",
    };
    const parsed = parseCaptureArgs(["-i", "*"], { env });
    assert.equal(parsed.config.ProxyUID, "2000");
    assert.equal(parsed.config.ProxyGID, "2000");
    assert.equal(parsed.config.InboundPortsInclude, "80,443");
    assert.equal(parsed.config.OutboundIPRangesInclude, "*", "the flag wins");
    assert.equal(parsed.config.ProxyPort, "15001", "--envoy-port has no environment variable");
    assert.equal(parsed.config.DropInvalid, false);
    assert.equal(parsed.config.IptablesProbePort, 65535, "ParseUint's maximum on a range error");
    assert.equal(parsed.config.NativeNftables, true);
    assert.deepEqual(parsed.fromEnv, {
      ProxyUID: "PROXY_UID",
      InboundPortsInclude: "ISTIO_INBOUND_PORTS",
      DropInvalid: "DROP_INVALID",
      IptablesProbePort: "IPTABLES_PROBE_PORT",
      NativeNftables: "NATIVE_NFTABLES",
    });
    // A bad value is not skipped: it overrides a good one before it, as pflag's Set does.
    const bad = parseCaptureArgs([], {
      env: { REDIRECT_DNS: "true", ISTIO_META_DNS_CAPTURE: "yes", IPTABLES_PROBE_PORT: "x", PROBE_TIMEOUT: "5" },
    }).config;
    assert.equal(bad.RedirectDNS, false);
    assert.equal(bad.IptablesProbePort, 0);
    assert.equal(bad.ProbeTimeout, "0s");
  });

  test("environment: the second variables win over the first; flags win over both", () => {
    const env = { REDIRECT_DNS: "false", ISTIO_META_DNS_CAPTURE: "true", INVALID_DROP: "true", ISTIO_DUAL_STACK: "1" };
    const { config } = parseCaptureArgs([], { env });
    assert.equal(config.RedirectDNS, true);
    assert.equal(config.DropInvalid, true);
    assert.equal(config.DualStack, true);
    assert.equal(parseCaptureArgs(["--redirect-dns=false"], { env }).config.RedirectDNS, false);
  });

  test("environment-only settings", () => {
    const env = {
      ISTIO_OUTBOUND_OWNER_GROUPS: "java,1234",
      ISTIO_OUTBOUND_OWNER_GROUPS_EXCLUDE: "",
      ISTIO_OUTBOUND_IPV4_LOOPBACK_CIDR: "127.0.0.1/8",
    };
    const { config, fromEnv } = parseCaptureArgs([], { env });
    assert.equal(config.OwnerGroupsInclude, "java,1234");
    assert.equal(config.OwnerGroupsExclude, "");
    assert.equal(config.HostIPv4LoopbackCidr, "127.0.0.1/8");
    assert.equal(fromEnv.OwnerGroupsInclude, "ISTIO_OUTBOUND_OWNER_GROUPS");
    // Set but empty is empty, not the default.
    assert.equal(parseCaptureArgs([], { env: { ISTIO_OUTBOUND_OWNER_GROUPS: "" } }).config.OwnerGroupsInclude, "");
  });

  test("flag names as environment variables", () => {
    assert.equal(flagEnvName("istio-local-outbound-ports-exclude"), "ISTIO_LOCAL_OUTBOUND_PORTS_EXCLUDE");
  });
});
