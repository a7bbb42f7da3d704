// biome-ignore-all lint/style/noNonNullAssertion: a port of Go code that indexes arrays, regex groups and function tables after checking lengths and names; `!` marks those places
/**
 * Sprig's urlParse and urlJoin, over a port of the parts of Go's net/url they use (Parse, Hostname,
 * Userinfo.String, URL.String). The WHATWG URL class is not used: it normalises and rejects input
 * differently from Go.
 *
 * Go's net/url works on bytes. We do the same by working on a "byte string": each UTF-8 byte of the
 * input becomes one char code 0..255 (latin1), and results are turned back into UTF-8 text at the end.
 */
import { quote, quoteBytes } from "../../go/strconv.js";
import { GoError, type GoFunc, type GoValue, goFunc, isMap, mapGet, newMap, reflectKindName } from "../../go/value.js";
import { nilDeref } from "./cast.js";

const toBytes = (s: string): string => Buffer.from(s, "utf8").toString("latin1");
const fromBytes = (b: string): string => Buffer.from(b, "latin1").toString("utf8");

type Mode = "path" | "pathSegment" | "host" | "zone" | "userPassword" | "queryComponent" | "fragment";

/** strconv.Quote of a byte string: valid UTF-8 shows as text, stray bytes as \xNN. */
const quoteByteString = (b: string): string => quoteBytes(Buffer.from(b, "latin1"));

const isAlnum = (c: string): boolean => /[A-Za-z0-9]/.test(c);
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9A-Fa-f]$/.test(c);

/** Go's shouldEscape: whether byte `c` must be %-escaped in the given URL part. */
function shouldEscape(c: string, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  if ((mode === "host" || mode === "zone") && "!$&'()*+,;=:[]<>\"".includes(c)) return false;
  if ("-_.~".includes(c)) return false;
  if ("$&+,/:;=?@".includes(c)) {
    switch (mode) {
      case "path":
        return c === "?";
      case "pathSegment":
        return "/;,?".includes(c);
      case "userPassword":
        return "@/?:".includes(c);
      case "queryComponent":
        return true;
      case "fragment":
        return false;
    }
  }
  if (mode === "fragment" && "!()*".includes(c)) return false;
  return true;
}

class UrlError extends Error {}

function urlUnescape(s: string, mode: Mode): string {
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === "%") {
      if (!isHex(s[i + 1]) || !isHex(s[i + 2])) {
        throw new UrlError(`invalid URL escape ${quoteByteString(s.slice(i, i + 3))}`);
      }
      const code = Number.parseInt(s.slice(i + 1, i + 3), 16);
      if (mode === "host" && code >> 4 < 8 && s.slice(i, i + 3) !== "%25") {
        throw new UrlError(`invalid URL escape ${quoteByteString(s.slice(i, i + 3))}`);
      }
      if (
        mode === "zone" &&
        s.slice(i, i + 3) !== "%25" &&
        code !== 0x20 &&
        shouldEscape(String.fromCharCode(code), "host")
      ) {
        throw new UrlError(`invalid URL escape ${quoteByteString(s.slice(i, i + 3))}`);
      }
      i += 3;
    } else {
      if ((mode === "host" || mode === "zone") && c.charCodeAt(0) < 0x80 && shouldEscape(c, mode)) {
        throw new UrlError(`invalid character ${quote(c)} in host name`);
      }
      i++;
    }
  }
  return s
    .replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
    .replace(/\+/g, mode === "queryComponent" ? " " : "+");
}

function urlEscape(s: string, mode: Mode): string {
  let out = "";
  for (const c of s) {
    if (c === " " && mode === "queryComponent") out += "+";
    else if (shouldEscape(c, mode)) out += `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`;
    else out += c;
  }
  return out;
}

interface Userinfo {
  username: string;
  password?: string;
}

/** The fields of Go's url.URL that Sprig reads or writes (all in byte-string form). */
interface GoURL {
  scheme: string;
  opaque: string;
  user?: Userinfo;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  forceQuery: boolean;
  fragment: string;
  rawFragment: string;
}

function emptyURL(): GoURL {
  return {
    scheme: "",
    opaque: "",
    host: "",
    path: "",
    rawPath: "",
    rawQuery: "",
    forceQuery: false,
    fragment: "",
    rawFragment: "",
  };
}

function userinfoString(u: Userinfo): string {
  let s = urlEscape(u.username, "userPassword");
  if (u.password !== undefined) s += `:${urlEscape(u.password, "userPassword")}`;
  return s;
}

