/**
 * Random Go templates and data for the robustness property test (robustness.test.ts, beside it)
 * and the differential run against the Go oracle (scripts/differential.ts).
 *
 * Three template sources:
 * - `tokenSoup`: fragments of template syntax in random order; mostly parse errors, which is the point.
 * - `mutatedTemplate`: small character/token edits of a corpus of valid Istio-like and Helm-like snippets.
 * - `validTemplate`: a typed grammar producing templates that nearly always parse and mostly execute.
 *
 * Sprig functions that are slow by design (key generation, bcrypt, DNS) or whose cost grows with a
 * numeric argument (`repeat`, `until`, `seq`, `indent`, ...) only appear as complete calls with small
 * literal arguments, so that no random combination can ask for a gigabyte of output.
 */
import fc from "fast-check";

/** A source of random choices: fast-check's `fc.gen()` in tests, the same in the differential run. */
export interface Rng {
  /** A uniform integer in [min, max]. */
  int(min: number, max: number): number;
}

function pick<T>(r: Rng, items: readonly T[]): T {
  return items[r.int(0, items.length - 1)] as T;
}

function chance(r: Rng, percent: number): boolean {
  return r.int(0, 99) < percent;
}

/** An arbitrary built from an Rng-driven function (fast-check still replays it from the seed). */
export function fromRng<T>(build: (r: Rng) => T): fc.Arbitrary<T> {
  return fc.gen().map((g) => build({ int: (min, max) => g(fc.integer, { min, max }) }));
}

// ---- function names --------------------------------------------------------------------------------

export const BUILTIN_FUNCS = [
  "and",
  "or",
  "not",
  "len",
  "index",
  "slice",
  "call",
  "eq",
  "ne",
  "lt",
  "le",
  "gt",
  "ge",
  "html",
  "js",
  "urlquery",
  "print",
  "printf",
  "println",
];

/** Never emitted bare: slow by design, or cost driven by an argument. */
export const UNSAFE_SPRIG_FUNCS = new Set([
  "getHostByName",
  "genPrivateKey",
  "genCA",
  "genCAWithKey",
  "genSelfSignedCert",
  "genSelfSignedCertWithKey",
  "genSignedCert",
  "genSignedCertWithKey",
  "buildCustomCert",
  "bcrypt",
  "htpasswd",
  "derivePassword",
  "repeat",
  "until",
  "untilStep",
  "seq",
  "indent",
  "nindent",
  "randAlpha",
  "randAlphaNum",
  "randAscii",
  "randNumeric",
  "randBytes",
]);

/** Size-sensitive functions as whole calls with small literal arguments (parenthesised: nothing can be piped in). */
export const SAFE_SIZED_CALLS = [
  '(repeat 3 "ab")',
  "(until 4)",
  "(untilStep 0 6 2)",
  "(seq 1 3)",
  "(seq 5 -1 2)",
  '(indent 2 "a\\nb")',
  '(nindent 4 "x")',
  "(randAlpha 3)",
];

// ---- token soup ------------------------------------------------------------------------------------

const NUMBER_LITERALS = [
  "0",
  "1",
  "-2",
  "+3",
  "42",
  "07",
  "017",
  "0o17",
  "0O7",
  "0x1F",
  "0X_ff",
  "0b101",
  "1_000",
  "1__0",
  "0x",
  "08",
  "1.5",
  ".5",
  "1.",
  "-0.25",
  "1e3",
  "2.5E-3",
  "1e300",
  "0x1p-2",
  "0x1.8p1",
  "1i",
  "2.5i",
  "0x10i",
  "1+2i",
  "9223372036854775807",
  "-9223372036854775808",
  "9223372036854775808",
  "0x8000000000000000",
  "18446744073709551616",
];

const STRING_LITERALS = [
  '"x"',
  '""',
  '"a b"',
  '"a,b,c"',
  '"1.2.3"',
  '"\\n\\t\\\\"',
  '"\\x41\\u00e9\\U0001F600"',
  '"\\101"',
  '"\\q"',
  '"unterminated',
  '"%v-%d-%s"',
  '"%5.2f|%-4q|%x"',
  '"[a-z]+"',
  '"(a|b"',
  '"{\\"a\\":1}"',
  "`raw \\n {{ }}`",
  "`unterminated",
  "'a'",
  "'\\n'",
  "'\\x41'",
  "'\\u00e9'",
  "'é'",
  "'ab'",
  "''",
  "'\\'",
];

