// biome-ignore-all lint/style/noNonNullAssertion: a port of Go code that indexes arrays, regex groups and function tables after checking lengths and names; `!` marks those places
/**
 * Sprig's certificate functions: genCA, genSelfSignedCert, genSignedCert (and their ...WithKey
 * forms) and buildCustomCert. Each returns Sprig's `certificate` struct {Cert, Key} of PEM strings.
 *
 * Template functions run synchronously, and @peculiar/x509's generator is asynchronous (WebCrypto),
 * so certificates are assembled here in DER the way Go's x509.CreateCertificate lays them out
 * (same fields, extension order, string and time types) and signed with node:crypto's sync API.
 * Keys are RSA 2048 when generated, as in Sprig.
 */
import { formatValue } from "../../go/fmt.js";
import { GO_OBJECT, GoError, type GoFunc, type GoObject, type GoValue, goFunc, isGoObject } from "../../go/value.js";
import { type DerElement, derElement, derInteger, derSequence, pemEncode, readDer, readDerChildren } from "./der.js";
import { decodeBase64Std } from "./encoding.js";
import { KeyParseError, type ParsedKey, parsePrivateKeyPem, pemDecode, privateKeyPem } from "./keys.js";
import { type KeyObject, nodeCrypto } from "./node-crypto.js";

/** Sprig's `certificate` struct. */
export class SprigCertificate implements GoObject {
  readonly [GO_OBJECT] = true as const;
  constructor(
    readonly cert: string,
    readonly key: string,
  ) {}
  goTypeName(): string {
    return "sprig.certificate";
  }
  goField(name: string): GoValue | undefined {
    if (name === "Cert") return this.cert;
    if (name === "Key") return this.key;
    return undefined;
  }
  goFields(): ReadonlyArray<readonly [string, GoValue]> {
    return [
      ["Cert", this.cert],
      ["Key", this.key],
    ];
  }
}

// --- DER building blocks for the certificate ---

function derOid(dotted: string): Uint8Array {
  const [a, b, ...rest] = dotted.split(".").map(Number) as [number, number, ...number[]];
  const bytes: number[] = [];
  for (const n of [a * 40 + b, ...rest]) {
    const chunk = [n & 0x7f];
    for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return derElement(0x06, Uint8Array.from(bytes));
}

const octetString = (b: Uint8Array): Uint8Array => derElement(0x04, b);
const bitString = (b: Uint8Array, unusedBits = 0): Uint8Array => derElement(0x03, Uint8Array.from([unusedBits, ...b]));
const DER_NULL = Uint8Array.from([0x05, 0x00]);
const DER_TRUE = Uint8Array.from([0x01, 0x01, 0xff]);

/** Go marshals a plain string as PrintableString when its characters allow it, else UTF8String. */
function directoryString(s: string): Uint8Array {
  const printable = /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(s);
  return derElement(printable ? 0x13 : 0x0c, Buffer.from(s, "utf8"));
}

/** A Name with only a CommonName (Sprig's subject); an empty CN gives the empty Name. */
function subjectName(cn: string): Uint8Array {
  if (cn === "") return derSequence([]);
  const atv = derSequence([derOid("2.5.4.3"), directoryString(cn)]);
  return derSequence([derElement(0x31, atv)]);
}

/** asn1 time: UTCTime for 1950..2049, GeneralizedTime otherwise (years 0..9999 only). */
function derTime(seconds: bigint): Uint8Array {
  const d = new Date(Number(seconds) * 1000);
  const year = d.getUTCFullYear();
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  const rest = `${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}Z`;
  if (year >= 1950 && year < 2050) return derElement(0x17, Buffer.from(`${pad(year % 100)}${rest}`));
  if (year < 0 || year > 9999 || Number.isNaN(year)) {
    throw new GoError("error creating certificate: asn1: structure error: cannot represent time as GeneralizedTime");
  }
  return derElement(0x18, Buffer.from(`${pad(year, 4)}${rest}`));
}

function extension(oid: string, critical: boolean, value: Uint8Array): Uint8Array {
  return derSequence([derOid(oid), ...(critical ? [DER_TRUE] : []), octetString(value)]);
}

// Key usage bits as Go numbers them (bit 0 = digitalSignature); DER writes bit 0 as the top bit.
const KU_DIGITAL_SIGNATURE = 1 << 0;
const KU_KEY_ENCIPHERMENT = 1 << 2;
const KU_CERT_SIGN = 1 << 5;

function keyUsageValue(ku: number): Uint8Array {
  const reverse = (b: number) => {
    let r = 0;
    for (let i = 0; i < 8; i++) if (b & (1 << i)) r |= 1 << (7 - i);
    return r;
  };
  const bytes = [reverse(ku & 0xff), reverse(ku >> 8)];
  if (bytes[1] === 0) bytes.pop();
  // Unused bits: the trailing zero bits of the last byte.
  const last = bytes[bytes.length - 1]!;
  let unused = 0;
  while (unused < 8 && !(last & (1 << unused))) unused++;
  return bitString(Uint8Array.from(bytes), unused);
}

// --- inputs: IPs and DNS names ---

function parseIPv4(s: string): number[] | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^[0-9]{1,3}$/.test(p) || (p.length > 1 && p[0] === "0")) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out.push(n);
  }
  return out;
}