function validOptionalPort(port: string): boolean {
  return port === "" || /^:[0-9]*$/.test(port);
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ["", raw];
      continue;
    }
    if (c === ":") {
      if (i === 0) throw new UrlError("missing protocol scheme");
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ["", raw];
  }
  return ["", raw];
}

function parseHost(host: string): string {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    if (i < 0) throw new UrlError("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new UrlError(`invalid port ${quoteByteString(colonPort)} after host`);
    // An IPv6 zone (after %25) has its own escaping rules.
    const zone = host.slice(0, i).indexOf("%25");
    if (zone >= 0) {
      return (
        urlUnescape(host.slice(0, zone), "host") +
        urlUnescape(host.slice(zone, i), "zone") +
        urlUnescape(host.slice(i), "host")
      );
    }
  } else {
    const i = host.lastIndexOf(":");
    if (i !== -1 && !validOptionalPort(host.slice(i))) {
      throw new UrlError(`invalid port ${quoteByteString(host.slice(i))} after host`);
    }
  }
  return urlUnescape(host, "host");
}

function parseAuthority(authority: string): [Userinfo | undefined, string] {
  const at = authority.lastIndexOf("@");
  const host = parseHost(at < 0 ? authority : authority.slice(at + 1));
  if (at < 0) return [undefined, host];
  const userinfo = authority.slice(0, at);
  if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) throw new UrlError("net/url: invalid userinfo");
  const colon = userinfo.indexOf(":");
  if (colon < 0) return [{ username: urlUnescape(userinfo, "userPassword") }, host];
  return [
    {
      username: urlUnescape(userinfo.slice(0, colon), "userPassword"),
      password: urlUnescape(userinfo.slice(colon + 1), "userPassword"),
    },
    host,
  ];
}

function parseWithoutFragment(raw: string): GoURL {
  if ([...raw].some((c) => c < " " || c === "\x7f")) throw new UrlError("net/url: invalid control character in URL");
  const url = emptyURL();
  if (raw === "*") {
    url.path = "*";
    return url;
  }
  let rest: string;
  [url.scheme, rest] = getScheme(raw);
  url.scheme = url.scheme.toLowerCase();
  if (rest.endsWith("?") && rest.indexOf("?") === rest.length - 1) {
    url.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf("?");
    if (q >= 0) [rest, url.rawQuery] = [rest.slice(0, q), rest.slice(q + 1)];
  }
  if (!rest.startsWith("/")) {
    if (url.scheme !== "") {
      url.opaque = rest;
      return url;
    }
    if (rest.split("/")[0]!.includes(":")) throw new UrlError("first path segment in URL cannot contain colon");
  }
  if ((url.scheme !== "" || !rest.startsWith("///")) && rest.startsWith("//")) {
    let authority = rest.slice(2);
    rest = "";
    const slash = authority.indexOf("/");
    if (slash >= 0) [authority, rest] = [authority.slice(0, slash), authority.slice(slash)];
    [url.user, url.host] = parseAuthority(authority);
  }
  url.path = urlUnescape(rest, "path");
  url.rawPath = urlEscape(url.path, "path") === rest ? "" : rest;
  return url;
}

/** url.Parse. Errors carry Go's `parse "URL": reason` text. */
function parseURL(rawText: string): GoURL {
  const raw = toBytes(rawText);
  const hash = raw.indexOf("#");
  const [beforeHash, frag] = hash < 0 ? [raw, ""] : [raw.slice(0, hash), raw.slice(hash + 1)];
  let url: GoURL;
  try {
    url = parseWithoutFragment(beforeHash);
  } catch (e) {
    if (e instanceof UrlError) throw new UrlError(`parse ${quoteByteString(beforeHash)}: ${e.message}`);
    throw e;
  }
  if (frag === "") return url;
  try {
    url.fragment = urlUnescape(frag, "fragment");
  } catch (e) {
    if (e instanceof UrlError) throw new UrlError(`parse ${quote(rawText)}: ${e.message}`);
    throw e;
  }
  url.rawFragment = urlEscape(url.fragment, "fragment") === frag ? "" : frag;
  return url;
}

/** Go's validEncoded: may `s` be emitted as-is in place of re-escaping? */
function validEncoded(s: string, mode: Mode): boolean {
  for (const c of s) {
    if ("!$&'()*+,;=:@[]%".includes(c)) continue;
    if (shouldEscape(c, mode)) return false;
  }
  return true;
}