const VARIABLES = ["$", "$x", "$y", "$i", "$v", "$x.a", "$.a", "$undefined"];
const FIELDS = [".", ".a", ".b", ".n", ".s", ".l", ".m", ".m.x", ".a.b.c", ".Values.global", ".nope", ". a", ".1"];
const KEYWORD_FRAGMENTS = [
  "if ",
  "else",
  "else if ",
  "else with ",
  "with ",
  "range ",
  "range $i, $v := ",
  "end",
  'define "t"',
  'define "t2"',
  'template "t"',
  'template "t" .',
  'template "t2" .a',
  'template "nope"',
  'block "b" .',
  "break",
  "continue",
  "nil",
  "true",
  "false",
];
const PUNCTUATION = [
  "{{",
  "}}",
  "{{- ",
  " -}}",
  "{{-",
  "-}}",
  "{{/* c */}}",
  "{{- /* c */ -}}",
  "/*",
  "*/",
  "|",
  ":=",
  "=",
  "$x :=",
  "$y =",
  "(",
  ")",
  ",",
  " ",
  " ",
  "\n",
  "text",
  "{",
  "}",
  "@",
  "#",
  "\\",
  "\t",
];

/** Every fragment the soup is made of, also the token alphabet of the mutations. */
export function soupFragments(functionNames: readonly string[]): string[] {
  return [
    ...PUNCTUATION,
    ...PUNCTUATION, // delimiters and spaces twice as often, so that actions actually form
    ...KEYWORD_FRAGMENTS,
    ...NUMBER_LITERALS,
    ...STRING_LITERALS,
    ...VARIABLES,
    ...FIELDS,
    ...SAFE_SIZED_CALLS,
    ...functionNames.filter((f) => !UNSAFE_SPRIG_FUNCS.has(f)),
    "nope",
    "undefinedFunc",
  ];
}

/** Random sequences of template syntax; a third start with `{{` so that the lexer gets past text. */
export function tokenSoup(functionNames: readonly string[]): fc.Arbitrary<string> {
  const fragment = fc.constantFrom(...soupFragments(functionNames));
  return fc
    .tuple(fc.boolean(), fc.array(fragment, { maxLength: 40 }), fc.constantFrom("", " ", "  "))
    .map(([open, parts, sep]) => (open ? "{{ " : "") + parts.join(sep));
}

// ---- mutations of valid templates ------------------------------------------------------------------