/** net.ParseIP for IPv6 text: `::` at most once, 1-4 hex digits per group, an optional dotted IPv4 tail. */
function parseIPv6(s: string): number[] | undefined {
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const groups = (text: string): number[] | undefined => {
    if (text === "") return [];
    const out: number[] = [];
    const parts = text.split(":");
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (i === parts.length - 1 && p.includes(".")) {
        const v4 = parseIPv4(p);
        if (!v4) return undefined;
        out.push(...v4);
      } else {
        if (!/^[0-9A-Fa-f]{1,4}$/.test(p)) return undefined;
        const n = Number.parseInt(p, 16);
        out.push(n >> 8, n & 0xff);
      }
    }
    return out;
  };
  const head = groups(halves[0]!);
  if (!head) return undefined;
  if (halves.length === 1) return head.length === 16 ? head : undefined;
  const tail = groups(halves[1]!);
  if (!tail || head.length + tail.length > 14) return undefined;
  return [...head, ...new Array(16 - head.length - tail.length).fill(0), ...tail];
}

/** The SAN bytes Go writes for an IP: 4 bytes when it is an IPv4 (or IPv4-mapped) address, else 16. */
function ipBytes(s: string): Uint8Array | undefined {
  const v4 = parseIPv4(s);
  if (v4) return Uint8Array.from(v4);
  const v6 = parseIPv6(s);
  if (!v6) return undefined;
  const mapped = v6.slice(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff;
  return Uint8Array.from(mapped ? v6.slice(12) : v6);
}

function asList(v: GoValue): GoValue[] {
  return Array.isArray(v) ? v : []; // a nil slice means no entries
}

function netIPs(ips: GoValue): Uint8Array[] {
  return asList(ips).map((ip) => {
    if (typeof ip !== "string") throw new GoError(`error parsing ip: ${formatValue(ip)} is not a string`);
    const bytes = ipBytes(ip);
    if (!bytes) throw new GoError(`error parsing ip: ${ip}`);
    return bytes;
  });
}

function dnsNames(names: GoValue): string[] {
  return asList(names).map((n) => {
    if (typeof n !== "string")
      throw new GoError(`error processing alternate dns name: ${formatValue(n)} is not a string`);
    return n;
  });
}

// --- certificate assembly ---

interface Template {
  cn: string;
  ips: Uint8Array[];
  dns: string[];
  daysValid: bigint;
  isCA: boolean;
}

/** What Go takes from the parent certificate: its raw subject, public key and subject key id. */
interface Parent {
  subject: Uint8Array;
  publicKey?: KeyObject;
  subjectKeyId?: Uint8Array;
}

type SigningKey = Exclude<ParsedKey, { kind: "dsa" }>;

/** Signature algorithm (DER AlgorithmIdentifier) and digest Go picks for a signing key. */
function signatureParams(key: SigningKey): { algorithm: Uint8Array; digest: string | null } {
  switch (key.kind) {
    case "rsa":
      return { algorithm: derSequence([derOid("1.2.840.113549.1.1.11"), DER_NULL]), digest: "sha256" };
    case "ed25519":
      return { algorithm: derSequence([derOid("1.3.101.112")]), digest: null };
    case "ec": {
      const curve = key.key.asymmetricKeyDetails?.namedCurve;
      const byCurve: Record<string, [string, string]> = {
        prime256v1: ["1.2.840.10045.4.3.2", "sha256"],
        secp384r1: ["1.2.840.10045.4.3.3", "sha384"],
        secp521r1: ["1.2.840.10045.4.3.4", "sha512"],
      };
      const params = curve ? byCurve[curve] : undefined;
      if (!params) throw new GoError("error creating certificate: x509: unknown elliptic curve");
      return { algorithm: derSequence([derOid(params[0])]), digest: params[1] };
    }
  }
}

/** The subjectPublicKey bits of an SPKI, which Go hashes for the subject key id. */
function spkiKeyBits(spki: Uint8Array): Uint8Array {
  const [, bits] = readDerChildren(readDer(spki).content);
  return bits!.content.subarray(1);
}

/** x509.CreateCertificate for Sprig's template, returning the certificate and key PEMs. */
function createCertificate(
  t: Template,
  signee: ParsedKey,
  parent: Parent | "self",
  signer: ParsedKey,
): SprigCertificate {
  if (signer.kind === "dsa")
    throw new GoError("error creating certificate: x509: certificate private key does not implement crypto.Signer");
  const sig = signatureParams(signer);
  if (signee.kind === "dsa")
    throw new GoError("error creating certificate: x509: unsupported public key type: *dsa.PublicKey");
  const spki = nodeCrypto().createPublicKey(signee.key).export({ type: "spki", format: "der" });

  for (const name of t.dns) {
    if ([...name].some((c) => c > "\x7f"))
      throw new GoError(`error creating certificate: x509: ${JSON.stringify(name)} cannot be encoded as an IA5String`);
  }
  const subject = subjectName(t.cn);
  const issuer = parent === "self" ? subject : parent.subject;
  const sameName = Buffer.compare(Buffer.from(issuer), Buffer.from(subject)) === 0;
  const authorityKeyId = parent !== "self" && !sameName ? parent.subjectKeyId : undefined;
  const subjectKeyId = t.isCA ? nodeCrypto().createHash("sha1").update(spkiKeyBits(spki)).digest() : undefined;
  if (parent !== "self" && parent.publicKey && !nodeCrypto().createPublicKey(signer.key).equals(parent.publicKey)) {
    throw new GoError("error creating certificate: x509: provided PrivateKey doesn't match parent's PublicKey");
  }

  // Validity: now and now + days*24h, with Go's int64-nanosecond Duration wrap-around.
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  const afterNs = nowNs + BigInt.asIntN(64, t.daysValid * 86_400n * 1_000_000_000n);
  const floorDiv = (a: bigint, b: bigint) => (a >= 0n ? a / b : -((-a + b - 1n) / b));
  const validity = derSequence([derTime(floorDiv(nowNs, 1_000_000_000n)), derTime(floorDiv(afterNs, 1_000_000_000n))]);

  const extensions = [
    extension(
      "2.5.29.15",
      true,
      keyUsageValue(KU_DIGITAL_SIGNATURE | KU_KEY_ENCIPHERMENT | (t.isCA ? KU_CERT_SIGN : 0)),
    ),
    extension("2.5.29.37", false, derSequence([derOid("1.3.6.1.5.5.7.3.1"), derOid("1.3.6.1.5.5.7.3.2")])),
    extension("2.5.29.19", true, derSequence(t.isCA ? [DER_TRUE] : [])),
  ];
  if (subjectKeyId) extensions.push(extension("2.5.29.14", false, octetString(subjectKeyId)));
  if (authorityKeyId?.length)
    extensions.push(extension("2.5.29.35", false, derSequence([derElement(0x80, authorityKeyId)])));
  if (t.dns.length || t.ips.length) {
    const names = [...t.dns.map((n) => derElement(0x82, Buffer.from(n))), ...t.ips.map((ip) => derElement(0x87, ip))];
    // RFC 5280: the SAN extension is critical when the subject is empty.
    extensions.push(extension("2.5.29.17", t.cn === "", derSequence(names)));
  }

  const serial = BigInt(`0x${nodeCrypto().randomBytes(16).toString("hex")}`);
  const tbs = derSequence([
    derElement(0xa0, derInteger(2n)),
    derInteger(serial),
    sig.algorithm,
    issuer,
    validity,
    subject,
    spki,
    derElement(0xa3, derSequence(extensions)),
  ]);
  const signature = nodeCrypto().sign(sig.digest, tbs, signer.key);
  const der = derSequence([tbs, sig.algorithm, bitString(signature)]);
  return new SprigCertificate(pemEncode("CERTIFICATE", der), privateKeyPem(signee));
}

// --- reading the CA ---

/** The full DER (tag, length, content) of a parsed element; DER lengths are canonical, so this is exact. */
function elementBytes(el: DerElement): Uint8Array {
  return derElement(el.tag, el.content);
}

const OID_SUBJECT_KEY_ID = Buffer.from(derOid("2.5.29.14"));

function findSubjectKeyId(tbsFields: DerElement[]): Uint8Array | undefined {
  const wrapper = tbsFields.find((f) => f.tag === 0xa3);
  if (!wrapper) return undefined;
  for (const ext of readDerChildren(readDer(wrapper.content).content)) {
    const parts = readDerChildren(ext.content);
    if (Buffer.from(elementBytes(parts[0]!)).equals(OID_SUBJECT_KEY_ID)) return readDer(parts.at(-1)!.content).content;
  }
  return undefined;
}

/** The parts of the CA certificate Go uses; Sprig's errors when its PEM is unusable. */
function readParent(certPem: string): Parent {
  const block = pemDecode(certPem);
  if (!block) throw new GoError("unable to decode certificate");
  try {
    const publicKey = new (nodeCrypto().X509Certificate)(block.bytes).publicKey;
    const tbs = readDerChildren(readDerChildren(readDer(block.bytes).content)[0]!.content);
    // After the optional [0] version: serial, signature, issuer, validity, subject.
    const fields = tbs[0]!.tag === 0xa0 ? tbs.slice(1) : tbs;
    return { subject: elementBytes(fields[4]!), publicKey, subjectKeyId: findSubjectKeyId(fields) };
  } catch {
    // Go's parse errors name asn1 details we cannot reproduce.
    throw new GoError("error parsing certificate: decodedSignerCert.Bytes: x509: malformed certificate");
  }
}

// --- the template functions ---

function newRsaKey(): ParsedKey {
  return { kind: "rsa", key: nodeCrypto().generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey };
}

/** Parses a key PEM argument, wrapping failures as `PREFIX: reason` the way each Sprig function does. */
function keyFromPem(pem: string, prefix: string): ParsedKey {
  try {
    return parsePrivateKeyPem(pem);
  } catch (e) {
    if (e instanceof KeyParseError) throw new GoError(`${prefix}: ${e.message}`);
    throw e;
  }
}

function baseTemplate(cn: string, ips: GoValue, dns: GoValue, daysValid: GoValue, isCA = false): Template {
  return { cn, ips: netIPs(ips), dns: dnsNames(dns), daysValid: daysValid as bigint, isCA };
}

function certificateArg(v: GoValue): { cert: string; key: string } {
  if (isGoObject(v)) return { cert: String(v.goField("Cert") ?? ""), key: String(v.goField("Key") ?? "") };
  return { cert: "", key: "" };
}

function genCA(cn: string, days: GoValue, key: ParsedKey): SprigCertificate {
  return createCertificate(baseTemplate(cn, null, null, days, true), key, "self", key);
}

function genSelfSigned(cn: string, ips: GoValue, dns: GoValue, days: GoValue, key: ParsedKey): SprigCertificate {
  return createCertificate(baseTemplate(cn, ips, dns, days), key, "self", key);
}

function genSigned(
  cn: string,
  ips: GoValue,
  dns: GoValue,
  days: GoValue,
  ca: GoValue,
  key: ParsedKey,
): SprigCertificate {
  const { cert, key: caKeyPem } = certificateArg(ca);
  const parent = readParent(cert);
  const signer = keyFromPem(caKeyPem, "error parsing private key");
  return createCertificate(baseTemplate(cn, ips, dns, days), key, parent, signer);
}

function buildCustomCert(b64cert: string, b64key: string): SprigCertificate {
  const decode = (s: string, what: string) => {
    try {
      return Buffer.from(decodeBase64Std(s)).toString("utf8");
    } catch {
      throw new GoError(`unable to decode base64 ${what}`);
    }
  };
  const cert = decode(b64cert, "certificate");
  const key = decode(b64key, "private key");
  const block = pemDecode(cert);
  if (!block) throw new GoError("unable to decode certificate");
  try {
    new (nodeCrypto().X509Certificate)(block.bytes);
  } catch {
    throw new GoError("error parsing certificate: decodedCert.Bytes: x509: malformed certificate");
  }
  keyFromPem(key, "error parsing private key");
  return new SprigCertificate(cert, key);
}

const CERT_RESULT = "(sprig.certificate, error)";
const LIST = "[]interface {}";

export const certsFuncs: Record<string, GoFunc> = {
  buildCustomCert: goFunc(
    "buildCustomCert",
    ["string", "string"],
    (c, k) => buildCustomCert(c as string, k as string),
    CERT_RESULT,
  ),
  genCA: goFunc("genCA", ["string", "int"], (cn, days) => genCA(cn as string, days, newRsaKey()), CERT_RESULT),
  genCAWithKey: goFunc(
    "genCAWithKey",
    ["string", "int", "string"],
    (cn, days, pem) => genCA(cn as string, days, keyFromPem(pem as string, "parsing private key")),
    CERT_RESULT,
  ),
  genSelfSignedCert: goFunc(
    "genSelfSignedCert",
    ["string", LIST, LIST, "int"],
    (cn, ips, dns, days) => genSelfSigned(cn as string, ips, dns, days, newRsaKey()),
    CERT_RESULT,
  ),
  genSelfSignedCertWithKey: goFunc(
    "genSelfSignedCertWithKey",
    ["string", LIST, LIST, "int", "string"],
    (cn, ips, dns, days, pem) =>
      genSelfSigned(cn as string, ips, dns, days, keyFromPem(pem as string, "parsing private key")),
    CERT_RESULT,
  ),
  genSignedCert: goFunc(
    "genSignedCert",
    ["string", LIST, LIST, "int", "sprig.certificate"],
    (cn, ips, dns, days, ca) => genSigned(cn as string, ips, dns, days, ca, newRsaKey()),
    CERT_RESULT,
  ),
  genSignedCertWithKey: goFunc(
    "genSignedCertWithKey",
    ["string", LIST, LIST, "int", "sprig.certificate", "string"],
    (cn, ips, dns, days, ca, pem) =>
      genSigned(cn as string, ips, dns, days, ca, keyFromPem(pem as string, "parsing private key")),
    CERT_RESULT,
  ),
};
