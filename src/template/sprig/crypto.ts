// biome-ignore-all lint/style/noNonNullAssertion: a port of Go code that indexes arrays, regex groups and function tables after checking lengths and names; `!` marks those places
/**
 * Sprig's crypto functions (crypto.go): bcrypt, htpasswd, derivePassword, genPrivateKey,
 * encryptAES/decryptAES, randBytes, uuidv4. Certificates live in certs.ts.
 *
 * Sprig reports most failures by returning a message as the result string (bcrypt, htpasswd,
 * derivePassword, genPrivateKey); only randBytes, encryptAES and decryptAES return Go errors. Go
 * runtime panics inside these functions (bad slice bounds in decryptAES, a negative randBytes count)
 * reach the template as errors carrying the runtime's message, which we reproduce.
 */
import bcryptLib from "bcryptjs";
import { GoError, type GoFunc, type GoValue, goFunc, intValue } from "../../go/value.js";
import { derInteger, derSequence, derToBigInt, modPow, pemEncode, readDer, readDerChildren } from "./der.js";
import { bytesToString, decodeBase64Std, encodeBase64Std, utf8Bytes } from "./encoding.js";
import { checkResultSize } from "./limits.js";
import { nodeCrypto } from "./node-crypto.js";

/** Go's x/crypto bcrypt: cost 10 and the `$2a$` prefix (bcryptjs defaults to `$2b$`, same algorithm). */
function bcryptHash(password: string): string {
  const salt = bcryptLib.genSaltSync(10).replace(/^\$2b\$/, "$2a$");
  return bcryptLib.hashSync(password, salt);
}

function htpasswd(username: string, password: string): string {
  if (username.includes(":")) return `invalid username: ${username}`;
  return `${username}:${bcryptHash(password)}`;
}

// --- derivePassword: the Master Password algorithm (lyndir) Sprig implements ---

const MASTER_PASSWORD_SEED = "com.lyndir.masterpassword";

const PASSWORD_TEMPLATES: Record<string, string[]> = {
  maximum: ["anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"],
  long: [
    "CvcvnoCvcvCvcv",
    "CvcvCvcvnoCvcv",
    "CvcvCvcvCvcvno",
    "CvccnoCvcvCvcv",
    "CvccCvcvnoCvcv",
    "CvccCvcvCvcvno",
    "CvcvnoCvccCvcv",
    "CvcvCvccnoCvcv",
    "CvcvCvccCvcvno",
    "CvcvnoCvcvCvcc",
    "CvcvCvcvnoCvcc",
    "CvcvCvcvCvccno",
    "CvccnoCvccCvcv",
    "CvccCvccnoCvcv",
    "CvccCvccCvcvno",
    "CvcvnoCvccCvcc",
    "CvcvCvccnoCvcc",
    "CvcvCvccCvccno",
    "CvccnoCvcvCvcc",
    "CvccCvcvnoCvcc",
    "CvccCvcvCvccno",
  ],
  medium: ["CvcnoCvc", "CvcCvcno"],
  short: ["Cvcn"],
  basic: ["aaanaaan", "aannaaan", "aaannaaa"],
  pin: ["nnnn"],
};

const TEMPLATE_CHARACTERS: Record<string, string> = {
  V: "AEIOU",
  C: "BCDFGHJKLMNPQRSTVWXYZ",
  v: "aeiou",
  c: "bcdfghjklmnpqrstvwxyz",
  A: "AEIOUBCDFGHJKLMNPQRSTVWXYZ",
  a: "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
  n: "0123456789",
  o: "@&%?,=[]_:-+*$#!'^~;()/.",
  x: "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
};

function uint32BE(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** seed ‖ len(s) as big-endian uint32 ‖ s, the framing Master Password uses for user and site. */
function framed(s: string): Buffer {
  const bytes = utf8Bytes(s);
  return Buffer.concat([Buffer.from(MASTER_PASSWORD_SEED), uint32BE(bytes.length), bytes]);
}

function derivePassword(counter: number, passwordType: string, password: string, user: string, site: string): string {
  const templates = Object.hasOwn(PASSWORD_TEMPLATES, passwordType) ? PASSWORD_TEMPLATES[passwordType] : undefined;
  if (!templates) return `cannot find password template ${passwordType}`;
  // scrypt N=32768, r=8, p=2 needs 64 MiB, above node's default memory cap.
  const key = nodeCrypto().scryptSync(utf8Bytes(password), framed(user), 64, {
    N: 32768,
    r: 8,
    p: 2,
    maxmem: 256 * 1024 * 1024,
  });
  const seed = nodeCrypto()
    .createHmac("sha256", key)
    .update(Buffer.concat([framed(site), uint32BE(counter)]))
    .digest();
  const template = templates[seed[0]! % templates.length]!;
  let out = "";
  for (let i = 0; i < template.length; i++) {
    const chars = TEMPLATE_CHARACTERS[template[i]!]!;
    out += chars[seed[i + 1]! % chars.length];
  }
  return out;
}

// --- genPrivateKey ---

/**
 * A DSA key in the "DSA PRIVATE KEY" layout Go's Sprig writes: SEQUENCE { 0, P, Q, G, Y, X }.
 * node generates DSA keys but exports them only as PKCS#8, so the parts are taken from there
 * (PKCS#8 carries P, Q, G and X; Y = G^X mod P).
 */
function generateDsaPem(): string {
  const { privateKey } = nodeCrypto().generateKeyPairSync("dsa", { modulusLength: 2048, divisorLength: 256 });
  const pkcs8 = privateKey.export({ type: "pkcs8", format: "der" });
  const [, algorithm, keyOctets] = readDerChildren(readDer(pkcs8).content);
  const [, params] = readDerChildren(algorithm!.content);
  const [p, q, g] = readDerChildren(params!.content).map((e) => derToBigInt(e.content)) as [bigint, bigint, bigint];
  const x = derToBigInt(readDer(keyOctets!.content).content);
  const y = modPow(g, x, p);
  return pemEncode("DSA PRIVATE KEY", derSequence([derInteger(0n), ...[p, q, g, y, x].map(derInteger)]));
}

/** PEM of a new key of the given type, in the block type Sprig picks for it. */
export function generatePrivateKeyPem(type: string): string {
  switch (type) {
    case "":
    case "rsa":
      return nodeCrypto().generateKeyPairSync("rsa", { modulusLength: 4096 }).privateKey.export({
        type: "pkcs1",
        format: "pem",
      }) as string;
    case "dsa":
      return generateDsaPem();
    case "ecdsa":
      return nodeCrypto().generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({
        type: "sec1",
        format: "pem",
      }) as string;
    case "ed25519":
      return nodeCrypto().generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }) as string;
    default:
      return `Unknown type ${type}`;
  }
}