/** Valid templates in the style of Istio's injection templates and Helm charts. */
export const TEMPLATE_CORPUS: readonly string[] = [
  "{{ .a }}",
  'name: {{ .name | default "app" | quote }}',
  "{{- if .Values.global.proxy }}\nimage: {{ .Values.global.proxy.image }}\n{{- end }}",
  "{{ range $i, $v := .l }}{{ if $i }}, {{ end }}{{ $v | toString | quote }}{{ end }}",
  "{{ with .m }}{{ range $k, $v := . }}{{ $k }}={{ $v }};{{ end }}{{ else }}none{{ end }}",
  "{{ $x := .n | default 3 }}{{ if gt (int $x) 2 }}big{{ else if eq (int $x) 2 }}two{{ else }}small{{ end }}",
  '{{ define "t" }}<{{ . }}>{{ end }}{{ template "t" .a }}{{ block "b" .l }}[{{ len . }}]{{ end }}',
  '{{ printf "%s-%d-%v-%5.2f" "x" 3 .a 1.5 }}',
  '{{ index .m "x" }} {{ index .l 0 }} {{ len .s }} {{ slice .l 1 }}',
  "{{ toJson .m }}\n{{ toYaml .m }}",
  "{{- $proxy := .Values.global.proxy -}}\n{{- if and $proxy (not (empty $proxy.image)) }}{{ $proxy.image }}{{ end -}}",
  '{{ range .l }}{{ if eq (kindOf .) "string" }}{{ break }}{{ end }}{{ . }}{{ continue }}{{ end }}',
  "annotations:\n{{ range $k, $v := .ObjectMeta.annotations }}  {{ $k }}: {{ $v | quote }}\n{{ end }}",
  '{{ $ann := .ObjectMeta.annotations | default (dict) }}{{ index $ann "sidecar.istio.io/inject" | default "true" }}',
  '{{ if eq (index .ObjectMeta.annotations "sidecar.istio.io/interceptionMode" | default "REDIRECT") "TPROXY" }}tproxy{{ end }}',
  '- name: istio-proxy\n  image: "{{ .Values.global.hub }}/proxyv2:{{ .Values.global.tag }}"\n  args:\n{{ toYaml .args | indent 4 }}',
  '{{ $list := list 1 "two" 3.0 }}{{ range $list }}{{ typeOf . }} {{ end }}{{ $list | join "," }}',
  '{{ $d := dict "a" 1 "b" (list 2 3) }}{{ $_ := set $d "c" .s }}{{ $d | toJson }}{{ keys $d | sortAlpha }}',
  '{{ .s | upper | trunc 3 | replace "A" "b" | trimSuffix "x" }}{{ "abc" | b64enc }}{{ sha256sum "x" }}',
  "{{ add 1 .n | mul 2 }} {{ div 7 2 }} {{ mod 7 3 }} {{ max 1 2 3 }} {{ addf 1.5 2 }} {{ round 2.567 2 }}",
  '{{ semverCompare ">=1.2" "1.3.0" }} {{ regexReplaceAll "a(x*)b" "-ab-axxb-" "[$1]W" }} {{ regexMatch "^[a-z]+$" .s }}',
  '{{ coalesce .a .b "z" }} {{ ternary "y" "n" (hasKey .m "x") }} {{ dig "a" "b" "def" .m }} {{ pluck "x" .m .m }}',
  '{{ (repeat 3 "ab") }} {{ range (until 4) }}{{ . }}{{ end }} {{ (seq 1 3) }} {{ (nindent 2 "x") }}',
  "{{/* a comment */}}{{- \"trimmed\" -}}  {{ `raw {{x}}` }} {{ 'a' }} {{ 0x1F }} {{ 1_000 }} {{ 1e3 }} {{ 2i }}",
  "{{ $x := 1 }}{{ range .l }}{{ $x = add $x 1 }}{{ end }}{{ $x }}",
  "{{ with $v := .a }}{{ $v }}{{ else with .b }}{{ . }}{{ end }}",
  '{{ define "rec" }}{{ if gt . 0 }}{{ . }}{{ template "rec" sub . 1 }}{{ end }}{{ end }}{{ template "rec" 5 }}',
  '{{ eq .a 1 2 "x" }} {{ lt 1.5 2.0 }} {{ ne "a" .s }} {{ and 1 0 (fail "no") }} {{ or 0 "" .a }}',
  '{{ html "<a>" }} {{ js "it\'s" }} {{ urlquery "a b" }} {{ print 1 2 "x" }} {{ println .a }} {{ call .f 1 }}',
  '{{ fromJson "{\\"a\\":[1,2]}" | toPrettyJson }} {{ mustToJson .l }} {{ .m | deepCopy | toJson }}',
];

const MUTATION_CHARS = ["{", "}", "-", " ", "|", "(", ")", '"', "`", "'", "$", ".", "=", ":", "\\", "/", "*", "0", "9"];

/** Splits a template into rough tokens (delimiters, words, quoted strings, single characters). */
export function roughTokens(text: string): string[] {
  return text.match(/\{\{-? ?|-?\}\}|"(?:[^"\\]|\\.)*"|`[^`]*`|[\w.$]+|\s+|./gs) ?? [];
}

type Mutation =
  | { op: "insertChar" | "insertToken"; at: number; what: string }
  | { op: "deleteChar" | "dupChar" | "deleteToken" | "dupToken"; at: number }
  | { op: "swapChars" | "swapTokens"; at: number; other: number };

function applyMutation(text: string, m: Mutation): string {
  const chars = [...text];
  const tokens = roughTokens(text);
  const seq = m.op.endsWith("Char") || m.op.endsWith("Chars") ? chars : tokens;
  if (seq.length === 0) return m.op === "insertChar" || m.op === "insertToken" ? m.what : text;
  const i = m.at % seq.length;
  switch (m.op) {
    case "insertChar":
    case "insertToken":
      seq.splice(i, 0, m.what);
      break;
    case "deleteChar":
    case "deleteToken":
      seq.splice(i, 1);
      break;
    case "dupChar":
    case "dupToken":
      seq.splice(i, 0, seq[i] as string);
      break;
    case "swapChars":
    case "swapTokens": {
      const j = m.other % seq.length;
      [seq[i], seq[j]] = [seq[j] as string, seq[i] as string];
      break;
    }
  }
  return seq.join("");
}