function escapedPath(u: GoURL): string {
  if (u.rawPath !== "" && validEncoded(u.rawPath, "path")) {
    try {
      if (urlUnescape(u.rawPath, "path") === u.path) return u.rawPath;
    } catch {
      // fall through to escaping Path
    }
  }
  if (u.path === "*") return "*";
  return urlEscape(u.path, "path");
}

function escapedFragment(u: GoURL): string {
  if (u.rawFragment !== "" && validEncoded(u.rawFragment, "fragment")) {
    try {
      if (urlUnescape(u.rawFragment, "fragment") === u.fragment) return u.rawFragment;
    } catch {
      // fall through
    }
  }
  return urlEscape(u.fragment, "fragment");
}

/** URL.String, for a URL built from fields (so OmitHost is false). */
function urlString(u: GoURL): string {
  let buf = "";
  if (u.scheme !== "") buf += `${u.scheme}:`;
  if (u.opaque !== "") {
    buf += u.opaque;
  } else {
    if (u.scheme !== "" || u.host !== "" || u.user) {
      if (u.host !== "" || u.path !== "" || u.user) buf += "//";
      if (u.user) buf += `${userinfoString(u.user)}@`;
      if (u.host !== "") buf += urlEscape(u.host, "host");
    }
    const path = escapedPath(u);
    if (path !== "" && path[0] !== "/" && u.host !== "") buf += "/";
    // A relative path whose first segment has a colon would read as a scheme.
    if (buf === "" && path.split("/")[0]!.includes(":")) buf += "./";
    buf += path;
  }
  if (u.forceQuery || u.rawQuery !== "") buf += `?${u.rawQuery}`;
  if (u.fragment !== "") buf += `#${escapedFragment(u)}`;
  return buf;
}

function hostname(host: string): string {
  let h = host;
  const colon = h.lastIndexOf(":");
  if (colon !== -1 && validOptionalPort(h.slice(colon))) h = h.slice(0, colon);
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  return h;
}

function urlParse(v: string): Record<string, GoValue> {
  let u: GoURL;
  try {
    u = parseURL(v);
  } catch (e) {
    // Sprig panics with this text; the template reports the recovered panic as the error.
    if (e instanceof UrlError) throw new GoError(`unable to parse url: ${e.message}`);
    throw e;
  }
  const dict = newMap();
  dict.scheme = fromBytes(u.scheme);
  dict.host = fromBytes(u.host);
  dict.hostname = fromBytes(hostname(u.host));
  dict.path = fromBytes(u.path);
  dict.query = fromBytes(u.rawQuery);
  dict.opaque = fromBytes(u.opaque);
  dict.fragment = fromBytes(u.fragment);
  dict.userinfo = u.user ? fromBytes(userinfoString(u.user)) : "";
  return dict;
}

/** A string entry of the dict, "" when absent; anything else is a (recovered) panic in Sprig. */
function dictString(d: Record<string, GoValue>, key: string): string {
  const v = mapGet(d, key);
  if (v === undefined) return "";
  // reflect.TypeOf(nil).Kind() dereferences a nil Type.
  if (v === null) nilDeref();
  if (typeof v !== "string") {
    throw new GoError(`unable to parse ${key} key, must be of type string, but ${reflectKindName(v)} found`);
  }
  return toBytes(v);
}

function urlJoin(d: Record<string, GoValue>): string {
  const u = emptyURL();
  u.scheme = dictString(d, "scheme");
  u.host = dictString(d, "host");
  u.path = dictString(d, "path");
  u.rawQuery = dictString(d, "query");
  u.opaque = dictString(d, "opaque");
  u.fragment = dictString(d, "fragment");
  const userinfo = dictString(d, "userinfo");
  if (userinfo !== "") {
    // Sprig parses the userinfo by embedding it in a throwaway URL.
    const probe = fromBytes(`proto://${userinfo}@host`);
    try {
      u.user = parseURL(probe).user;
    } catch (e) {
      if (e instanceof UrlError) throw new GoError(`unable to parse userinfo in dict: ${e.message}`);
      throw e;
    }
  }
  return fromBytes(urlString(u));
}

export const urlFuncs: Record<string, GoFunc> = {
  urlParse: goFunc("urlParse", ["string"], (v) => urlParse(v as string), "map[string]interface {}"),
  urlJoin: goFunc(
    "urlJoin",
    ["map[string]interface {}"],
    (d) => urlJoin(isMap(d) ? (d as Record<string, GoValue>) : newMap()),
    "string",
  ),
};