// --- encryptAES / decryptAES: AES-256-CBC, key = password bytes zero-padded/truncated to 32 ---

function aesKey(password: string): Buffer {
  const key = Buffer.alloc(32);
  Buffer.from(utf8Bytes(password)).copy(key, 0, 0, 32);
  return key;
}

function encryptAES(password: string, plaintext: string): string {
  if (plaintext === "") return "";
  const iv = nodeCrypto().randomBytes(16);
  // node's default PKCS#7 padding is the padding Sprig adds by hand.
  const cipher = nodeCrypto().createCipheriv("aes-256-cbc", aesKey(password), iv);
  const body = Buffer.concat([cipher.update(utf8Bytes(plaintext)), cipher.final()]);
  return Buffer.concat([iv, body]).toString("base64");
}

function decryptAES(password: string, crypt64: string): string {
  if (crypt64 === "") return "";
  let crypt: Uint8Array;
  try {
    crypt = decodeBase64Std(crypt64);
  } catch (e) {
    throw new GoError((e as Error).message);
  }
  if (crypt.length < 16)
    throw new GoError(`runtime error: slice bounds out of range [:16] with capacity ${crypt.length}`);
  const body = crypt.subarray(16);
  if (body.length % 16 !== 0) throw new GoError("crypto/cipher: input not full blocks");
  // Sprig strips the padding without checking it: the last byte says how many bytes to drop.
  const decipher = nodeCrypto().createDecipheriv("aes-256-cbc", aesKey(password), crypt.subarray(0, 16));
  decipher.setAutoPadding(false);
  const plain = Buffer.concat([decipher.update(body), decipher.final()]);
  if (plain.length === 0) throw new GoError("runtime error: index out of range [-1]");
  const keep = plain.length - plain[plain.length - 1]!;
  if (keep < 0) throw new GoError(`runtime error: slice bounds out of range [:${keep}]`);
  return bytesToString(plain.subarray(0, keep));
}

function randBytes(count: bigint): string {
  checkResultSize("randBytes", count > 0n ? (count * 4n) / 3n : 0n);
  if (count < 0n) throw new GoError("runtime error: makeslice: len out of range");
  const bytes = new Uint8Array(Number(count));
  // getRandomValues fills at most 65,536 bytes per call.
  for (let i = 0; i < bytes.length; i += 65536) globalThis.crypto.getRandomValues(bytes.subarray(i, i + 65536));
  return encodeBase64Std(bytes);
}

/** The uint32 counter may arrive as a plain int or a TypedNumber("uint32", ...). */
function counterValue(v: GoValue): number {
  return Number(BigInt.asUintN(32, intValue(v) ?? 0n));
}

export const cryptoFuncs: Record<string, GoFunc> = {
  bcrypt: goFunc("bcrypt", ["string"], (s) => bcryptHash(s as string), "string"),
  htpasswd: goFunc("htpasswd", ["string", "string"], (u, p) => htpasswd(u as string, p as string), "string"),
  derivePassword: goFunc(
    "derivePassword",
    ["uint32", "string", "string", "string", "string"],
    (counter, type, password, user, site) =>
      derivePassword(counterValue(counter), type as string, password as string, user as string, site as string),
    "string",
  ),
  genPrivateKey: goFunc("genPrivateKey", ["string"], (t) => generatePrivateKeyPem(t as string), "string"),
  encryptAES: goFunc(
    "encryptAES",
    ["string", "string"],
    (k, t) => encryptAES(k as string, t as string),
    "(string, error)",
  ),
  decryptAES: goFunc(
    "decryptAES",
    ["string", "string"],
    (k, t) => decryptAES(k as string, t as string),
    "(string, error)",
  ),
  randBytes: goFunc("randBytes", ["int"], (n) => randBytes(n as bigint), "(string, error)"),
  uuidv4: goFunc("uuidv4", [], () => globalThis.crypto.randomUUID(), "string"),
};