/** A corpus template with 1–4 character or token edits. */
export function mutatedTemplate(functionNames: readonly string[]): fc.Arbitrary<string> {
  // No huge number literals: a later edit could turn one into a valid count for `seq`/`until`/`repeat`,
  // which then allocate for ever (in Go as well; see the robustness notes).
  const mutationTokens = soupFragments(functionNames).filter((f) => !/\d{7}/.test(f));
  const at = fc.nat({ max: 10_000 });
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    fc.record({ op: fc.constant("insertChar" as const), at, what: fc.constantFrom(...MUTATION_CHARS) }),
    fc.record({ op: fc.constant("insertToken" as const), at, what: fc.constantFrom(...mutationTokens) }),
    fc.record({ op: fc.constantFrom("deleteChar" as const, "dupChar" as const, "deleteToken" as const), at }),
    fc.record({ op: fc.constant("dupToken" as const), at }),
    fc.record({ op: fc.constantFrom("swapChars" as const, "swapTokens" as const), at, other: at }),
  );
  return fc
    .tuple(fc.constantFrom(...TEMPLATE_CORPUS), fc.array(mutation, { minLength: 1, maxLength: 4 }))
    .map(([text, mutations]) => mutations.reduce(applyMutation, text));
}

// ---- data ------------------------------------------------------------------------------------------

const KEYS = [
  "a",
  "b",
  "n",
  "s",
  "l",
  "m",
  "x",
  "name",
  "Values",
  "global",
  "proxy",
  "image",
  "ObjectMeta",
  "annotations",
];

/**
 * Numbers whose size cannot make a template slow: small ints and floats, and a few far-out floats.
 * Ints stay small because the engine ranges over integers (Go 1.22): nested loops multiply them.
 */
const jsonNumber = fc.oneof(
  fc.integer({ min: -5, max: 100 }),
  fc.constantFrom(0.5, -1.25, 3.0, 1e21, 1e300, 1e-7, 123456.789, -0, 2 ** 60),
);

const jsonLeaf = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  jsonNumber,
  fc.constantFrom("", "x", "abc", "Hello World", "1.2.3", "true", "TPROXY", "a,b", "<&>", "é\u00e9\ud83d\ude00", "3"),
  fc.string({ maxLength: 8 }),
);

/** JSON values up to a few levels deep; maps draw keys from KEYS so that template paths often resolve. */
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 4, depthIdentifier: "json" },
    jsonLeaf,
    fc.array(tie("value"), { maxLength: 4, depthIdentifier: "json" }),
    fc.dictionary(fc.constantFrom(...KEYS), tie("value"), { maxKeys: 5, depthIdentifier: "json" }),
  ),
})).value;

/** Template data: usually a map with the corpus' keys, sometimes any JSON value. */
export const jsonData: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(fc.constantFrom(...KEYS), jsonValue, { maxKeys: 8 }) },
  { weight: 1, arbitrary: jsonValue },
);

export const numbersMode = fc.constantFrom("float" as const, "int" as const);

// ---- valid templates (typed grammar) ---------------------------------------------------------------

type Kind = "int" | "float" | "string" | "bool" | "list" | "map" | "any";

interface Scope {
  vars: Array<{ name: string; kind: Kind }>;
  /** Kind of dot: the root data inside the main template, something else inside with/range/define. */
  dotIsRoot: boolean;
  inRange: boolean;
  depth: number;
  /** Shared by the whole template: a counter for unique variable and block names, callable templates. */
  shared: { names: { n: number }; templates: string[] };
}

/** The data a valid template expects (values random, keys fixed; occasionally of the wrong type). */
export function validData(r: Rng): Record<string, unknown> {
  const int = () => pick(r, [0, 1, 2, 3, 7, 10, -4, 42, 100, 255, 1000000]);
  const float = () => pick(r, [0.5, 1.5, -2.25, 2.71, 1e-7, 1e21, 2.0, 123456.789, 0.1]);
  const str = () => pick(r, ["", "x", "abc", "Hello World", "a,b,c", "1.2.3", "  pad  ", "ünï", "<b>&", "42", "true"]);
  // Wrongly typed values and list elements are never big ints: ranging over them would loop for ages.
  const smallInt = () => pick(r, [0, 1, 2, 3, -4, 42]);
  const scalar = (): unknown => pick(r, [smallInt, float, str, () => chance(r, 50), () => null])();
  const wrong = (v: () => unknown) => (chance(r, 8) ? scalar() : v());
  const list = <T>(item: () => T) => Array.from({ length: r.int(0, 4) }, item);
  const map = () => Object.fromEntries(list(() => [pick(r, ["a", "b", "k", "x", "Zed"]), scalar()] as const));
  return {
    i: wrong(int),
    j: wrong(int),
    f: wrong(float),
    s: wrong(str),
    t: wrong(str),
    b: wrong(() => chance(r, 50)),
    l: wrong(() => list(int)),
    ls: wrong(() => list(str)),
    m: wrong(map),
    n: { a: { b: scalar() }, c: list(scalar) },
    z: null,
    e: pick(r, ["", [], {}, 0]),
  };
}

const INT_LITERALS = [
  "0",
  "1",
  "2",
  "3",
  "-3",
  "42",
  "0x1F",
  "0X1f",
  "0o17",
  "017",
  "0b101",
  "1_000",
  "0x_FF",
  "'a'",
  "'\\n'",
  "+5",
];
const FLOAT_LITERALS = ["1.5", "-0.25", "1e3", "2.5e-3", ".5", "1.", "0x1p-2", "2.0", "1e21", "100.0"];
const STRING_LITS = [
  '"x"',
  '"abc"',
  '""',
  '"Hello World"',
  '"a,b,c"',
  '"1.2.3"',
  '"a\\tb"',
  '"\\u00e9\\x41"',
  "`raw\\n`",
  '"  pad  "',
  '"ünï"',
  '"42"',
];
const PRINTF_FORMATS = [
  "%v",
  "%d",
  "%s",
  "%q",
  "%x",
  "%X",
  "%o",
  "%b",
  "%e",
  "%f",
  "%.2f",
  "%g",
  "%5d",
  "%-5d|",
  "%05d",
  "%+d",
  "%#v",
  "%#x",
  "%T",
  "%c",
  "%U",
  "%t",
  "%8.3f",
  "%%",
  "%v %v",
  "%[2]v %[1]v",
  "%5s|",
  "%-8q|",
  "% d",
  "%6.2v",
  "%!",
  "%z",
];
const TEXT = ["x", " ", "\n", "a-b", "  ", ": ", "\n  - ", "é", "[", "]"];

/** Expressions of (roughly) a given kind; `any` mixes all. */
function expr(r: Rng, s: Scope, kind: Kind): string {
  const deep = s.depth > 2;
  const sub = (k: Kind) => expr(r, { ...s, depth: s.depth + 1 }, k);
  const arg = (k: Kind) => {
    if (k === "any" && chance(r, 3)) return "nil";
    const e = sub(k);
    return /\s/.test(e) && !/^\(.*\)$/s.test(e) ? `(${e})` : e;
  };
  const field = (name: string) => (s.dotIsRoot && chance(r, 70) ? `.${name}` : `$.${name}`);
  const vars = s.vars.filter((v) => v.kind === kind || kind === "any");
  if (vars.length > 0 && chance(r, 20)) return pick(r, vars).name;
  if (!s.dotIsRoot && kind === "any" && chance(r, 15)) return ".";
  if (deep || chance(r, 30)) return leaf(r, kind, field);
  switch (kind) {
    case "int":
      return pick(r, [
        () => `len ${arg(pick(r, ["list", "string", "map"] as const))}`,
        () => `${pick(r, ["add", "sub", "mul", "max", "min"])} ${arg("int")} ${arg("int")}`,
        () => `${pick(r, ["div", "mod"])} ${arg("int")} ${pick(r, ["2", "3", "-7", "0"])}`,
        () => `add1 ${arg("int")}`,
        () => `${pick(r, ["int", "int64"])} ${arg("any")}`,
        () => `atoi ${arg("string")}`,
        () => `index ${field("l")} ${pick(r, ["0", "1", "-1", "9"])}`,
        () => `${arg("int")} | add 1`,
      ])();
    case "float":
      return pick(r, [
        () => `${pick(r, ["addf", "subf", "mulf", "divf", "maxf", "minf"])} ${arg("float")} ${arg("any")}`,
        () => `${pick(r, ["floor", "ceil", "float64"])} ${arg(pick(r, ["float", "int", "string"] as const))}`,
        () => `round ${arg("float")} ${pick(r, ["0", "1", "2"])}`,
        () => `${arg("float")} | mulf 2`,
      ])();
    case "string":
      return pick(r, [
        () => `printf ${JSON.stringify(pick(r, PRINTF_FORMATS))} ${arg("any")}${chance(r, 40) ? ` ${arg("any")}` : ""}`,
        () =>
          `${pick(r, ["upper", "lower", "title", "trim", "quote", "squote", "kebabcase", "snakecase", "camelcase", "b64enc", "sha256sum", "adler32sum", "nospace", "swapcase", "initials", "html", "js", "urlquery"])} ${arg("string")}`,
        () => `${pick(r, ["toString", "toJson", "typeOf", "kindOf", "print", "toPrettyJson", "quote"])} ${arg("any")}`,
        () =>
          `${arg("string")} | ${pick(r, ["upper", "quote", "trim", "title", "b64enc", 'cat "x"', 'replace "a" "_"', "trunc 3", "abbrev 5", 'default "d"', 'trimPrefix "a"', 'trimSuffix "c"', 'printf "<%s>"', "len | toString"])}`,
        () => `join ${pick(r, ['","', '"-"', '""'])} ${arg("list")}`,
        () => `${pick(r, ["substr 0 2", "substr 1 -1", "trunc -2", "abbrev 5", "wrap 4"])} ${arg("string")}`,
        () => `plural "one" "many" ${arg("int")}`,
        () =>
          `${pick(r, SAFE_SIZED_CALLS.slice(0, 1).concat(['repeat 2 "ab"', '(indent 2 "a\\nb")', '(nindent 2 "y")']))}`,
        () => `index ${field("m")} ${pick(r, ['"a"', '"k"', '"none"'])}`,
        () => `default ${arg("string")} ${arg("any")}`,
        () =>
          `${pick(r, ["regexReplaceAll", "regexReplaceAllLiteral"])} ${pick(r, ['"[aeiou]"', '"(b+)"', '"^"'])} ${arg("string")} ${pick(r, ['"_"', '"<$1>"'])}`,
        () => `regexFind ${pick(r, ['"[a-c]+"', '"\\\\d+"'])} ${arg("string")}`,
        () => `ternary ${arg("string")} ${arg("string")} ${arg("bool")}`,
        () => `cat ${arg("any")} ${arg("any")}`,
        () => `print ${arg("any")} ${arg("any")}`,
      ])();
    case "bool":
      return pick(r, [
        () =>
          `${pick(r, ["eq", "ne", "lt", "le", "gt", "ge"])} ${arg(pick(r, ["int", "float", "string"] as const))} ${arg(pick(r, ["int", "float", "string", "int", "string"] as const))}`,
        () => `eq ${arg("any")} ${arg("any")} ${arg("any")}`,
        () => `${pick(r, ["and", "or"])} ${arg("any")} ${arg("any")}`,
        () => `not ${arg("any")}`,
        () => `empty ${arg("any")}`,
        () => `${pick(r, ["hasPrefix", "hasSuffix", "contains"])} ${pick(r, ['"a"', '"b"', '""'])} ${arg("string")}`,
        () => `hasKey ${field("m")} ${pick(r, ['"a"', '"k"'])}`,
        () => `has ${arg("any")} ${arg("list")}`,
        () => `regexMatch ${pick(r, ['"^[a-z]+$"', '"\\\\d"', '"."'])} ${arg("string")}`,
        () =>
          `semverCompare ${pick(r, ['">=1.2"', '"~1.2.0"', '"^2"'])} ${pick(r, ['"1.2.3"', '"2.0.0"', '"1.10.0"'])}`,
        () => `kindIs ${pick(r, ['"string"', '"int"', '"float64"', '"slice"', '"map"'])} ${arg("any")}`,
        () => `deepEqual ${arg("any")} ${arg("any")}`,
      ])();
    case "list":
      return pick(r, [
        () => `list ${arg("any")} ${arg("any")}`,
        () => `${pick(r, ["rest", "initial", "reverse", "uniq", "compact"])} ${arg("list")}`,
        () => `${pick(r, ["append", "prepend", "without"])} ${arg("list")} ${arg("any")}`,
        () => `concat ${arg("list")} ${arg("list")}`,
        () => `splitList ${pick(r, ['","', '"b"'])} ${arg("string")}`,
        () => `sortAlpha ${arg("list")}`,
        () => `slice ${field("l")} ${pick(r, ["0", "1", "1 2", "0 9"])}`,
        () => `keys ${arg("map")} | sortAlpha`,
        () => `tuple ${arg("int")} ${arg("string")}`,
        () => pick(r, ["(until 3)", "(seq 3)", "(seq 2 -1 0)", "(untilStep 0 5 2)"]),
        () => `pluck "a" ${arg("map")} ${arg("map")}`,
      ])();
    case "map":
      return pick(r, [
        () => `dict "a" ${arg("any")} "b" ${arg("any")}`,
        () => `${pick(r, ["merge", "mergeOverwrite"])} (dict "k" 1) ${arg("map")}`,
        () => `${pick(r, ["pick", "omit"])} ${arg("map")} "a" "x"`,
        () => `fromJson ${pick(r, ['"{\\"a\\":1,\\"b\\":[true,null]}"', '"{}"', '"[1]"', '"bad"'])}`,
        () => `deepCopy ${arg("map")}`,
        () => `set (dict) ${pick(r, ['"k"', '"a"'])} ${arg("any")}`,
      ])();
    default:
      return expr(r, s, pick(r, ["int", "float", "string", "bool", "list", "map"] as const));
  }
}

function leaf(r: Rng, kind: Kind, field: (name: string) => string): string {
  switch (kind) {
    case "int":
      return pick(r, [...INT_LITERALS, field("i"), field("j"), field("i")]);
    case "float":
      return pick(r, [...FLOAT_LITERALS, field("f"), field("f")]);
    case "string":
      return pick(r, [...STRING_LITS, field("s"), field("t"), field("s")]);
    case "bool":
      return pick(r, ["true", "false", field("b")]);
    case "list":
      return pick(r, [field("l"), field("ls"), field("n.c"), field("e")]);
    case "map":
      return pick(r, [field("m"), field("n"), field("n.a")]);
    default:
      return pick(r, [
        leaf(r, pick(r, ["int", "float", "string", "bool", "list", "map"] as const), field),
        field("z"),
        field("missing"),
        field("n.a.b"),
        field("m.a"),
        field("e"),
        pick(r, ["1i", "2.5i"]),
      ]);
  }
}

/** Wraps a pipeline in an action, with random trim markers. */
function action(r: Rng, body: string): string {
  return `${chance(r, 15) ? "{{- " : "{{ "}${body}${chance(r, 15) ? " -}}" : " }}"}`;
}

/** A pipeline to print: an expression, sometimes followed by a piped function. */
function printable(r: Rng, s: Scope): string {
  const e = expr(r, s, "any");
  if (!chance(r, 25) || /^nil$/.test(e)) return e;
  return `${e} | ${pick(r, ["toString", "toJson", 'printf "%v"', "print", "quote", "len", "typeOf", "empty", 'default "d"', "upper"])}`;
}

function statements(r: Rng, s: Scope, max: number): string {
  let out = "";
  const count = r.int(1, max);
  const saved = s.vars.length;
  for (let i = 0; i < count; i++) out += statement(r, s);
  s.vars.length = saved; // declarations end with the enclosing block
  return out;
}

function statement(r: Rng, s: Scope): string {
  const inner = (dotIsRoot: boolean, inRange = s.inRange): Scope => ({
    ...s,
    vars: [...s.vars],
    dotIsRoot,
    inRange,
    depth: s.depth + 1,
  });
  const nested = s.depth < 2;
  const roll = r.int(0, 99);
  if (roll < 20) return pick(r, TEXT);
  if (roll < 50 || !nested) return action(r, printable(r, s));
  if (roll < 58) {
    const kind = pick(r, ["int", "string", "list", "any"] as const);
    const name = `$v${s.shared.names.n++}`;
    const decl = action(r, `${name} := ${expr(r, s, kind)}`);
    s.vars.push({ name, kind });
    return decl;
  }
  if (roll < 62 && s.vars.length > 0) {
    const v = pick(r, s.vars);
    return action(r, `${v.name} = ${expr(r, s, v.kind)}`);
  }
  if (roll < 75) {
    let out = `{{ if ${expr(r, s, pick(r, ["bool", "bool", "any"] as const))} }}${statements(r, inner(s.dotIsRoot), 3)}`;
    while (chance(r, 30)) out += `{{ else if ${expr(r, s, "bool")} }}${statements(r, inner(s.dotIsRoot), 2)}`;
    if (chance(r, 50)) out += `{{ else }}${statements(r, inner(s.dotIsRoot), 2)}`;
    return `${out}{{ end }}`;
  }
  if (roll < 82) {
    const bind = chance(r, 40) ? `$w${s.shared.names.n++} := ` : "";
    const body = inner(false);
    if (bind) body.vars.push({ name: bind.slice(0, -4), kind: "any" });
    const els = chance(r, 40) ? `{{ else }}${statements(r, inner(s.dotIsRoot), 2)}` : "";
    return `{{ with ${bind}${expr(r, s, "any")} }}${statements(r, body, 3)}${els}{{ end }}`;
  }
  if (roll < 94) {
    const body = inner(false, true);
    let head = "";
    const form = r.int(0, 2);
    if (form > 0) {
      const n = s.shared.names.n++;
      head = form === 1 ? `$e${n} := ` : `$k${n}, $e${n} := `;
      body.vars.push({ name: `$e${n}`, kind: "any" });
      if (form === 2) body.vars.push({ name: `$k${n}`, kind: "any" });
    }
    // Lists and maps only: an int here (Go 1.22 ranges over it) could be 10^6, and loops nest.
    const over = expr(r, s, pick(r, ["list", "list", "map"] as const));
    let loop = statements(r, body, 3);
    if (chance(r, 25)) loop += `{{ if ${expr(r, body, "bool")} }}{{ ${pick(r, ["break", "continue"])} }}{{ end }}`;
    const els = chance(r, 30) ? `{{ else }}${statements(r, inner(s.dotIsRoot), 2)}` : "";
    return `{{ range ${head}${over} }}${loop}${els}{{ end }}`;
  }
  if (roll < 97) {
    // Mostly defined templates; an undefined one now and then (an exec error in both engines).
    if (s.shared.templates.length === 0 && chance(r, 80)) return action(r, printable(r, s));
    const name = chance(r, 95) && s.shared.templates.length > 0 ? pick(r, s.shared.templates) : "undefined";
    const arg = name === "rec" && chance(r, 70) ? pick(r, ["3", "0", "1.5"]) : expr(r, s, "any");
    return action(r, `template "${name}" ${arg}`);
  }
  // A block body is a template of its own: no variables of the caller.
  const body: Scope = { ...inner(false, false), vars: [] };
  return `{{ block "b${s.shared.names.n++}" ${expr(r, s, "any")} }}${statements(r, body, 2)}{{ end }}`;
}

/** A template that parses under Go 1.19 (almost always) and exercises most of the language. */
export function validTemplateFrom(r: Rng): string {
  const defined = ["t1", "t2", "rec"].filter(() => chance(r, 50));
  const names = { n: 0 };
  // Bodies may call the other defined templates, not themselves (endless recursion is the robustness test's job).
  const scope = (dotIsRoot: boolean, self: string): Scope => ({
    vars: [],
    dotIsRoot,
    inRange: false,
    depth: 0,
    shared: { names, templates: defined.filter((t) => t !== self) },
  });
  const bodies: Record<string, () => string> = {
    t1: () => `[${statements(r, scope(false, "t1"), 2)}]`,
    t2: () => action(r, printable(r, scope(false, "t2"))),
    rec: () => '{{ if and (kindIs "int" .) (gt . 0) }}{{ . }},{{ template "rec" int (sub . 1) }}{{ end }}',
  };
  const defines = defined.map((t) => `{{ define "${t}" }}${bodies[t]?.()}{{ end }}`);
  return defines.join(pick(r, ["", "\n"])) + statements(r, scope(true, ""), 6);
}

export const validTemplate: fc.Arbitrary<string> = fromRng(validTemplateFrom);
export const validCaseData: fc.Arbitrary<Record<string, unknown>> = fromRng(validData);
