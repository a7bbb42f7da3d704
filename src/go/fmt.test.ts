/**
 * Tests for Go's fmt printing. GO_VECTORS were produced by running Go 1.19's fmt.Sprintf /
 * Sprint / Sprintln on the same operands (described by the small `arg` notation below) and are
 * kept here as literal expectations.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FAKE_ADDRESS, formatTemplateValue, formatValue, sprint, sprintf, sprintln } from "./fmt.js";
import {
  GO_OBJECT,
  GoError,
  type GoObject,
  type GoValue,
  goFunc,
  type IntType,
  newMap,
  TypedNil,
  TypedNumber,
  withGoType,
} from "./value.js";

/** A host object shaped like a Go struct (or pointer to one) with string-returning methods. */
function goObject(
  type: string,
  fields: [string, GoValue][],
  methods: Record<string, () => GoValue> = {},
  isNil = false,
): GoObject {
  return {
    [GO_OBJECT]: true,
    goTypeName: () => type,
    goIsNil: () => isNil,
    goField: (n) => fields.find((f) => f[0] === n)?.[1],
    goMethod: (n) => (methods[n] ? goFunc(n, [], methods[n] as () => GoValue, "string") : undefined),
    goFields: () => fields,
  };
}

const nilDeref = () => {
  throw new GoError("runtime error: invalid memory address or nil pointer dereference");
};

/**
 * The operand notation of GO_VECTORS. Go types on the Go side: T{Name string; Age int;
 * Tags []string; Any interface{}}; S{N int} with value-receiver String; *E with Error "boom";
 * *P with String that dereferences its receiver; *Q whose String handles nil; Pan whose String panics.
 */
type Arg = { t: string; [k: string]: unknown };

function arg(a: Arg): GoValue {
  const v = a.v as never;
  switch (a.t) {
    case "int":
      return BigInt(v);
    case "int8":
    case "int32":
    case "int64":
    case "uint8":
    case "uint64":
    case "uint":
      return new TypedNumber(a.t as IntType, BigInt(v));
    case "f64":
      if (a.s === "inf") return Number.POSITIVE_INFINITY;
      if (a.s === "-inf") return Number.NEGATIVE_INFINITY;
      if (a.s === "nan") return Number.NaN;
      if (a.s === "-0") return -0;
      return v;
    case "f32":
      return new TypedNumber("float32", Math.fround(v));
    case "str":
    case "bool":
      return v;
    case "nil":
      return null;
    case "slice":
      return (v as Arg[]).map(arg);
    case "strs":
      return withGoType([...(v as string[])], "[]string");
    case "map": {
      const m = newMap();
      for (const [k, x] of Object.entries(v as Record<string, Arg>)) m[k] = arg(x);
      return m;
    }
    case "smap":
      return withGoType(Object.assign(newMap(), v), "map[string]string");
    case "bytes":
      return Uint8Array.from(v as number[]);
    case "nilmap":
      return new TypedNil("map[string]string");
    case "nilslice":
      return new TypedNil("[]string");
    case "nilbytes":
      return new TypedNil("[]uint8");
    case "T":
    case "pT": {
      const tags = a.tags ? withGoType([...(a.tags as string[])], "[]string") : new TypedNil("[]string");
      const any = "any" in a ? arg(a.any as Arg) : null;
      const fields: [string, GoValue][] = [
        ["Name", (a.name as string | undefined) ?? ""],
        ["Age", BigInt((a.age as number | undefined) ?? 0)],
        ["Tags", tags],
        ["Any", any],
      ];
      return goObject(a.t === "pT" ? "*main.T" : "main.T", fields);
    }
    case "nilT":
      return goObject("*main.T", [], {}, true);
    case "S":
    case "pS": {
      const n = a.n as number;
      return goObject(a.t === "pS" ? "*main.S" : "main.S", [["N", BigInt(n)]], { String: () => `S<${n}>` });
    }
    case "E":
      return goObject("*main.E", [], { Error: () => "boom" });
    case "P":
      return goObject("*main.P", [["X", BigInt(a.n as number)]], { String: () => `P${a.n}` });
    case "nilP":
      return goObject("*main.P", [], { String: nilDeref }, true);
    case "nilQ":
      return goObject("*main.Q", [], { String: () => "nilQ" }, true);
    case "Pan":
      return goObject("main.Pan", [], {
        String: () => {
          throw new GoError("oops");
        },
      });
  }
  throw new Error(`unknown test operand ${a.t}`);
}

/** [format (or <sprint> / <sprintln>), operands, Go's output]. */
const GO_VECTORS: [string, Arg[], string][] = [
  ["%v", [{ t: "int", v: "0" }], "0"],
  ["%v", [{ t: "int", v: "1" }], "1"],
  ["%v", [{ t: "int", v: "-1" }], "-1"],
  ["%v", [{ t: "int", v: "65" }], "65"],
  ["%v", [{ t: "int", v: "255" }], "255"],
  ["%v", [{ t: "int", v: "-255" }], "-255"],
  ["%v", [{ t: "int", v: "1234567" }], "1234567"],
  ["%v", [{ t: "int", v: "9223372036854775807" }], "9223372036854775807"],
  ["%v", [{ t: "int", v: "-9223372036854775808" }], "-9223372036854775808"],
  ["%v", [{ t: "int", v: "128512" }], "128512"],
  ["%v", [{ t: "int8", v: "-5" }], "-5"],
  ["%v", [{ t: "int32", v: "19990" }], "19990"],
  ["%v", [{ t: "uint8", v: "200" }], "200"],
  ["%v", [{ t: "uint64", v: "18446744073709551615" }], "18446744073709551615"],
  ["%v", [{ t: "uint", v: "7" }], "7"],
  ["%v", [{ t: "f64", v: 0 }], "0"],
  ["%v", [{ t: "f64", s: "-0", v: 0 }], "-0"],
  ["%v", [{ t: "f64", v: 1 }], "1"],
  ["%v", [{ t: "f64", v: -1 }], "-1"],
  ["%v", [{ t: "f64", v: 1.5 }], "1.5"],
  ["%v", [{ t: "f64", v: 3 }], "3"],
  ["%v", [{ t: "f64", v: 1000000 }], "1e+06"],
  ["%v", [{ t: "f64", v: 100000 }], "100000"],
  ["%v", [{ t: "f64", v: 1e21 }], "1e+21"],
  ["%v", [{ t: "f64", v: 100000000000000000000 }], "1e+20"],
  ["%v", [{ t: "f64", v: 0.000012 }], "1.2e-05"],
  ["%v", [{ t: "f64", v: 0.0001 }], "0.0001"],
  ["%v", [{ t: "f64", v: 0.1 }], "0.1"],
  ["%v", [{ t: "f64", v: 123456789 }], "1.23456789e+08"],
  ["%v", [{ t: "f64", v: 2.34567890123456 }], "2.34567890123456"],
  ["%v", [{ t: "f64", v: -2.5 }], "-2.5"],
  ["%v", [{ t: "f64", v: 1e-320 }], "1e-320"],
  ["%v", [{ t: "f64", v: 1.7976931348623157e308 }], "1.7976931348623157e+308"],
  ["%v", [{ t: "f64", s: "inf", v: 0 }], "+Inf"],
  ["%v", [{ t: "f64", s: "-inf", v: 0 }], "-Inf"],
  ["%v", [{ t: "f64", s: "nan", v: 0 }], "NaN"],
  ["%v", [{ t: "f64", v: 0.125 }], "0.125"],
  ["%v", [{ t: "f32", v: 1.1 }], "1.1"],
  ["%v", [{ t: "f32", v: 0.1 }], "0.1"],
  ["%v", [{ t: "f32", v: 16777217 }], "1.6777216e+07"],
  ["%v", [{ t: "f32", v: -1.5 }], "-1.5"],
  ["%v", [{ t: "str", v: "" }], ""],
  ["%v", [{ t: "str", v: "hi" }], "hi"],
  ["%v", [{ t: "str", v: "héllo" }], "héllo"],
  ["%v", [{ t: "str", v: "日本語" }], "日本語"],
  ["%v", [{ t: "str", v: 'a"b\\c' }], 'a"b\\c'],
  ["%v", [{ t: "str", v: "tab\there\n" }], "tab\there\n"],
  ["%v", [{ t: "str", v: "\u0001" }], "\u0001"],
  ["%v", [{ t: "str", v: "😀x" }], "😀x"],
  ["%v", [{ t: "str", v: "`back`" }], "`back`"],
  ["%v", [{ t: "str", v: " nbsp" }], " nbsp"],
  ["%v", [{ t: "str", v: "﻿bom" }], "﻿bom"],
  ["%v", [{ t: "bool", v: true }], "true"],
  ["%v", [{ t: "bool", v: false }], "false"],
  ["%v", [{ t: "nil" }], "<nil>"],
  [
    "%v",
    [{ t: "slice", v: [{ t: "int", v: "1" }, { t: "str", v: "a" }, { t: "nil" }, { t: "f64", v: 2.5 }] }],
    "[1 a <nil> 2.5]",
  ],
  ["%v", [{ t: "slice", v: [] }], "[]"],
  [
    "%v",
    [
      {
        t: "slice",
        v: [
          {
            t: "slice",
            v: [
              { t: "int", v: "1" },
              { t: "int", v: "2" },
            ],
          },
          { t: "map", v: { a: { t: "int", v: "1" } } },
        ],
      },
    ],
    "[[1 2] map[a:1]]",
  ],
  ["%v", [{ t: "strs", v: ["a", "b c"] }], "[a b c]"],
  ["%v", [{ t: "strs", v: [] }], "[]"],
  [
    "%v",
    [
      {
        t: "map",
        v: { b: { t: "int", v: "2" }, a: { t: "int", v: "1" }, c: { t: "slice", v: [{ t: "int", v: "1" }] } },
      },
    ],
    "map[a:1 b:2 c:[1]]",
  ],
  ["%v", [{ t: "map", v: {} }], "map[]"],
  ["%v", [{ t: "smap", v: { z: "1", a: "2" } }], "map[a:2 z:1]"],
  ["%v", [{ t: "map", v: { x: { t: "map", v: { y: { t: "nil" } } } } }], "map[x:map[y:<nil>]]"],
  ["%v", [{ t: "bytes", v: [104, 105] }], "[104 105]"],
  ["%v", [{ t: "bytes", v: [0, 255, 128] }], "[0 255 128]"],
  ["%v", [{ t: "bytes", v: [] }], "[]"],
  ["%v", [{ t: "nilmap" }], "map[]"],
  ["%v", [{ t: "nilslice" }], "[]"],
  ["%v", [{ t: "nilbytes" }], "[]"],
  ["%v", [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1.5 } }], "{bob 3 [x y] 1.5}"],
  ["%v", [{ t: "pT", name: "bob", age: 3, tags: ["x", "y"], any: { t: "str", v: "s" } }], "&{bob 3 [x y] s}"],
  ["%v", [{ t: "nilT" }], "<nil>"],
  ["%v", [{ t: "S", n: 1 }], "S<1>"],
  ["%v", [{ t: "pS", n: 2 }], "S<2>"],
  ["%v", [{ t: "E" }], "boom"],
  ["%v", [{ t: "P", n: 5 }], "P5"],
  ["%v", [{ t: "nilP" }], "<nil>"],
  ["%v", [{ t: "nilQ" }], "nilQ"],
  ["%v", [{ t: "Pan" }], "%!v(PANIC=String method: oops)"],
  ["%v", [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "S", n: 7 } }], "{bob 3 [x y] S<7>}"],
  ["%v", [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "nil" } }], "{bob 3 [x y] <nil>}"],
  ["%+v", [{ t: "int", v: "0" }], "0"],
  ["%+v", [{ t: "int", v: "1" }], "1"],
  ["%+v", [{ t: "int", v: "-1" }], "-1"],
  ["%+v", [{ t: "int", v: "65" }], "65"],
  ["%+v", [{ t: "int", v: "255" }], "255"],
  ["%+v", [{ t: "int", v: "-255" }], "-255"],
  ["%+v", [{ t: "int", v: "1234567" }], "1234567"],
  ["%+v", [{ t: "int", v: "9223372036854775807" }], "9223372036854775807"],
  ["%+v", [{ t: "int", v: "-9223372036854775808" }], "-9223372036854775808"],
  ["%+v", [{ t: "int", v: "128512" }], "128512"],
  ["%+v", [{ t: "int8", v: "-5" }], "-5"],
  ["%+v", [{ t: "int32", v: "19990" }], "19990"],
  ["%+v", [{ t: "uint8", v: "200" }], "200"],
  ["%+v", [{ t: "uint64", v: "18446744073709551615" }], "18446744073709551615"],
  ["%+v", [{ t: "uint", v: "7" }], "7"],
  ["%+v", [{ t: "f64", v: 0 }], "0"],
  ["%+v", [{ t: "f64", s: "-0", v: 0 }], "-0"],
  ["%+v", [{ t: "f64", v: 1 }], "1"],
  ["%+v", [{ t: "f64", v: -1 }], "-1"],
  ["%+v", [{ t: "f64", v: 1.5 }], "1.5"],
  ["%+v", [{ t: "f64", v: 3 }], "3"],
  ["%+v", [{ t: "f64", v: 1000000 }], "1e+06"],
  ["%+v", [{ t: "f64", v: 100000 }], "100000"],
  ["%+v", [{ t: "f64", v: 1e21 }], "1e+21"],
  ["%+v", [{ t: "f64", v: 100000000000000000000 }], "1e+20"],
  ["%+v", [{ t: "f64", v: 0.000012 }], "1.2e-05"],
  ["%+v", [{ t: "f64", v: 0.0001 }], "0.0001"],
  ["%+v", [{ t: "f64", v: 0.1 }], "0.1"],
  ["%+v", [{ t: "f64", v: 123456789 }], "1.23456789e+08"],
  ["%+v", [{ t: "f64", v: 2.34567890123456 }], "2.34567890123456"],
  ["%+v", [{ t: "f64", v: -2.5 }], "-2.5"],
  ["%+v", [{ t: "f64", v: 1e-320 }], "1e-320"],
  ["%+v", [{ t: "f64", v: 1.7976931348623157e308 }], "1.7976931348623157e+308"],
  ["%+v", [{ t: "f64", s: "inf", v: 0 }], "+Inf"],
  ["%+v", [{ t: "f64", s: "-inf", v: 0 }], "-Inf"],
  ["%+v", [{ t: "f64", s: "nan", v: 0 }], "NaN"],
  ["%+v", [{ t: "f64", v: 0.125 }], "0.125"],
  ["%+v", [{ t: "f32", v: 1.1 }], "1.1"],
  ["%+v", [{ t: "f32", v: 0.1 }], "0.1"],
  ["%+v", [{ t: "f32", v: 16777217 }], "1.6777216e+07"],
  ["%+v", [{ t: "f32", v: -1.5 }], "-1.5"],
  ["%+v", [{ t: "str", v: "" }], ""],
  ["%+v", [{ t: "str", v: "hi" }], "hi"],
  ["%+v", [{ t: "str", v: "héllo" }], "héllo"],
  ["%+v", [{ t: "str", v: "日本語" }], "日本語"],
  ["%+v", [{ t: "str", v: 'a"b\\c' }], 'a"b\\c'],
  ["%+v", [{ t: "str", v: "tab\there\n" }], "tab\there\n"],
  ["%+v", [{ t: "str", v: "\u0001" }], "\u0001"],
  ["%+v", [{ t: "str", v: "😀x" }], "😀x"],
  ["%+v", [{ t: "str", v: "`back`" }], "`back`"],
  ["%+v", [{ t: "str", v: " nbsp" }], " nbsp"],
  ["%+v", [{ t: "str", v: "﻿bom" }], "﻿bom"],
  ["%+v", [{ t: "bool", v: true }], "true"],
  ["%+v", [{ t: "bool", v: false }], "false"],
  ["%+v", [{ t: "nil" }], "<nil>"],
  [
    "%+v",
    [{ t: "slice", v: [{ t: "int", v: "1" }, { t: "str", v: "a" }, { t: "nil" }, { t: "f64", v: 2.5 }] }],
    "[1 a <nil> 2.5]",
  ],
  ["%+v", [{ t: "slice", v: [] }], "[]"],
  [
    "%+v",
    [
      {
        t: "slice",
        v: [
          {
            t: "slice",
            v: [
              { t: "int", v: "1" },
              { t: "int", v: "2" },
            ],
          },
          { t: "map", v: { a: { t: "int", v: "1" } } },
        ],
      },
    ],
    "[[1 2] map[a:1]]",
  ],
  ["%+v", [{ t: "strs", v: ["a", "b c"] }], "[a b c]"],
  ["%+v", [{ t: "strs", v: [] }], "[]"],
  [
    "%+v",
    [
      {
        t: "map",
        v: { b: { t: "int", v: "2" }, a: { t: "int", v: "1" }, c: { t: "slice", v: [{ t: "int", v: "1" }] } },
      },
    ],
    "map[a:1 b:2 c:[1]]",
  ],
  ["%+v", [{ t: "map", v: {} }], "map[]"],
  ["%+v", [{ t: "smap", v: { z: "1", a: "2" } }], "map[a:2 z:1]"],
  ["%+v", [{ t: "map", v: { x: { t: "map", v: { y: { t: "nil" } } } } }], "map[x:map[y:<nil>]]"],
  ["%+v", [{ t: "bytes", v: [104, 105] }], "[104 105]"],
  ["%+v", [{ t: "bytes", v: [0, 255, 128] }], "[0 255 128]"],
  ["%+v", [{ t: "bytes", v: [] }], "[]"],
  ["%+v", [{ t: "nilmap" }], "map[]"],
  ["%+v", [{ t: "nilslice" }], "[]"],
  ["%+v", [{ t: "nilbytes" }], "[]"],
  [
    "%+v",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1.5 } }],
    "{Name:bob Age:3 Tags:[x y] Any:1.5}",
  ],
  [
    "%+v",
    [{ t: "pT", name: "bob", age: 3, tags: ["x", "y"], any: { t: "str", v: "s" } }],
    "&{Name:bob Age:3 Tags:[x y] Any:s}",
  ],
  ["%+v", [{ t: "nilT" }], "<nil>"],
  ["%+v", [{ t: "S", n: 1 }], "S<1>"],
  ["%+v", [{ t: "pS", n: 2 }], "S<2>"],
  ["%+v", [{ t: "E" }], "boom"],
  ["%+v", [{ t: "P", n: 5 }], "P5"],
  ["%+v", [{ t: "nilP" }], "<nil>"],
  ["%+v", [{ t: "nilQ" }], "nilQ"],
  ["%+v", [{ t: "Pan" }], "%!v(PANIC=String method: oops)"],
  [
    "%+v",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "S", n: 7 } }],
    "{Name:bob Age:3 Tags:[x y] Any:S<7>}",
  ],
  [
    "%+v",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "nil" } }],
    "{Name:bob Age:3 Tags:[x y] Any:<nil>}",
  ],
  ["%#v", [{ t: "int", v: "0" }], "0"],
  ["%#v", [{ t: "int", v: "1" }], "1"],
  ["%#v", [{ t: "int", v: "-1" }], "-1"],
  ["%#v", [{ t: "int", v: "65" }], "65"],
  ["%#v", [{ t: "int", v: "255" }], "255"],
  ["%#v", [{ t: "int", v: "-255" }], "-255"],
  ["%#v", [{ t: "int", v: "1234567" }], "1234567"],
  ["%#v", [{ t: "int", v: "9223372036854775807" }], "9223372036854775807"],
  ["%#v", [{ t: "int", v: "-9223372036854775808" }], "-9223372036854775808"],
  ["%#v", [{ t: "int", v: "128512" }], "128512"],
  ["%#v", [{ t: "int8", v: "-5" }], "-5"],
  ["%#v", [{ t: "int32", v: "19990" }], "19990"],
  ["%#v", [{ t: "uint8", v: "200" }], "0xc8"],
  ["%#v", [{ t: "uint64", v: "18446744073709551615" }], "0xffffffffffffffff"],
  ["%#v", [{ t: "uint", v: "7" }], "0x7"],
  ["%#v", [{ t: "f64", v: 0 }], "0"],
  ["%#v", [{ t: "f64", s: "-0", v: 0 }], "-0"],
  ["%#v", [{ t: "f64", v: 1 }], "1"],
  ["%#v", [{ t: "f64", v: -1 }], "-1"],
  ["%#v", [{ t: "f64", v: 1.5 }], "1.5"],
  ["%#v", [{ t: "f64", v: 3 }], "3"],
  ["%#v", [{ t: "f64", v: 1000000 }], "1e+06"],
  ["%#v", [{ t: "f64", v: 100000 }], "100000"],
  ["%#v", [{ t: "f64", v: 1e21 }], "1e+21"],
  ["%#v", [{ t: "f64", v: 100000000000000000000 }], "1e+20"],
  ["%#v", [{ t: "f64", v: 0.000012 }], "1.2e-05"],
  ["%#v", [{ t: "f64", v: 0.0001 }], "0.0001"],
  ["%#v", [{ t: "f64", v: 0.1 }], "0.1"],
  ["%#v", [{ t: "f64", v: 123456789 }], "1.23456789e+08"],
  ["%#v", [{ t: "f64", v: 2.34567890123456 }], "2.34567890123456"],
  ["%#v", [{ t: "f64", v: -2.5 }], "-2.5"],
  ["%#v", [{ t: "f64", v: 1e-320 }], "1e-320"],
  ["%#v", [{ t: "f64", v: 1.7976931348623157e308 }], "1.7976931348623157e+308"],
  ["%#v", [{ t: "f64", s: "inf", v: 0 }], "+Inf"],
  ["%#v", [{ t: "f64", s: "-inf", v: 0 }], "-Inf"],
  ["%#v", [{ t: "f64", s: "nan", v: 0 }], "NaN"],
  ["%#v", [{ t: "f64", v: 0.125 }], "0.125"],
  ["%#v", [{ t: "f32", v: 1.1 }], "1.1"],
  ["%#v", [{ t: "f32", v: 0.1 }], "0.1"],
  ["%#v", [{ t: "f32", v: 16777217 }], "1.6777216e+07"],
  ["%#v", [{ t: "f32", v: -1.5 }], "-1.5"],
  ["%#v", [{ t: "str", v: "" }], '""'],
  ["%#v", [{ t: "str", v: "hi" }], '"hi"'],
  ["%#v", [{ t: "str", v: "héllo" }], '"héllo"'],
  ["%#v", [{ t: "str", v: "日本語" }], '"日本語"'],
  ["%#v", [{ t: "str", v: 'a"b\\c' }], '"a\\"b\\\\c"'],
  ["%#v", [{ t: "str", v: "tab\there\n" }], '"tab\\there\\n"'],
  ["%#v", [{ t: "str", v: "\u0001" }], '"\\x7f\\x01"'],
  ["%#v", [{ t: "str", v: "😀x" }], '"😀x"'],
  ["%#v", [{ t: "str", v: "`back`" }], '"`back`"'],
  ["%#v", [{ t: "str", v: " nbsp" }], '"\\u00a0nbsp"'],
  ["%#v", [{ t: "str", v: "﻿bom" }], '"\\ufeffbom"'],
  ["%#v", [{ t: "bool", v: true }], "true"],
  ["%#v", [{ t: "bool", v: false }], "false"],
  ["%#v", [{ t: "nil" }], "<nil>"],
  [
    "%#v",
    [{ t: "slice", v: [{ t: "int", v: "1" }, { t: "str", v: "a" }, { t: "nil" }, { t: "f64", v: 2.5 }] }],
    '[]interface {}{1, "a", interface {}(nil), 2.5}',
  ],
  ["%#v", [{ t: "slice", v: [] }], "[]interface {}{}"],
  [
    "%#v",
    [
      {
        t: "slice",
        v: [
          {
            t: "slice",
            v: [
              { t: "int", v: "1" },
              { t: "int", v: "2" },
            ],
          },
          { t: "map", v: { a: { t: "int", v: "1" } } },
        ],
      },
    ],
    '[]interface {}{[]interface {}{1, 2}, map[string]interface {}{"a":1}}',
  ],
  ["%#v", [{ t: "strs", v: ["a", "b c"] }], '[]string{"a", "b c"}'],
  ["%#v", [{ t: "strs", v: [] }], "[]string{}"],
  [
    "%#v",
    [
      {
        t: "map",
        v: { b: { t: "int", v: "2" }, a: { t: "int", v: "1" }, c: { t: "slice", v: [{ t: "int", v: "1" }] } },
      },
    ],
    'map[string]interface {}{"a":1, "b":2, "c":[]interface {}{1}}',
  ],
  ["%#v", [{ t: "map", v: {} }], "map[string]interface {}{}"],
  ["%#v", [{ t: "smap", v: { z: "1", a: "2" } }], 'map[string]string{"a":"2", "z":"1"}'],
  [
    "%#v",
    [{ t: "map", v: { x: { t: "map", v: { y: { t: "nil" } } } } }],
    'map[string]interface {}{"x":map[string]interface {}{"y":interface {}(nil)}}',
  ],
  ["%#v", [{ t: "bytes", v: [104, 105] }], "[]byte{0x68, 0x69}"],
  ["%#v", [{ t: "bytes", v: [0, 255, 128] }], "[]byte{0x0, 0xff, 0x80}"],
  ["%#v", [{ t: "bytes", v: [] }], "[]byte{}"],
  ["%#v", [{ t: "nilmap" }], "map[string]string(nil)"],
  ["%#v", [{ t: "nilslice" }], "[]string(nil)"],
  ["%#v", [{ t: "nilbytes" }], "[]byte(nil)"],
  [
    "%#v",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1.5 } }],
    'main.T{Name:"bob", Age:3, Tags:[]string{"x", "y"}, Any:1.5}',
  ],
  [
    "%#v",
    [{ t: "pT", name: "bob", age: 3, tags: ["x", "y"], any: { t: "str", v: "s" } }],
    '&main.T{Name:"bob", Age:3, Tags:[]string{"x", "y"}, Any:"s"}',
  ],
  ["%#v", [{ t: "nilT" }], "(*main.T)(nil)"],
  ["%#v", [{ t: "S", n: 1 }], "main.S{N:1}"],
  ["%#v", [{ t: "pS", n: 2 }], "&main.S{N:2}"],
  ["%#v", [{ t: "E" }], "&main.E{}"],
  ["%#v", [{ t: "P", n: 5 }], "&main.P{X:5}"],
  ["%#v", [{ t: "nilP" }], "(*main.P)(nil)"],
  ["%#v", [{ t: "nilQ" }], "(*main.Q)(nil)"],
  ["%#v", [{ t: "Pan" }], "main.Pan{}"],
  [
    "%#v",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "S", n: 7 } }],
    'main.T{Name:"bob", Age:3, Tags:[]string{"x", "y"}, Any:main.S{N:7}}',
  ],
  [
    "%#v",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "nil" } }],
    'main.T{Name:"bob", Age:3, Tags:[]string{"x", "y"}, Any:interface {}(nil)}',
  ],
  ["%s", [{ t: "int", v: "0" }], "%!s(int=0)"],
  ["%s", [{ t: "int", v: "1" }], "%!s(int=1)"],
  ["%s", [{ t: "int", v: "-1" }], "%!s(int=-1)"],
  ["%s", [{ t: "int", v: "65" }], "%!s(int=65)"],
  ["%s", [{ t: "int", v: "255" }], "%!s(int=255)"],
  ["%s", [{ t: "int", v: "-255" }], "%!s(int=-255)"],
  ["%s", [{ t: "int", v: "1234567" }], "%!s(int=1234567)"],
  ["%s", [{ t: "int", v: "9223372036854775807" }], "%!s(int=9223372036854775807)"],
  ["%s", [{ t: "int", v: "-9223372036854775808" }], "%!s(int=-9223372036854775808)"],
  ["%s", [{ t: "int", v: "128512" }], "%!s(int=128512)"],
  ["%s", [{ t: "int8", v: "-5" }], "%!s(int8=-5)"],
  ["%s", [{ t: "int32", v: "19990" }], "%!s(int32=19990)"],
  ["%s", [{ t: "uint8", v: "200" }], "%!s(uint8=200)"],
  ["%s", [{ t: "uint64", v: "18446744073709551615" }], "%!s(uint64=18446744073709551615)"],
  ["%s", [{ t: "uint", v: "7" }], "%!s(uint=7)"],
  ["%s", [{ t: "f64", v: 0 }], "%!s(float64=0)"],
  ["%s", [{ t: "f64", s: "-0", v: 0 }], "%!s(float64=-0)"],
  ["%s", [{ t: "f64", v: 1 }], "%!s(float64=1)"],
  ["%s", [{ t: "f64", v: -1 }], "%!s(float64=-1)"],
  ["%s", [{ t: "f64", v: 1.5 }], "%!s(float64=1.5)"],
  ["%s", [{ t: "f64", v: 3 }], "%!s(float64=3)"],
  ["%s", [{ t: "f64", v: 1000000 }], "%!s(float64=1e+06)"],
  ["%s", [{ t: "f64", v: 100000 }], "%!s(float64=100000)"],
  ["%s", [{ t: "f64", v: 1e21 }], "%!s(float64=1e+21)"],
  ["%s", [{ t: "f64", v: 100000000000000000000 }], "%!s(float64=1e+20)"],
  ["%s", [{ t: "f64", v: 0.000012 }], "%!s(float64=1.2e-05)"],
  ["%s", [{ t: "f64", v: 0.0001 }], "%!s(float64=0.0001)"],
  ["%s", [{ t: "f64", v: 0.1 }], "%!s(float64=0.1)"],
  ["%s", [{ t: "f64", v: 123456789 }], "%!s(float64=1.23456789e+08)"],
  ["%s", [{ t: "f64", v: 2.34567890123456 }], "%!s(float64=2.34567890123456)"],
  ["%s", [{ t: "f64", v: -2.5 }], "%!s(float64=-2.5)"],
  ["%s", [{ t: "f64", v: 1e-320 }], "%!s(float64=1e-320)"],
  ["%s", [{ t: "f64", v: 1.7976931348623157e308 }], "%!s(float64=1.7976931348623157e+308)"],
  ["%s", [{ t: "f64", s: "inf", v: 0 }], "%!s(float64=+Inf)"],
  ["%s", [{ t: "f64", s: "-inf", v: 0 }], "%!s(float64=-Inf)"],
  ["%s", [{ t: "f64", s: "nan", v: 0 }], "%!s(float64=NaN)"],
  ["%s", [{ t: "f64", v: 0.125 }], "%!s(float64=0.125)"],
  ["%s", [{ t: "f32", v: 1.1 }], "%!s(float32=1.1)"],
  ["%s", [{ t: "f32", v: 0.1 }], "%!s(float32=0.1)"],
  ["%s", [{ t: "f32", v: 16777217 }], "%!s(float32=1.6777216e+07)"],
  ["%s", [{ t: "f32", v: -1.5 }], "%!s(float32=-1.5)"],
  ["%s", [{ t: "str", v: "" }], ""],
  ["%s", [{ t: "str", v: "hi" }], "hi"],
  ["%s", [{ t: "str", v: "héllo" }], "héllo"],
  ["%s", [{ t: "str", v: "日本語" }], "日本語"],
  ["%s", [{ t: "str", v: 'a"b\\c' }], 'a"b\\c'],
  ["%s", [{ t: "str", v: "tab\there\n" }], "tab\there\n"],
  ["%s", [{ t: "str", v: "\u0001" }], "\u0001"],
  ["%s", [{ t: "str", v: "😀x" }], "😀x"],
  ["%s", [{ t: "str", v: "`back`" }], "`back`"],
  ["%s", [{ t: "str", v: " nbsp" }], " nbsp"],
  ["%s", [{ t: "str", v: "﻿bom" }], "﻿bom"],
  ["%s", [{ t: "bool", v: true }], "%!s(bool=true)"],
  ["%s", [{ t: "bool", v: false }], "%!s(bool=false)"],
  ["%s", [{ t: "nil" }], "%!s(<nil>)"],
  [
    "%s",
    [{ t: "slice", v: [{ t: "int", v: "1" }, { t: "str", v: "a" }, { t: "nil" }, { t: "f64", v: 2.5 }] }],
    "[%!s(int=1) a <nil> %!s(float64=2.5)]",
  ],
  ["%s", [{ t: "slice", v: [] }], "[]"],
  [
    "%s",
    [
      {
        t: "slice",
        v: [
          {
            t: "slice",
            v: [
              { t: "int", v: "1" },
              { t: "int", v: "2" },
            ],
          },
          { t: "map", v: { a: { t: "int", v: "1" } } },
        ],
      },
    ],
    "[[%!s(int=1) %!s(int=2)] map[a:%!s(int=1)]]",
  ],
  ["%s", [{ t: "strs", v: ["a", "b c"] }], "[a b c]"],
  ["%s", [{ t: "strs", v: [] }], "[]"],
  [
    "%s",
    [
      {
        t: "map",
        v: { b: { t: "int", v: "2" }, a: { t: "int", v: "1" }, c: { t: "slice", v: [{ t: "int", v: "1" }] } },
      },
    ],
    "map[a:%!s(int=1) b:%!s(int=2) c:[%!s(int=1)]]",
  ],
  ["%s", [{ t: "map", v: {} }], "map[]"],
  ["%s", [{ t: "smap", v: { z: "1", a: "2" } }], "map[a:2 z:1]"],
  ["%s", [{ t: "map", v: { x: { t: "map", v: { y: { t: "nil" } } } } }], "map[x:map[y:<nil>]]"],
  ["%s", [{ t: "bytes", v: [104, 105] }], "hi"],
  ["%s", [{ t: "bytes", v: [0, 255, 128] }], "\u0000��"],
  ["%s", [{ t: "bytes", v: [] }], ""],
  ["%s", [{ t: "nilmap" }], "map[]"],
  ["%s", [{ t: "nilslice" }], "[]"],
  ["%s", [{ t: "nilbytes" }], ""],
  [
    "%s",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1.5 } }],
    "{bob %!s(int=3) [x y] %!s(float64=1.5)}",
  ],
  ["%s", [{ t: "pT", name: "bob", age: 3, tags: ["x", "y"], any: { t: "str", v: "s" } }], "&{bob %!s(int=3) [x y] s}"],
  ["%s", [{ t: "nilT" }], "%!s(*main.T=<nil>)"],
  ["%s", [{ t: "S", n: 1 }], "S<1>"],
  ["%s", [{ t: "pS", n: 2 }], "S<2>"],
  ["%s", [{ t: "E" }], "boom"],
  ["%s", [{ t: "P", n: 5 }], "P5"],
  ["%s", [{ t: "nilP" }], "<nil>"],
  ["%s", [{ t: "nilQ" }], "nilQ"],
  ["%s", [{ t: "Pan" }], "%!s(PANIC=String method: oops)"],
  ["%s", [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "S", n: 7 } }], "{bob %!s(int=3) [x y] S<7>}"],
  ["%s", [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "nil" } }], "{bob %!s(int=3) [x y] <nil>}"],
  ["%q", [{ t: "int", v: "0" }], "'\\x00'"],
  ["%q", [{ t: "int", v: "1" }], "'\\x01'"],
  ["%q", [{ t: "int", v: "-1" }], "'�'"],
  ["%q", [{ t: "int", v: "65" }], "'A'"],
  ["%q", [{ t: "int", v: "255" }], "'ÿ'"],
  ["%q", [{ t: "int", v: "-255" }], "'�'"],
  ["%q", [{ t: "int", v: "1234567" }], "'�'"],
  ["%q", [{ t: "int", v: "9223372036854775807" }], "'�'"],
  ["%q", [{ t: "int", v: "-9223372036854775808" }], "'�'"],
  ["%q", [{ t: "int", v: "128512" }], "'😀'"],
  ["%q", [{ t: "int8", v: "-5" }], "'�'"],
  ["%q", [{ t: "int32", v: "19990" }], "'世'"],
  ["%q", [{ t: "uint8", v: "200" }], "'È'"],
  ["%q", [{ t: "uint64", v: "18446744073709551615" }], "'�'"],
  ["%q", [{ t: "uint", v: "7" }], "'\\a'"],
  ["%q", [{ t: "f64", v: 0 }], "%!q(float64=0)"],
  ["%q", [{ t: "f64", s: "-0", v: 0 }], "%!q(float64=-0)"],
  ["%q", [{ t: "f64", v: 1 }], "%!q(float64=1)"],
  ["%q", [{ t: "f64", v: -1 }], "%!q(float64=-1)"],
  ["%q", [{ t: "f64", v: 1.5 }], "%!q(float64=1.5)"],
  ["%q", [{ t: "f64", v: 3 }], "%!q(float64=3)"],
  ["%q", [{ t: "f64", v: 1000000 }], "%!q(float64=1e+06)"],
  ["%q", [{ t: "f64", v: 100000 }], "%!q(float64=100000)"],
  ["%q", [{ t: "f64", v: 1e21 }], "%!q(float64=1e+21)"],
  ["%q", [{ t: "f64", v: 100000000000000000000 }], "%!q(float64=1e+20)"],
  ["%q", [{ t: "f64", v: 0.000012 }], "%!q(float64=1.2e-05)"],
  ["%q", [{ t: "f64", v: 0.0001 }], "%!q(float64=0.0001)"],
  ["%q", [{ t: "f64", v: 0.1 }], "%!q(float64=0.1)"],
  ["%q", [{ t: "f64", v: 123456789 }], "%!q(float64=1.23456789e+08)"],
  ["%q", [{ t: "f64", v: 2.34567890123456 }], "%!q(float64=2.34567890123456)"],
  ["%q", [{ t: "f64", v: -2.5 }], "%!q(float64=-2.5)"],
  ["%q", [{ t: "f64", v: 1e-320 }], "%!q(float64=1e-320)"],
  ["%q", [{ t: "f64", v: 1.7976931348623157e308 }], "%!q(float64=1.7976931348623157e+308)"],
  ["%q", [{ t: "f64", s: "inf", v: 0 }], "%!q(float64=+Inf)"],
  ["%q", [{ t: "f64", s: "-inf", v: 0 }], "%!q(float64=-Inf)"],
  ["%q", [{ t: "f64", s: "nan", v: 0 }], "%!q(float64=NaN)"],
  ["%q", [{ t: "f64", v: 0.125 }], "%!q(float64=0.125)"],
  ["%q", [{ t: "f32", v: 1.1 }], "%!q(float32=1.1)"],
  ["%q", [{ t: "f32", v: 0.1 }], "%!q(float32=0.1)"],
  ["%q", [{ t: "f32", v: 16777217 }], "%!q(float32=1.6777216e+07)"],
  ["%q", [{ t: "f32", v: -1.5 }], "%!q(float32=-1.5)"],
  ["%q", [{ t: "str", v: "" }], '""'],
  ["%q", [{ t: "str", v: "hi" }], '"hi"'],
  ["%q", [{ t: "str", v: "héllo" }], '"héllo"'],
  ["%q", [{ t: "str", v: "日本語" }], '"日本語"'],
  ["%q", [{ t: "str", v: 'a"b\\c' }], '"a\\"b\\\\c"'],
  ["%q", [{ t: "str", v: "tab\there\n" }], '"tab\\there\\n"'],
  ["%q", [{ t: "str", v: "\u0001" }], '"\\x7f\\x01"'],
  ["%q", [{ t: "str", v: "😀x" }], '"😀x"'],
  ["%q", [{ t: "str", v: "`back`" }], '"`back`"'],
  ["%q", [{ t: "str", v: " nbsp" }], '"\\u00a0nbsp"'],
  ["%q", [{ t: "str", v: "﻿bom" }], '"\\ufeffbom"'],
  ["%q", [{ t: "bool", v: true }], "%!q(bool=true)"],
  ["%q", [{ t: "bool", v: false }], "%!q(bool=false)"],
  ["%q", [{ t: "nil" }], "%!q(<nil>)"],
  [
    "%q",
    [{ t: "slice", v: [{ t: "int", v: "1" }, { t: "str", v: "a" }, { t: "nil" }, { t: "f64", v: 2.5 }] }],
    "['\\x01' \"a\" <nil> %!q(float64=2.5)]",
  ],
  ["%q", [{ t: "slice", v: [] }], "[]"],
  [
    "%q",
    [
      {
        t: "slice",
        v: [
          {
            t: "slice",
            v: [
              { t: "int", v: "1" },
              { t: "int", v: "2" },
            ],
          },
          { t: "map", v: { a: { t: "int", v: "1" } } },
        ],
      },
    ],
    "[['\\x01' '\\x02'] map[\"a\":'\\x01']]",
  ],
  ["%q", [{ t: "strs", v: ["a", "b c"] }], '["a" "b c"]'],
  ["%q", [{ t: "strs", v: [] }], "[]"],
  [
    "%q",
    [
      {
        t: "map",
        v: { b: { t: "int", v: "2" }, a: { t: "int", v: "1" }, c: { t: "slice", v: [{ t: "int", v: "1" }] } },
      },
    ],
    "map[\"a\":'\\x01' \"b\":'\\x02' \"c\":['\\x01']]",
  ],
  ["%q", [{ t: "map", v: {} }], "map[]"],
  ["%q", [{ t: "smap", v: { z: "1", a: "2" } }], 'map["a":"2" "z":"1"]'],
  ["%q", [{ t: "map", v: { x: { t: "map", v: { y: { t: "nil" } } } } }], 'map["x":map["y":<nil>]]'],
  ["%q", [{ t: "bytes", v: [104, 105] }], '"hi"'],
  ["%q", [{ t: "bytes", v: [0, 255, 128] }], '"\\x00\\xff\\x80"'],
  ["%q", [{ t: "bytes", v: [] }], '""'],
  ["%q", [{ t: "nilmap" }], "map[]"],
  ["%q", [{ t: "nilslice" }], "[]"],
  ["%q", [{ t: "nilbytes" }], '""'],
  [
    "%q",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1.5 } }],
    '{"bob" \'\\x03\' ["x" "y"] %!q(float64=1.5)}',
  ],
  [
    "%q",
    [{ t: "pT", name: "bob", age: 3, tags: ["x", "y"], any: { t: "str", v: "s" } }],
    '&{"bob" \'\\x03\' ["x" "y"] "s"}',
  ],
  ["%q", [{ t: "nilT" }], "%!q(*main.T=<nil>)"],
  ["%q", [{ t: "S", n: 1 }], '"S<1>"'],
  ["%q", [{ t: "pS", n: 2 }], '"S<2>"'],
  ["%q", [{ t: "E" }], '"boom"'],
  ["%q", [{ t: "P", n: 5 }], '"P5"'],
  ["%q", [{ t: "nilP" }], "<nil>"],
  ["%q", [{ t: "nilQ" }], '"nilQ"'],
  ["%q", [{ t: "Pan" }], "%!q(PANIC=String method: oops)"],
  [
    "%q",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "S", n: 7 } }],
    '{"bob" \'\\x03\' ["x" "y"] "S<7>"}',
  ],
  ["%q", [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "nil" } }], '{"bob" \'\\x03\' ["x" "y"] <nil>}'],
  ["%d", [{ t: "int", v: "0" }], "0"],
  ["%d", [{ t: "int", v: "1" }], "1"],
  ["%d", [{ t: "int", v: "-1" }], "-1"],
  ["%d", [{ t: "int", v: "65" }], "65"],
  ["%d", [{ t: "int", v: "255" }], "255"],
  ["%d", [{ t: "int", v: "-255" }], "-255"],
  ["%d", [{ t: "int", v: "1234567" }], "1234567"],
  ["%d", [{ t: "int", v: "9223372036854775807" }], "9223372036854775807"],
  ["%d", [{ t: "int", v: "-9223372036854775808" }], "-9223372036854775808"],
  ["%d", [{ t: "int", v: "128512" }], "128512"],
  ["%d", [{ t: "int8", v: "-5" }], "-5"],
  ["%d", [{ t: "int32", v: "19990" }], "19990"],
  ["%d", [{ t: "uint8", v: "200" }], "200"],
  ["%d", [{ t: "uint64", v: "18446744073709551615" }], "18446744073709551615"],
  ["%d", [{ t: "uint", v: "7" }], "7"],
  ["%d", [{ t: "f64", v: 0 }], "%!d(float64=0)"],
  ["%d", [{ t: "f64", s: "-0", v: 0 }], "%!d(float64=-0)"],
  ["%d", [{ t: "f64", v: 1 }], "%!d(float64=1)"],
  ["%d", [{ t: "f64", v: -1 }], "%!d(float64=-1)"],
  ["%d", [{ t: "f64", v: 1.5 }], "%!d(float64=1.5)"],
  ["%d", [{ t: "f64", v: 3 }], "%!d(float64=3)"],
  ["%d", [{ t: "f64", v: 1000000 }], "%!d(float64=1e+06)"],
  ["%d", [{ t: "f64", v: 100000 }], "%!d(float64=100000)"],
  ["%d", [{ t: "f64", v: 1e21 }], "%!d(float64=1e+21)"],
  ["%d", [{ t: "f64", v: 100000000000000000000 }], "%!d(float64=1e+20)"],
  ["%d", [{ t: "f64", v: 0.000012 }], "%!d(float64=1.2e-05)"],
  ["%d", [{ t: "f64", v: 0.0001 }], "%!d(float64=0.0001)"],
  ["%d", [{ t: "f64", v: 0.1 }], "%!d(float64=0.1)"],
  ["%d", [{ t: "f64", v: 123456789 }], "%!d(float64=1.23456789e+08)"],
  ["%d", [{ t: "f64", v: 2.34567890123456 }], "%!d(float64=2.34567890123456)"],
  ["%d", [{ t: "f64", v: -2.5 }], "%!d(float64=-2.5)"],
  ["%d", [{ t: "f64", v: 1e-320 }], "%!d(float64=1e-320)"],
  ["%d", [{ t: "f64", v: 1.7976931348623157e308 }], "%!d(float64=1.7976931348623157e+308)"],
  ["%d", [{ t: "f64", s: "inf", v: 0 }], "%!d(float64=+Inf)"],
  ["%d", [{ t: "f64", s: "-inf", v: 0 }], "%!d(float64=-Inf)"],
  ["%d", [{ t: "f64", s: "nan", v: 0 }], "%!d(float64=NaN)"],
  ["%d", [{ t: "f64", v: 0.125 }], "%!d(float64=0.125)"],
  ["%d", [{ t: "f32", v: 1.1 }], "%!d(float32=1.1)"],
  ["%d", [{ t: "f32", v: 0.1 }], "%!d(float32=0.1)"],
  ["%d", [{ t: "f32", v: 16777217 }], "%!d(float32=1.6777216e+07)"],
  ["%d", [{ t: "f32", v: -1.5 }], "%!d(float32=-1.5)"],
  ["%d", [{ t: "str", v: "" }], "%!d(string=)"],
  ["%d", [{ t: "str", v: "hi" }], "%!d(string=hi)"],
  ["%d", [{ t: "str", v: "héllo" }], "%!d(string=héllo)"],
  ["%d", [{ t: "str", v: "日本語" }], "%!d(string=日本語)"],
  ["%d", [{ t: "str", v: 'a"b\\c' }], '%!d(string=a"b\\c)'],
  ["%d", [{ t: "str", v: "tab\there\n" }], "%!d(string=tab\there\n)"],
  ["%d", [{ t: "str", v: "\u0001" }], "%!d(string=\u0001)"],
  ["%d", [{ t: "str", v: "😀x" }], "%!d(string=😀x)"],
  ["%d", [{ t: "str", v: "`back`" }], "%!d(string=`back`)"],
  ["%d", [{ t: "str", v: " nbsp" }], "%!d(string= nbsp)"],
  ["%d", [{ t: "str", v: "﻿bom" }], "%!d(string=﻿bom)"],
  ["%d", [{ t: "bool", v: true }], "%!d(bool=true)"],
  ["%d", [{ t: "bool", v: false }], "%!d(bool=false)"],
  ["%d", [{ t: "nil" }], "%!d(<nil>)"],
  [
    "%d",
    [{ t: "slice", v: [{ t: "int", v: "1" }, { t: "str", v: "a" }, { t: "nil" }, { t: "f64", v: 2.5 }] }],
    "[1 %!d(string=a) <nil> %!d(float64=2.5)]",
  ],
  ["%d", [{ t: "slice", v: [] }], "[]"],
  [
    "%d",
    [
      {
        t: "slice",
        v: [
          {
            t: "slice",
            v: [
              { t: "int", v: "1" },
              { t: "int", v: "2" },
            ],
          },
          { t: "map", v: { a: { t: "int", v: "1" } } },
        ],
      },
    ],
    "[[1 2] map[%!d(string=a):1]]",
  ],
  ["%d", [{ t: "strs", v: ["a", "b c"] }], "[%!d(string=a) %!d(string=b c)]"],
  ["%d", [{ t: "strs", v: [] }], "[]"],
  [
    "%d",
    [
      {
        t: "map",
        v: { b: { t: "int", v: "2" }, a: { t: "int", v: "1" }, c: { t: "slice", v: [{ t: "int", v: "1" }] } },
      },
    ],
    "map[%!d(string=a):1 %!d(string=b):2 %!d(string=c):[1]]",
  ],
  ["%d", [{ t: "map", v: {} }], "map[]"],
  ["%d", [{ t: "smap", v: { z: "1", a: "2" } }], "map[%!d(string=a):%!d(string=2) %!d(string=z):%!d(string=1)]"],
  ["%d", [{ t: "map", v: { x: { t: "map", v: { y: { t: "nil" } } } } }], "map[%!d(string=x):map[%!d(string=y):<nil>]]"],
  ["%d", [{ t: "bytes", v: [104, 105] }], "[104 105]"],
  ["%d", [{ t: "bytes", v: [0, 255, 128] }], "[0 255 128]"],
  ["%d", [{ t: "bytes", v: [] }], "[]"],
  ["%d", [{ t: "nilmap" }], "map[]"],
  ["%d", [{ t: "nilslice" }], "[]"],
  ["%d", [{ t: "nilbytes" }], "[]"],
  [
    "%d",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1.5 } }],
    "{%!d(string=bob) 3 [%!d(string=x) %!d(string=y)] %!d(float64=1.5)}",
  ],
  [
    "%d",
    [{ t: "pT", name: "bob", age: 3, tags: ["x", "y"], any: { t: "str", v: "s" } }],
    "&{%!d(string=bob) 3 [%!d(string=x) %!d(string=y)] %!d(string=s)}",
  ],
  ["%d", [{ t: "nilT" }], "0"],
  ["%d", [{ t: "S", n: 1 }], "{1}"],
  ["%d", [{ t: "pS", n: 2 }], "&{2}"],
  ["%d", [{ t: "E" }], "&{}"],
  ["%d", [{ t: "P", n: 5 }], "&{5}"],
  ["%d", [{ t: "nilP" }], "0"],
  ["%d", [{ t: "nilQ" }], "0"],
  ["%d", [{ t: "Pan" }], "{}"],
  [
    "%d",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "S", n: 7 } }],
    "{%!d(string=bob) 3 [%!d(string=x) %!d(string=y)] {7}}",
  ],
  [
    "%d",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "nil" } }],
    "{%!d(string=bob) 3 [%!d(string=x) %!d(string=y)] <nil>}",
  ],
  ["%x", [{ t: "int", v: "0" }], "0"],
  ["%x", [{ t: "uint8", v: "200" }], "c8"],
  ["%x", [{ t: "f64", v: 100000000000000000000 }], "0x1.5af1d78b58c4p+66"],
  ["%x", [{ t: "f64", v: 0.125 }], "0x1p-03"],
  ["%x", [{ t: "str", v: "😀x" }], "f09f988078"],
  [
    "%x",
    [
      {
        t: "map",
        v: { b: { t: "int", v: "2" }, a: { t: "int", v: "1" }, c: { t: "slice", v: [{ t: "int", v: "1" }] } },
      },
    ],
    "map[61:1 62:2 63:[1]]",
  ],
  ["%x", [{ t: "nilT" }], "0"],
  ["%X", [{ t: "int", v: "-1" }], "-1"],
  ["%X", [{ t: "uint", v: "7" }], "7"],
  ["%X", [{ t: "f64", v: 0.0001 }], "0X1.A36E2EB1C432DP-14"],
  ["%X", [{ t: "f32", v: 0.1 }], "0X1.99999AP-04"],
  ["%X", [{ t: "str", v: " nbsp" }], "C2A06E627370"],
  ["%X", [{ t: "smap", v: { z: "1", a: "2" } }], "map[61:32 7A:31]"],
  ["%X", [{ t: "pS", n: 2 }], "533C323E"],
  ["%o", [{ t: "int", v: "255" }], "377"],
  ["%o", [{ t: "f64", s: "-0", v: 0 }], "%!o(float64=-0)"],
  ["%o", [{ t: "f64", v: 123456789 }], "%!o(float64=1.23456789e+08)"],
  ["%o", [{ t: "f32", v: -1.5 }], "%!o(float32=-1.5)"],
  ["%o", [{ t: "bool", v: true }], "%!o(bool=true)"],
  ["%o", [{ t: "bytes", v: [104, 105] }], "[150 151]"],
  ["%o", [{ t: "P", n: 5 }], "&{5}"],
  ["%O", [{ t: "int", v: "1234567" }], "0o4553207"],
  ["%O", [{ t: "f64", v: -1 }], "%!O(float64=-1)"],
  ["%O", [{ t: "f64", v: -2.5 }], "%!O(float64=-2.5)"],
  ["%O", [{ t: "str", v: "hi" }], "%!O(string=hi)"],
  ["%O", [{ t: "nil" }], "%!O(<nil>)"],
  ["%O", [{ t: "bytes", v: [] }], "[]"],
  ["%O", [{ t: "nilQ" }], "%!O(*main.Q=<nil>)"],
  [
    "%b",
    [{ t: "int", v: "-9223372036854775808" }],
    "-1000000000000000000000000000000000000000000000000000000000000000",
  ],
  ["%b", [{ t: "f64", v: 3 }], "6755399441055744p-51"],
  ["%b", [{ t: "f64", v: 1.7976931348623157e308 }], "9007199254740991p+971"],
  ["%b", [{ t: "str", v: "日本語" }], "%!b(string=日本語)"],
  ["%b", [{ t: "slice", v: [] }], "[]"],
  ["%b", [{ t: "nilslice" }], "[]"],
  [
    "%b",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "S", n: 7 } }],
    "{%!b(string=bob) 11 [%!b(string=x) %!b(string=y)] {111}}",
  ],
  ["%e", [{ t: "int8", v: "-5" }], "%!e(int8=-5)"],
  ["%e", [{ t: "f64", v: 100000 }], "1.000000e+05"],
  ["%e", [{ t: "f64", s: "-inf", v: 0 }], "-Inf"],
  ["%e", [{ t: "str", v: "tab\there\n" }], "%!e(string=tab\there\n)"],
  ["%e", [{ t: "strs", v: ["a", "b c"] }], "[%!e(string=a) %!e(string=b c)]"],
  [
    "%e",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1.5 } }],
    "{%!e(string=bob) %!e(int=3) [%!e(string=x) %!e(string=y)] 1.500000e+00}",
  ],
  ["%E", [{ t: "int", v: "0" }], "%!E(int=0)"],
  ["%E", [{ t: "uint8", v: "200" }], "%!E(uint8=200)"],
  ["%E", [{ t: "f64", v: 100000000000000000000 }], "1.000000E+20"],
  ["%E", [{ t: "f64", v: 0.125 }], "1.250000E-01"],
  ["%E", [{ t: "str", v: "😀x" }], "%!E(string=😀x)"],
  [
    "%E",
    [
      {
        t: "map",
        v: { b: { t: "int", v: "2" }, a: { t: "int", v: "1" }, c: { t: "slice", v: [{ t: "int", v: "1" }] } },
      },
    ],
    "map[%!E(string=a):%!E(int=1) %!E(string=b):%!E(int=2) %!E(string=c):[%!E(int=1)]]",
  ],
  ["%E", [{ t: "nilT" }], "%!E(*main.T=<nil>)"],
  ["%f", [{ t: "int", v: "-1" }], "%!f(int=-1)"],
  ["%f", [{ t: "uint", v: "7" }], "%!f(uint=7)"],
  ["%f", [{ t: "f64", v: 0.0001 }], "0.000100"],
  ["%f", [{ t: "f32", v: 0.1 }], "0.100000"],
  ["%f", [{ t: "str", v: " nbsp" }], "%!f(string= nbsp)"],
  ["%f", [{ t: "smap", v: { z: "1", a: "2" } }], "map[%!f(string=a):%!f(string=2) %!f(string=z):%!f(string=1)]"],
  ["%f", [{ t: "pS", n: 2 }], "&{%!f(int=2)}"],
  ["%F", [{ t: "int", v: "255" }], "%!F(int=255)"],
  ["%F", [{ t: "f64", s: "-0", v: 0 }], "-0.000000"],
  ["%F", [{ t: "f64", v: 123456789 }], "123456789.000000"],
  ["%F", [{ t: "f32", v: -1.5 }], "-1.500000"],
  ["%F", [{ t: "bool", v: true }], "%!F(bool=true)"],
  ["%F", [{ t: "bytes", v: [104, 105] }], "[%!F(uint8=104) %!F(uint8=105)]"],
  ["%F", [{ t: "P", n: 5 }], "&{%!F(int=5)}"],
  ["%g", [{ t: "int", v: "1234567" }], "%!g(int=1234567)"],
  ["%g", [{ t: "f64", v: -1 }], "-1"],
  ["%g", [{ t: "f64", v: -2.5 }], "-2.5"],
  ["%g", [{ t: "str", v: "hi" }], "%!g(string=hi)"],
  ["%g", [{ t: "nil" }], "%!g(<nil>)"],
  ["%g", [{ t: "bytes", v: [] }], "[]"],
  ["%g", [{ t: "nilQ" }], "%!g(*main.Q=<nil>)"],
  ["%G", [{ t: "int", v: "-9223372036854775808" }], "%!G(int=-9223372036854775808)"],
  ["%G", [{ t: "f64", v: 3 }], "3"],
  ["%G", [{ t: "f64", v: 1.7976931348623157e308 }], "1.7976931348623157E+308"],
  ["%G", [{ t: "str", v: "日本語" }], "%!G(string=日本語)"],
  ["%G", [{ t: "slice", v: [] }], "[]"],
  ["%G", [{ t: "nilslice" }], "[]"],
  [
    "%G",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "S", n: 7 } }],
    "{%!G(string=bob) %!G(int=3) [%!G(string=x) %!G(string=y)] {%!G(int=7)}}",
  ],
  ["%t", [{ t: "int8", v: "-5" }], "%!t(int8=-5)"],
  ["%t", [{ t: "f64", v: 100000 }], "%!t(float64=100000)"],
  ["%t", [{ t: "f64", s: "-inf", v: 0 }], "%!t(float64=-Inf)"],
  ["%t", [{ t: "str", v: "tab\there\n" }], "%!t(string=tab\there\n)"],
  ["%t", [{ t: "strs", v: ["a", "b c"] }], "[%!t(string=a) %!t(string=b c)]"],
  [
    "%t",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1.5 } }],
    "{%!t(string=bob) %!t(int=3) [%!t(string=x) %!t(string=y)] %!t(float64=1.5)}",
  ],
  ["%c", [{ t: "int", v: "0" }], "\u0000"],
  ["%c", [{ t: "uint8", v: "200" }], "È"],
  ["%c", [{ t: "f64", v: 100000000000000000000 }], "%!c(float64=1e+20)"],
  ["%c", [{ t: "f64", v: 0.125 }], "%!c(float64=0.125)"],
  ["%c", [{ t: "str", v: "😀x" }], "%!c(string=😀x)"],
  [
    "%c",
    [
      {
        t: "map",
        v: { b: { t: "int", v: "2" }, a: { t: "int", v: "1" }, c: { t: "slice", v: [{ t: "int", v: "1" }] } },
      },
    ],
    "map[%!c(string=a):\u0001 %!c(string=b):\u0002 %!c(string=c):[\u0001]]",
  ],
  ["%c", [{ t: "nilT" }], "%!c(*main.T=<nil>)"],
  ["%U", [{ t: "int", v: "-1" }], "U+FFFFFFFFFFFFFFFF"],
  ["%U", [{ t: "uint", v: "7" }], "U+0007"],
  ["%U", [{ t: "f64", v: 0.0001 }], "%!U(float64=0.0001)"],
  ["%U", [{ t: "f32", v: 0.1 }], "%!U(float32=0.1)"],
  ["%U", [{ t: "str", v: " nbsp" }], "%!U(string= nbsp)"],
  ["%U", [{ t: "smap", v: { z: "1", a: "2" } }], "map[%!U(string=a):%!U(string=2) %!U(string=z):%!U(string=1)]"],
  ["%U", [{ t: "pS", n: 2 }], "&{U+0002}"],
  ["%T", [{ t: "int", v: "255" }], "int"],
  ["%T", [{ t: "f64", s: "-0", v: 0 }], "float64"],
  ["%T", [{ t: "f64", v: 123456789 }], "float64"],
  ["%T", [{ t: "f32", v: -1.5 }], "float32"],
  ["%T", [{ t: "bool", v: true }], "bool"],
  ["%T", [{ t: "bytes", v: [104, 105] }], "[]uint8"],
  ["%T", [{ t: "P", n: 5 }], "*main.P"],
  ["%6v|", [{ t: "int", v: "1234567" }], "1234567|"],
  ["%6v|", [{ t: "f64", v: -1 }], "    -1|"],
  ["%6v|", [{ t: "f64", v: -2.5 }], "  -2.5|"],
  ["%6v|", [{ t: "str", v: "hi" }], "    hi|"],
  ["%6v|", [{ t: "nil" }], " <nil>|"],
  ["%6v|", [{ t: "bytes", v: [] }], "[]|"],
  ["%6v|", [{ t: "nilQ" }], "  nilQ|"],
  ["%-6v|", [{ t: "int", v: "-9223372036854775808" }], "-9223372036854775808|"],
  ["%-6v|", [{ t: "f64", v: 3 }], "3     |"],
  ["%-6v|", [{ t: "f64", v: 1.7976931348623157e308 }], "1.7976931348623157e+308|"],
  ["%-6v|", [{ t: "str", v: "日本語" }], "日本語   |"],
  ["%-6v|", [{ t: "slice", v: [] }], "[]|"],
  ["%-6v|", [{ t: "nilslice" }], "[]|"],
  [
    "%-6v|",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "S", n: 7 } }],
    "{bob    3      [x      y     ] S<7>  }|",
  ],
  ["%06d", [{ t: "int8", v: "-5" }], "-00005"],
  ["%06d", [{ t: "f64", v: 100000 }], "%!d(float64=100000)"],
  ["%06d", [{ t: "f64", s: "-inf", v: 0 }], "%!d(float64=  -Inf)"],
  ["%06d", [{ t: "str", v: "tab\there\n" }], "%!d(string=tab\there\n)"],
  ["%06d", [{ t: "strs", v: ["a", "b c"] }], "[%!d(string=00000a) %!d(string=000b c)]"],
  [
    "%06d",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1.5 } }],
    "{%!d(string=000bob) 000003 [%!d(string=00000x) %!d(string=00000y)] %!d(float64=0001.5)}",
  ],
  ["%-06d|", [{ t: "int", v: "0" }], "0     |"],
  ["%-06d|", [{ t: "uint8", v: "200" }], "200   |"],
  ["%-06d|", [{ t: "f64", v: 100000000000000000000 }], "%!d(float64=1e+20 )|"],
  ["%-06d|", [{ t: "f64", v: 0.125 }], "%!d(float64=0.125 )|"],
  ["%-06d|", [{ t: "str", v: "😀x" }], "%!d(string=😀x    )|"],
  [
    "%-06d|",
    [
      {
        t: "map",
        v: { b: { t: "int", v: "2" }, a: { t: "int", v: "1" }, c: { t: "slice", v: [{ t: "int", v: "1" }] } },
      },
    ],
    "map[%!d(string=a     ):1      %!d(string=b     ):2      %!d(string=c     ):[1     ]]|",
  ],
  ["%-06d|", [{ t: "nilT" }], "0     |"],
  ["%.2f", [{ t: "int", v: "-1" }], "%!f(int=-01)"],
  ["%.2f", [{ t: "uint", v: "7" }], "%!f(uint=07)"],
  ["%.2f", [{ t: "f64", v: 0.0001 }], "0.00"],
  ["%.2f", [{ t: "f32", v: 0.1 }], "0.10"],
  ["%.2f", [{ t: "str", v: " nbsp" }], "%!f(string= n)"],
  ["%.2f", [{ t: "smap", v: { z: "1", a: "2" } }], "map[%!f(string=a):%!f(string=2) %!f(string=z):%!f(string=1)]"],
  ["%.2f", [{ t: "pS", n: 2 }], "&{%!f(int=02)}"],
  ["%8.3f", [{ t: "int", v: "255" }], "%!f(int=     255)"],
  ["%8.3f", [{ t: "f64", s: "-0", v: 0 }], "  -0.000"],
  ["%8.3f", [{ t: "f64", v: 123456789 }], "123456789.000"],
  ["%8.3f", [{ t: "f32", v: -1.5 }], "  -1.500"],
  ["%8.3f", [{ t: "bool", v: true }], "%!f(bool=    true)"],
  ["%8.3f", [{ t: "bytes", v: [104, 105] }], "[%!f(uint8=     104) %!f(uint8=     105)]"],
  ["%8.3f", [{ t: "P", n: 5 }], "&{%!f(int=     005)}"],
  ["%+d", [{ t: "int", v: "1234567" }], "+1234567"],
  ["%+d", [{ t: "f64", v: -1 }], "%!d(float64=-1)"],
  ["%+d", [{ t: "f64", v: -2.5 }], "%!d(float64=-2.5)"],
  ["%+d", [{ t: "str", v: "hi" }], "%!d(string=hi)"],
  ["%+d", [{ t: "nil" }], "%!d(<nil>)"],
  ["%+d", [{ t: "bytes", v: [] }], "[]"],
  ["%+d", [{ t: "nilQ" }], "+0"],
  ["% d", [{ t: "int", v: "-9223372036854775808" }], "-9223372036854775808"],
  ["% d", [{ t: "f64", v: 3 }], "%!d(float64= 3)"],
  ["% d", [{ t: "f64", v: 1.7976931348623157e308 }], "%!d(float64= 1.7976931348623157e+308)"],
  ["% d", [{ t: "str", v: "日本語" }], "%!d(string=日本語)"],
  ["% d", [{ t: "slice", v: [] }], "[]"],
  ["% d", [{ t: "nilslice" }], "[]"],
  [
    "% d",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "S", n: 7 } }],
    "{%!d(string=bob)  3 [%!d(string=x) %!d(string=y)] { 7}}",
  ],
  ["%#x", [{ t: "int8", v: "-5" }], "-0x5"],
  ["%#x", [{ t: "f64", v: 100000 }], "0x1.86a0p+16"],
  ["%#x", [{ t: "f64", s: "-inf", v: 0 }], "-Inf"],
  ["%#x", [{ t: "str", v: "tab\there\n" }], "0x74616209686572650a"],
  ["%#x", [{ t: "strs", v: ["a", "b c"] }], "[0x61 0x622063]"],
  [
    "%#x",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1.5 } }],
    "{0x626f62 0x3 [0x78 0x79] 0x1.8000p+00}",
  ],
  ["%#o", [{ t: "int", v: "0" }], "0"],
  ["%#o", [{ t: "uint8", v: "200" }], "0310"],
  ["%#o", [{ t: "f64", v: 100000000000000000000 }], "%!o(float64=1.00000e+20)"],
  ["%#o", [{ t: "f64", v: 0.125 }], "%!o(float64=0.125000)"],
  ["%#o", [{ t: "str", v: "😀x" }], "%!o(string=😀x)"],
  [
    "%#o",
    [
      {
        t: "map",
        v: { b: { t: "int", v: "2" }, a: { t: "int", v: "1" }, c: { t: "slice", v: [{ t: "int", v: "1" }] } },
      },
    ],
    "map[%!o(string=a):01 %!o(string=b):02 %!o(string=c):[01]]",
  ],
  ["%#o", [{ t: "nilT" }], "0"],
  ["%#q", [{ t: "int", v: "-1" }], "'�'"],
  ["%#q", [{ t: "uint", v: "7" }], "'\\a'"],
  ["%#q", [{ t: "f64", v: 0.0001 }], "%!q(float64=0.000100000)"],
  ["%#q", [{ t: "f32", v: 0.1 }], "%!q(float32=0.100000)"],
  ["%#q", [{ t: "str", v: " nbsp" }], "` nbsp`"],
  ["%#q", [{ t: "smap", v: { z: "1", a: "2" } }], "map[`a`:`2` `z`:`1`]"],
  ["%#q", [{ t: "pS", n: 2 }], "`S<2>`"],
  ["%+q", [{ t: "int", v: "255" }], "'\\u00ff'"],
  ["%+q", [{ t: "f64", s: "-0", v: 0 }], "%!q(float64=-0)"],
  ["%+q", [{ t: "f64", v: 123456789 }], "%!q(float64=+1.23456789e+08)"],
  ["%+q", [{ t: "f32", v: -1.5 }], "%!q(float32=-1.5)"],
  ["%+q", [{ t: "bool", v: true }], "%!q(bool=true)"],
  ["%+q", [{ t: "bytes", v: [104, 105] }], '"hi"'],
  ["%+q", [{ t: "P", n: 5 }], '"P5"'],
  ["%.2s", [{ t: "int", v: "1234567" }], "%!s(int=1234567)"],
  ["%.2s", [{ t: "f64", v: -1 }], "%!s(float64=-1)"],
  ["%.2s", [{ t: "f64", v: -2.5 }], "%!s(float64=-2.5)"],
  ["%.2s", [{ t: "str", v: "hi" }], "hi"],
  ["%.2s", [{ t: "nil" }], "%!s(<nil>)"],
  ["%.2s", [{ t: "bytes", v: [] }], ""],
  ["%.2s", [{ t: "nilQ" }], "ni"],
  ["%10q", [{ t: "int", v: "-9223372036854775808" }], "       '�'"],
  ["%10q", [{ t: "f64", v: 3 }], "%!q(float64=         3)"],
  ["%10q", [{ t: "f64", v: 1.7976931348623157e308 }], "%!q(float64=1.7976931348623157e+308)"],
  ["%10q", [{ t: "str", v: "日本語" }], '     "日本語"'],
  ["%10q", [{ t: "slice", v: [] }], "[]"],
  ["%10q", [{ t: "nilslice" }], "[]"],
  [
    "%10q",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "S", n: 7 } }],
    '{     "bob"     \'\\x03\' [       "x"        "y"]     "S<7>"}',
  ],
  ["%.3g", [{ t: "int8", v: "-5" }], "%!g(int8=-005)"],
  ["%.3g", [{ t: "f64", v: 100000 }], "1e+05"],
  ["%.3g", [{ t: "f64", s: "-inf", v: 0 }], "-Inf"],
  ["%.3g", [{ t: "str", v: "tab\there\n" }], "%!g(string=tab)"],
  ["%.3g", [{ t: "strs", v: ["a", "b c"] }], "[%!g(string=a) %!g(string=b c)]"],
  [
    "%.3g",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1.5 } }],
    "{%!g(string=bob) %!g(int=003) [%!g(string=x) %!g(string=y)] 1.5}",
  ],
  ["%#g", [{ t: "int", v: "0" }], "%!g(int=0)"],
  ["%#g", [{ t: "uint8", v: "200" }], "%!g(uint8=200)"],
  ["%#g", [{ t: "f64", v: 100000000000000000000 }], "1.00000e+20"],
  ["%#g", [{ t: "f64", v: 0.125 }], "0.125000"],
  ["%#g", [{ t: "str", v: "😀x" }], "%!g(string=😀x)"],
  [
    "%#g",
    [
      {
        t: "map",
        v: { b: { t: "int", v: "2" }, a: { t: "int", v: "1" }, c: { t: "slice", v: [{ t: "int", v: "1" }] } },
      },
    ],
    "map[%!g(string=a):%!g(int=1) %!g(string=b):%!g(int=2) %!g(string=c):[%!g(int=1)]]",
  ],
  ["%#g", [{ t: "nilT" }], "%!g(*main.T=<nil>)"],
  ["%#v", [{ t: "int", v: "0" }], "0"],
  ["%#v", [{ t: "int", v: "1" }], "1"],
  ["%#v", [{ t: "int", v: "-1" }], "-1"],
  ["%#v", [{ t: "int", v: "65" }], "65"],
  ["%#v", [{ t: "int", v: "255" }], "255"],
  ["%#v", [{ t: "int", v: "-255" }], "-255"],
  ["%#v", [{ t: "int", v: "1234567" }], "1234567"],
  ["%#v", [{ t: "int", v: "9223372036854775807" }], "9223372036854775807"],
  ["%#v", [{ t: "int", v: "-9223372036854775808" }], "-9223372036854775808"],
  ["%#v", [{ t: "int", v: "128512" }], "128512"],
  ["%#v", [{ t: "int8", v: "-5" }], "-5"],
  ["%#v", [{ t: "int32", v: "19990" }], "19990"],
  ["%#v", [{ t: "uint8", v: "200" }], "0xc8"],
  ["%#v", [{ t: "uint64", v: "18446744073709551615" }], "0xffffffffffffffff"],
  ["%#v", [{ t: "uint", v: "7" }], "0x7"],
  ["%#v", [{ t: "f64", v: 0 }], "0"],
  ["%#v", [{ t: "f64", s: "-0", v: 0 }], "-0"],
  ["%#v", [{ t: "f64", v: 1 }], "1"],
  ["%#v", [{ t: "f64", v: -1 }], "-1"],
  ["%#v", [{ t: "f64", v: 1.5 }], "1.5"],
  ["%#v", [{ t: "f64", v: 3 }], "3"],
  ["%#v", [{ t: "f64", v: 1000000 }], "1e+06"],
  ["%#v", [{ t: "f64", v: 100000 }], "100000"],
  ["%#v", [{ t: "f64", v: 1e21 }], "1e+21"],
  ["%#v", [{ t: "f64", v: 100000000000000000000 }], "1e+20"],
  ["%#v", [{ t: "f64", v: 0.000012 }], "1.2e-05"],
  ["%#v", [{ t: "f64", v: 0.0001 }], "0.0001"],
  ["%#v", [{ t: "f64", v: 0.1 }], "0.1"],
  ["%#v", [{ t: "f64", v: 123456789 }], "1.23456789e+08"],
  ["%#v", [{ t: "f64", v: 2.34567890123456 }], "2.34567890123456"],
  ["%#v", [{ t: "f64", v: -2.5 }], "-2.5"],
  ["%#v", [{ t: "f64", v: 1e-320 }], "1e-320"],
  ["%#v", [{ t: "f64", v: 1.7976931348623157e308 }], "1.7976931348623157e+308"],
  ["%#v", [{ t: "f64", s: "inf", v: 0 }], "+Inf"],
  ["%#v", [{ t: "f64", s: "-inf", v: 0 }], "-Inf"],
  ["%#v", [{ t: "f64", s: "nan", v: 0 }], "NaN"],
  ["%#v", [{ t: "f64", v: 0.125 }], "0.125"],
  ["%#v", [{ t: "f32", v: 1.1 }], "1.1"],
  ["%#v", [{ t: "f32", v: 0.1 }], "0.1"],
  ["%#v", [{ t: "f32", v: 16777217 }], "1.6777216e+07"],
  ["%#v", [{ t: "f32", v: -1.5 }], "-1.5"],
  ["%#v", [{ t: "str", v: "" }], '""'],
  ["%#v", [{ t: "str", v: "hi" }], '"hi"'],
  ["%#v", [{ t: "str", v: "héllo" }], '"héllo"'],
  ["%#v", [{ t: "str", v: "日本語" }], '"日本語"'],
  ["%#v", [{ t: "str", v: 'a"b\\c' }], '"a\\"b\\\\c"'],
  ["%#v", [{ t: "str", v: "tab\there\n" }], '"tab\\there\\n"'],
  ["%#v", [{ t: "str", v: "\u0001" }], '"\\x7f\\x01"'],
  ["%#v", [{ t: "str", v: "😀x" }], '"😀x"'],
  ["%#v", [{ t: "str", v: "`back`" }], '"`back`"'],
  ["%#v", [{ t: "str", v: " nbsp" }], '"\\u00a0nbsp"'],
  ["%#v", [{ t: "str", v: "﻿bom" }], '"\\ufeffbom"'],
  ["%#v", [{ t: "bool", v: true }], "true"],
  ["%#v", [{ t: "bool", v: false }], "false"],
  ["%#v", [{ t: "nil" }], "<nil>"],
  [
    "%#v",
    [{ t: "slice", v: [{ t: "int", v: "1" }, { t: "str", v: "a" }, { t: "nil" }, { t: "f64", v: 2.5 }] }],
    '[]interface {}{1, "a", interface {}(nil), 2.5}',
  ],
  ["%#v", [{ t: "slice", v: [] }], "[]interface {}{}"],
  [
    "%#v",
    [
      {
        t: "slice",
        v: [
          {
            t: "slice",
            v: [
              { t: "int", v: "1" },
              { t: "int", v: "2" },
            ],
          },
          { t: "map", v: { a: { t: "int", v: "1" } } },
        ],
      },
    ],
    '[]interface {}{[]interface {}{1, 2}, map[string]interface {}{"a":1}}',
  ],
  ["%#v", [{ t: "strs", v: ["a", "b c"] }], '[]string{"a", "b c"}'],
  ["%#v", [{ t: "strs", v: [] }], "[]string{}"],
  [
    "%#v",
    [
      {
        t: "map",
        v: { b: { t: "int", v: "2" }, a: { t: "int", v: "1" }, c: { t: "slice", v: [{ t: "int", v: "1" }] } },
      },
    ],
    'map[string]interface {}{"a":1, "b":2, "c":[]interface {}{1}}',
  ],
  ["%#v", [{ t: "map", v: {} }], "map[string]interface {}{}"],
  ["%#v", [{ t: "smap", v: { z: "1", a: "2" } }], 'map[string]string{"a":"2", "z":"1"}'],
  [
    "%#v",
    [{ t: "map", v: { x: { t: "map", v: { y: { t: "nil" } } } } }],
    'map[string]interface {}{"x":map[string]interface {}{"y":interface {}(nil)}}',
  ],
  ["%#v", [{ t: "bytes", v: [104, 105] }], "[]byte{0x68, 0x69}"],
  ["%#v", [{ t: "bytes", v: [0, 255, 128] }], "[]byte{0x0, 0xff, 0x80}"],
  ["%#v", [{ t: "bytes", v: [] }], "[]byte{}"],
  ["%#v", [{ t: "nilmap" }], "map[string]string(nil)"],
  ["%#v", [{ t: "nilslice" }], "[]string(nil)"],
  ["%#v", [{ t: "nilbytes" }], "[]byte(nil)"],
  [
    "%#v",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1.5 } }],
    'main.T{Name:"bob", Age:3, Tags:[]string{"x", "y"}, Any:1.5}',
  ],
  [
    "%#v",
    [{ t: "pT", name: "bob", age: 3, tags: ["x", "y"], any: { t: "str", v: "s" } }],
    '&main.T{Name:"bob", Age:3, Tags:[]string{"x", "y"}, Any:"s"}',
  ],
  ["%#v", [{ t: "nilT" }], "(*main.T)(nil)"],
  ["%#v", [{ t: "S", n: 1 }], "main.S{N:1}"],
  ["%#v", [{ t: "pS", n: 2 }], "&main.S{N:2}"],
  ["%#v", [{ t: "E" }], "&main.E{}"],
  ["%#v", [{ t: "P", n: 5 }], "&main.P{X:5}"],
  ["%#v", [{ t: "nilP" }], "(*main.P)(nil)"],
  ["%#v", [{ t: "nilQ" }], "(*main.Q)(nil)"],
  ["%#v", [{ t: "Pan" }], "main.Pan{}"],
  [
    "%#v",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "S", n: 7 } }],
    'main.T{Name:"bob", Age:3, Tags:[]string{"x", "y"}, Any:main.S{N:7}}',
  ],
  [
    "%#v",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "nil" } }],
    'main.T{Name:"bob", Age:3, Tags:[]string{"x", "y"}, Any:interface {}(nil)}',
  ],
  ["%08.3f", [{ t: "int", v: "-1" }], "%!f(int=    -001)"],
  ["%08.3f", [{ t: "uint", v: "7" }], "%!f(uint=     007)"],
  ["%08.3f", [{ t: "f64", v: 0.0001 }], "0000.000"],
  ["%08.3f", [{ t: "f32", v: 0.1 }], "0000.100"],
  ["%08.3f", [{ t: "str", v: " nbsp" }], "%!f(string=00000 nb)"],
  [
    "%08.3f",
    [{ t: "smap", v: { z: "1", a: "2" } }],
    "map[%!f(string=0000000a):%!f(string=00000002) %!f(string=0000000z):%!f(string=00000001)]",
  ],
  ["%08.3f", [{ t: "pS", n: 2 }], "&{%!f(int=     002)}"],
  ["%+.2e", [{ t: "int", v: "255" }], "%!e(int=+255)"],
  ["%+.2e", [{ t: "f64", s: "-0", v: 0 }], "-0.00e+00"],
  ["%+.2e", [{ t: "f64", v: 123456789 }], "+1.23e+08"],
  ["%+.2e", [{ t: "f32", v: -1.5 }], "-1.50e+00"],
  ["%+.2e", [{ t: "bool", v: true }], "%!e(bool=true)"],
  ["%+.2e", [{ t: "bytes", v: [104, 105] }], "[%!e(uint8=+104) %!e(uint8=+105)]"],
  ["%+.2e", [{ t: "P", n: 5 }], "&{%!e(int=+05)}"],
  ["% x", [{ t: "int", v: "1234567" }], " 12d687"],
  ["% x", [{ t: "f64", v: -1 }], "-0x1p+00"],
  ["% x", [{ t: "f64", v: -2.5 }], "-0x1.4p+01"],
  ["% x", [{ t: "str", v: "hi" }], "68 69"],
  ["% x", [{ t: "nil" }], "%!x(<nil>)"],
  ["% x", [{ t: "bytes", v: [] }], ""],
  ["% x", [{ t: "nilQ" }], "6e 69 6c 51"],
  ["%# x", [{ t: "int", v: "-9223372036854775808" }], "-0x8000000000000000"],
  ["%# x", [{ t: "f64", v: 3 }], " 0x1.8000p+01"],
  ["%# x", [{ t: "f64", v: 1.7976931348623157e308 }], " 0x1.fffffffffffffp+1023"],
  ["%# x", [{ t: "str", v: "日本語" }], "0xe6 0x97 0xa5 0xe6 0x9c 0xac 0xe8 0xaa 0x9e"],
  ["%# x", [{ t: "slice", v: [] }], "[]"],
  ["%# x", [{ t: "nilslice" }], "[]"],
  [
    "%# x",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "S", n: 7 } }],
    "{0x62 0x6f 0x62  0x3 [0x78 0x79] 0x53 0x3c 0x37 0x3e}",
  ],
  ["%#U", [{ t: "int8", v: "-5" }], "U+FFFFFFFFFFFFFFFB"],
  ["%#U", [{ t: "f64", v: 100000 }], "%!U(float64=100000.)"],
  ["%#U", [{ t: "f64", s: "-inf", v: 0 }], "%!U(float64=-Inf)"],
  ["%#U", [{ t: "str", v: "tab\there\n" }], "%!U(string=tab\there\n)"],
  ["%#U", [{ t: "strs", v: ["a", "b c"] }], "[%!U(string=a) %!U(string=b c)]"],
  [
    "%#U",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1.5 } }],
    "{%!U(string=bob) U+0003 [%!U(string=x) %!U(string=y)] %!U(float64=1.50000)}",
  ],
  [
    "%x|%X",
    [
      { t: "int", v: "0" },
      { t: "int", v: "0" },
    ],
    "0|0",
  ],
  [
    "%x|%X",
    [
      { t: "uint8", v: "200" },
      { t: "uint8", v: "200" },
    ],
    "c8|C8",
  ],
  [
    "%x|%X",
    [
      { t: "f64", v: 100000000000000000000 },
      { t: "f64", v: 100000000000000000000 },
    ],
    "0x1.5af1d78b58c4p+66|0X1.5AF1D78B58C4P+66",
  ],
  [
    "%x|%X",
    [
      { t: "f64", v: 0.125 },
      { t: "f64", v: 0.125 },
    ],
    "0x1p-03|0X1P-03",
  ],
  [
    "%x|%X",
    [
      { t: "str", v: "😀x" },
      { t: "str", v: "😀x" },
    ],
    "f09f988078|F09F988078",
  ],
  [
    "%x|%X",
    [
      {
        t: "map",
        v: { b: { t: "int", v: "2" }, a: { t: "int", v: "1" }, c: { t: "slice", v: [{ t: "int", v: "1" }] } },
      },
      {
        t: "map",
        v: { b: { t: "int", v: "2" }, a: { t: "int", v: "1" }, c: { t: "slice", v: [{ t: "int", v: "1" }] } },
      },
    ],
    "map[61:1 62:2 63:[1]]|map[61:1 62:2 63:[1]]",
  ],
  ["%x|%X", [{ t: "nilT" }, { t: "nilT" }], "0|0"],
  ["%.1x", [{ t: "int", v: "-1" }], "-1"],
  ["%.1x", [{ t: "uint", v: "7" }], "7"],
  ["%.1x", [{ t: "f64", v: 0.0001 }], "0x1.ap-14"],
  ["%.1x", [{ t: "f32", v: 0.1 }], "0x1.ap-04"],
  ["%.1x", [{ t: "str", v: " nbsp" }], "c2"],
  ["%.1x", [{ t: "smap", v: { z: "1", a: "2" } }], "map[61:32 7a:31]"],
  ["%.1x", [{ t: "pS", n: 2 }], "53"],
  ["%-8.2q|", [{ t: "int", v: "255" }], "'ÿ'     |"],
  ["%-8.2q|", [{ t: "f64", s: "-0", v: 0 }], "%!q(float64=-0      )|"],
  ["%-8.2q|", [{ t: "f64", v: 123456789 }], "%!q(float64=1.2e+08 )|"],
  ["%-8.2q|", [{ t: "f32", v: -1.5 }], "%!q(float32=-1.5    )|"],
  ["%-8.2q|", [{ t: "bool", v: true }], "%!q(bool=true    )|"],
  ["%-8.2q|", [{ t: "bytes", v: [104, 105] }], '"hi"    |'],
  ["%-8.2q|", [{ t: "P", n: 5 }], '"P5"    |'],
  ["%010s", [{ t: "int", v: "1234567" }], "%!s(int=0001234567)"],
  ["%010s", [{ t: "f64", v: -1 }], "%!s(float64=-000000001)"],
  ["%010s", [{ t: "f64", v: -2.5 }], "%!s(float64=-0000002.5)"],
  ["%010s", [{ t: "str", v: "hi" }], "00000000hi"],
  ["%010s", [{ t: "nil" }], "%!s(<nil>)"],
  ["%010s", [{ t: "bytes", v: [] }], "0000000000"],
  ["%010s", [{ t: "nilQ" }], "000000nilQ"],
  [
    "%#b",
    [{ t: "int", v: "-9223372036854775808" }],
    "-0b1000000000000000000000000000000000000000000000000000000000000000",
  ],
  ["%#b", [{ t: "f64", v: 3 }], "6755399441055744p-51"],
  ["%#b", [{ t: "f64", v: 1.7976931348623157e308 }], "9007199254740991p+971"],
  ["%#b", [{ t: "str", v: "日本語" }], "%!b(string=日本語)"],
  ["%#b", [{ t: "slice", v: [] }], "[]"],
  ["%#b", [{ t: "nilslice" }], "[]"],
  [
    "%#b",
    [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "S", n: 7 } }],
    "{%!b(string=bob) 0b11 [%!b(string=x) %!b(string=y)] {0b111}}",
  ],
  [
    "%+v|%#v",
    [
      { t: "int8", v: "-5" },
      { t: "int8", v: "-5" },
    ],
    "-5|-5",
  ],
  [
    "%+v|%#v",
    [
      { t: "f64", v: 100000 },
      { t: "f64", v: 100000 },
    ],
    "100000|100000",
  ],
  [
    "%+v|%#v",
    [
      { t: "f64", s: "-inf", v: 0 },
      { t: "f64", s: "-inf", v: 0 },
    ],
    "-Inf|-Inf",
  ],
  [
    "%+v|%#v",
    [
      { t: "str", v: "tab\there\n" },
      { t: "str", v: "tab\there\n" },
    ],
    'tab\there\n|"tab\\there\\n"',
  ],
  [
    "%+v|%#v",
    [
      { t: "strs", v: ["a", "b c"] },
      { t: "strs", v: ["a", "b c"] },
    ],
    '[a b c]|[]string{"a", "b c"}',
  ],
  [
    "%+v|%#v",
    [
      { t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1.5 } },
      { t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1.5 } },
    ],
    '{Name:bob Age:3 Tags:[x y] Any:1.5}|main.T{Name:"bob", Age:3, Tags:[]string{"x", "y"}, Any:1.5}',
  ],
  ["%!", [{ t: "int", v: "1" }], "%!!(int=1)"],
  ["%", [], "%!(NOVERB)"],
  ["%5", [{ t: "int", v: "1" }], "%!(NOVERB)%!(EXTRA int=1)"],
  ["%-", [{ t: "int", v: "1" }], "%!(NOVERB)%!(EXTRA int=1)"],
  ["%.", [{ t: "int", v: "1" }], "%!.(int=1)"],
  ["%5.", [{ t: "int", v: "1" }], "%!.(int=    1)"],
  ["abc", [{ t: "int", v: "1" }, { t: "str", v: "x" }, { t: "nil" }], "abc%!(EXTRA int=1, string=x, <nil>)"],
  [
    "%d",
    [{ t: "int", v: "1" }, { t: "str", v: "a" }, { t: "nil" }, { t: "f64", v: 2 }],
    "1%!(EXTRA string=a, <nil>, float64=2)",
  ],
  [
    "%[2]d %[1]d",
    [
      { t: "int", v: "1" },
      { t: "int", v: "2" },
    ],
    "2 1",
  ],
  [
    "%[3]d",
    [
      { t: "int", v: "1" },
      { t: "int", v: "2" },
    ],
    "%!d(BADINDEX)",
  ],
  ["%[0]d", [{ t: "int", v: "1" }], "%!d(BADINDEX)"],
  ["%[x]d", [{ t: "int", v: "1" }], "%!d(BADINDEX)"],
  [
    "%[1]d %d",
    [
      { t: "int", v: "1" },
      { t: "int", v: "2" },
    ],
    "1 2",
  ],
  [
    "%[2]d %d",
    [
      { t: "int", v: "1" },
      { t: "int", v: "2" },
    ],
    "2 %!d(MISSING)",
  ],
  [
    "%[2]*[1]d",
    [
      { t: "int", v: "12" },
      { t: "int", v: "5" },
    ],
    "   12",
  ],
  [
    "%*d",
    [
      { t: "int", v: "5" },
      { t: "int", v: "42" },
    ],
    "   42",
  ],
  [
    "%-*d|",
    [
      { t: "int", v: "5" },
      { t: "int", v: "42" },
    ],
    "42   |",
  ],
  [
    "%*d|",
    [
      { t: "int", v: "-5" },
      { t: "int", v: "42" },
    ],
    "42   |",
  ],
  [
    "%*d",
    [
      { t: "str", v: "x" },
      { t: "int", v: "42" },
    ],
    "%!(BADWIDTH)42",
  ],
  [
    "%*d",
    [
      { t: "f64", v: 5 },
      { t: "int", v: "42" },
    ],
    "%!(BADWIDTH)42",
  ],
  [
    "%.*d",
    [
      { t: "int", v: "3" },
      { t: "int", v: "7" },
    ],
    "007",
  ],
  [
    "%.*d",
    [
      { t: "int", v: "-1" },
      { t: "int", v: "7" },
    ],
    "%!(BADPREC)7",
  ],
  [
    "%*d",
    [
      { t: "int", v: "10000000" },
      { t: "int", v: "1" },
    ],
    "%!(BADWIDTH)1",
  ],
  [
    "%*d",
    [
      { t: "uint8", v: "5" },
      { t: "int", v: "1" },
    ],
    "    1",
  ],
  ["%d %d", [{ t: "int", v: "1" }], "1 %!d(MISSING)"],
  [
    "%[2]2d",
    [
      { t: "int", v: "1" },
      { t: "int", v: "2" },
    ],
    "%!d(BADINDEX)",
  ],
  [
    "%[1].2d",
    [
      { t: "int", v: "1" },
      { t: "int", v: "2" },
    ],
    "%!d(BADINDEX)",
  ],
  [
    "%.[2]d",
    [
      { t: "int", v: "1" },
      { t: "int", v: "2" },
    ],
    "2",
  ],
  [
    "%3.[2]d",
    [
      { t: "int", v: "1" },
      { t: "int", v: "2" },
    ],
    "  2",
  ],
  [
    "%[1]*.[2]*[3]f",
    [
      { t: "int", v: "10" },
      { t: "int", v: "2" },
      { t: "f64", v: 3.25159 },
    ],
    "      3.25",
  ],
  ["%z", [{ t: "int", v: "1" }], "%!z(int=1)"],
  ["%!d", [{ t: "int", v: "1" }], "%!!(int=1)d"],
  ["%ä", [{ t: "int", v: "1" }], "%!ä(int=1)"],
  ["%😀", [{ t: "str", v: "x" }], "%!😀(string=x)"],
  ["100%%", [], "100%"],
  ["%v%%", [{ t: "int", v: "5" }], "5%"],
  ["%5%|", [], "%|"],
  ["%d%", [{ t: "int", v: "1" }], "1%!(NOVERB)"],
  ["%[", [{ t: "int", v: "1" }], "%!(NOVERB)"],
  ["%[1", [{ t: "int", v: "1" }], "%!(NOVERB)"],
  ["%[]d", [{ t: "int", v: "1" }], "%!d(BADINDEX)"],
  ["%-010d|", [{ t: "int", v: "5" }], "5         |"],
  ["%0-10d|", [{ t: "int", v: "5" }], "5         |"],
  ["%010.3f", [{ t: "f64", v: -3.25159 }], "-00003.252"],
  ["%#.3g", [{ t: "f64", v: 1 }], "1.00"],
  ["%#e", [{ t: "f64", v: 1 }], "1.000000e+00"],
  ["%#.0f", [{ t: "f64", v: 2 }], "2."],
  ["%#.0e", [{ t: "f64", v: 2 }], "2.e+00"],
  ["%#x", [{ t: "f64", v: 1 }], "0x1.0000p+00"],
  ["%.3x", [{ t: "f64", v: 0.3333333333333333 }], "0x1.555p-02"],
  ["%#.3X", [{ t: "f64", v: -0.3333333333333333 }], "-0X1.555P-02"],
  ["%.0d", [{ t: "int", v: "0" }], ""],
  ["%5.0d|", [{ t: "int", v: "0" }], "     |"],
  ["%.6U", [{ t: "int", v: "65" }], "U+000041"],
  ["%#U", [{ t: "int", v: "10" }], "U+000A"],
  ["%#U", [{ t: "int", v: "128512" }], "U+1F600 '😀'"],
  ["%U", [{ t: "int", v: "-1" }], "U+FFFFFFFFFFFFFFFF"],
  ["%c", [{ t: "int", v: "-1" }], "�"],
  [
    "%c|%q",
    [
      { t: "int", v: "55296" },
      { t: "int", v: "55296" },
    ],
    "�|'�'",
  ],
  ["%q", [{ t: "int", v: "127" }], "'\\x7f'"],
  ["%+q", [{ t: "int", v: "233" }], "'\\u00e9'"],
  ["%#q", [{ t: "int", v: "97" }], "'a'"],
  ["%q", [{ t: "int", v: "1114112" }], "'�'"],
  ["%+08d", [{ t: "int", v: "42" }], "+0000042"],
  ["% 08d", [{ t: "int", v: "42" }], " 0000042"],
  ["%08d", [{ t: "int", v: "-42" }], "-0000042"],
  ["%x", [{ t: "int", v: "-255" }], "-ff"],
  ["%#X", [{ t: "int", v: "255" }], "0XFF"],
  ["%.5d", [{ t: "int", v: "-42" }], "-00042"],
  ["%8.5d|", [{ t: "int", v: "42" }], "   00042|"],
  ["%08.5d|", [{ t: "int", v: "42" }], "   00042|"],
  ["%#.5x", [{ t: "int", v: "42" }], "0x0002a"],
  ["%#o", [{ t: "int", v: "0" }], "0"],
  ["%O", [{ t: "int", v: "-8" }], "-0o10"],
  ["%10.4v|", [{ t: "str", v: "hello world" }], "      hell|"],
  ["%-10s|", [{ t: "str", v: "日本" }], "日本        |"],
  ["%.1s", [{ t: "str", v: "日本語" }], "日"],
  ["%5.1q", [{ t: "str", v: "日本語" }], '  "日"'],
  ["%x", [{ t: "str", v: "日本" }], "e697a5e69cac"],
  ["%.2x", [{ t: "str", v: "日本" }], "e697"],
  ["% X", [{ t: "str", v: "hi" }], "68 69"],
  ["%#-12x|", [{ t: "str", v: "hi" }], "0x6869      |"],
  ["%#s", [{ t: "str", v: "x" }], "x"],
  ["%s", [{ t: "slice", v: [{ t: "nil" }] }], "[<nil>]"],
  ["%d", [{ t: "slice", v: [{ t: "nil" }] }], "[<nil>]"],
  ["%#v", [{ t: "slice", v: [{ t: "nil" }] }], "[]interface {}{interface {}(nil)}"],
  ["%d", [{ t: "map", v: { a: { t: "int", v: "1" } } }], "map[%!d(string=a):1]"],
  ["%x", [{ t: "map", v: { ab: { t: "str", v: "cd" } } }], "map[6162:6364]"],
  ["%s", [{ t: "nilmap" }], "map[]"],
  ["%d", [{ t: "nilT" }], "0"],
  ["%s", [{ t: "nilT" }], "%!s(*main.T=<nil>)"],
  ["%s", [{ t: "nilP" }], "<nil>"],
  ["%t", [{ t: "str", v: "x" }], "%!t(string=x)"],
  ["%w", [{ t: "E" }], "%!w(*main.E=&{})"],
  ["%w", [{ t: "int", v: "1" }], "%!w(int=1)"],
  ["%w", [{ t: "map", v: { a: { t: "int", v: "1" } } }], "%!w(map[string]interface {}=map[a:1])"],
  ["%s", [{ t: "Pan" }], "%!s(PANIC=String method: oops)"],
  ["%d", [{ t: "Pan" }], "{}"],
  ["%5s|", [{ t: "S", n: 3 }], " S<3>|"],
  ["%x", [{ t: "S", n: 3 }], "533c333e"],
  ["%d", [{ t: "S", n: 3 }], "{3}"],
  [
    "%08.3f|%-8.3f|%+.1f",
    [
      { t: "f64", v: -1.5 },
      { t: "f64", v: 1.5 },
      { t: "f64", v: 0.05 },
    ],
    "-001.500|1.500   |+0.1",
  ],
  [
    "%.0f %.0f %.0f %.0f",
    [
      { t: "f64", v: 0.5 },
      { t: "f64", v: 1.5 },
      { t: "f64", v: 2.5 },
      { t: "f64", v: -0.5 },
    ],
    "0 2 2 -0",
  ],
  [
    "%.2f %.1f",
    [
      { t: "f64", v: 0.125 },
      { t: "f64", v: 0.25 },
    ],
    "0.12 0.2",
  ],
  ["%6.2f%%", [{ t: "f64", v: 99.5 }], " 99.50%"],
  ["%e", [{ t: "f64", v: 0 }], "0.000000e+00"],
  ["%g", [{ t: "f64", v: 0.00001 }], "1e-05"],
  [
    "%5t|%-7t|",
    [
      { t: "bool", v: true },
      { t: "bool", v: false },
    ],
    " true|false  |",
  ],
  ["%05t", [{ t: "bool", v: true }], "0true"],
  ["%05s", [{ t: "str", v: "ab" }], "000ab"],
  ["%-05s|", [{ t: "str", v: "ab" }], "ab   |"],
  ["%05q", [{ t: "str", v: "a" }], '00"a"'],
  ["%08v", [{ t: "f64", v: -1.5 }], "-00001.5"],
  ["%08v", [{ t: "f64", s: "inf", v: 0 }], "    +Inf"],
  [
    "% v %+v",
    [
      { t: "f64", s: "nan", v: 0 },
      { t: "f64", s: "nan", v: 0 },
    ],
    " NaN NaN",
  ],
  ["%+v", [{ t: "f64", s: "inf", v: 0 }], "+Inf"],
  ["%6.2v", [{ t: "f64", v: 3.25159 }], "   3.3"],
  ["%v", [{ t: "f32", v: 0.1 }], "0.1"],
  ["%.3v", [{ t: "str", v: "abcdef" }], "abc"],
  ["%x", [{ t: "f64", v: 255 }], "0x1.fep+07"],
  ["%b", [{ t: "f64", v: 1 }], "4503599627370496p-52"],
  ["%b", [{ t: "f32", v: 1 }], "8388608p-23"],
  [
    "%v %d",
    [
      { t: "bytes", v: [1, 2] },
      { t: "bytes", v: [1, 2] },
    ],
    "[1 2] [1 2]",
  ],
  [
    "%s|%q|%x|%X|% x|%#x",
    [
      { t: "bytes", v: [104, 105] },
      { t: "bytes", v: [104, 105] },
      { t: "bytes", v: [104, 105] },
      { t: "bytes", v: [104, 105] },
      { t: "bytes", v: [104, 105] },
      { t: "bytes", v: [104, 105] },
    ],
    'hi|"hi"|6869|6869|68 69|0x6869',
  ],
  ["%c", [{ t: "bytes", v: [104, 105] }], "[h i]"],
  ["%s", [{ t: "slice", v: [{ t: "bytes", v: [104, 105] }] }], "[hi]"],
  ["%v", [{ t: "slice", v: [{ t: "bytes", v: [104, 105] }] }], "[[104 105]]"],
  ["%#v", [{ t: "slice", v: [{ t: "bytes", v: [104, 105] }] }], "[]interface {}{[]uint8{0x68, 0x69}}"],
  ["%q", [{ t: "bytes", v: [255, 97] }], '"\\xffa"'],
  [
    "%s",
    [
      {
        t: "slice",
        v: [
          { t: "str", v: "a" },
          { t: "int", v: "1" },
        ],
      },
    ],
    "[a %!s(int=1)]",
  ],
  ["%q", [{ t: "strs", v: ["a", "b"] }], '["a" "b"]'],
  [
    "%5d|",
    [
      {
        t: "slice",
        v: [
          { t: "int", v: "1" },
          { t: "int", v: "22" },
        ],
      },
    ],
    "[    1    22]|",
  ],
  ["%-4v|", [{ t: "map", v: { a: { t: "str", v: "x" } } }], "map[a   :x   ]|"],
  ["%q", [{ t: "str", v: "\ud800x" }], '"�x"'],
  ["%x", [{ t: "str", v: "\ud800" }], "efbfbd"],
  ["%+q", [{ t: "str", v: "日本 " }], '"\\u65e5\\u672c\\u00a0"'],
  ["%#q", [{ t: "str", v: "日本" }], "`日本`"],
  ["%#+q", [{ t: "str", v: "日本" }], "`日本`"],
  ["%#q", [{ t: "str", v: "a\tb" }], "`a\tb`"],
  ["%#q", [{ t: "str", v: "a\nb" }], '"a\\nb"'],
  [
    "<sprint>",
    [
      { t: "int", v: "1" },
      { t: "int", v: "2" },
    ],
    "1 2",
  ],
  [
    "<sprintln>",
    [
      { t: "int", v: "1" },
      { t: "int", v: "2" },
    ],
    "1 2\n",
  ],
  [
    "<sprint>",
    [
      { t: "str", v: "a" },
      { t: "int", v: "1" },
      { t: "int", v: "2" },
      { t: "str", v: "b" },
    ],
    "a1 2b",
  ],
  [
    "<sprintln>",
    [
      { t: "str", v: "a" },
      { t: "int", v: "1" },
      { t: "int", v: "2" },
      { t: "str", v: "b" },
    ],
    "a 1 2 b\n",
  ],
  [
    "<sprint>",
    [
      { t: "int", v: "1" },
      { t: "str", v: "a" },
    ],
    "1a",
  ],
  [
    "<sprintln>",
    [
      { t: "int", v: "1" },
      { t: "str", v: "a" },
    ],
    "1 a\n",
  ],
  ["<sprint>", [{ t: "nil" }, { t: "nil" }], "<nil> <nil>"],
  ["<sprintln>", [{ t: "nil" }, { t: "nil" }], "<nil> <nil>\n"],
  [
    "<sprint>",
    [
      { t: "f64", v: 1.5 },
      { t: "bool", v: true },
    ],
    "1.5 true",
  ],
  [
    "<sprintln>",
    [
      { t: "f64", v: 1.5 },
      { t: "bool", v: true },
    ],
    "1.5 true\n",
  ],
  [
    "<sprint>",
    [
      { t: "S", n: 1 },
      { t: "S", n: 2 },
    ],
    "S<1> S<2>",
  ],
  [
    "<sprintln>",
    [
      { t: "S", n: 1 },
      { t: "S", n: 2 },
    ],
    "S<1> S<2>\n",
  ],
  [
    "<sprint>",
    [
      { t: "str", v: "a" },
      { t: "str", v: "b" },
    ],
    "ab",
  ],
  [
    "<sprintln>",
    [
      { t: "str", v: "a" },
      { t: "str", v: "b" },
    ],
    "a b\n",
  ],
  ["<sprint>", [], ""],
  ["<sprintln>", [], "\n"],
  ["<sprint>", [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1 } }], "{bob 3 [x y] 1}"],
  ["<sprintln>", [{ t: "T", name: "bob", age: 3, tags: ["x", "y"], any: { t: "f64", v: 1 } }], "{bob 3 [x y] 1}\n"],
  ["<sprint>", [{ t: "pT" }, { t: "str", v: "x" }, { t: "nilT" }], "&{ 0 [] <nil>}x<nil>"],
  ["<sprintln>", [{ t: "pT" }, { t: "str", v: "x" }, { t: "nilT" }], "&{ 0 [] <nil>} x <nil>\n"],
];

describe("Go fmt vectors", () => {
  it("match Go 1.19 output", () => {
    for (const [format, operands, want] of GO_VECTORS) {
      const args = operands.map(arg);
      let got: string;
      if (format === "<sprint>") got = sprint(args);
      else if (format === "<sprintln>") got = sprintln(args);
      else got = sprintf(format, args);
      assert.equal(got, want, `${format} ${JSON.stringify(operands)}`);
    }
  });
});

describe("formatValue", () => {
  it("prints scalars the way %v does", () => {
    assert.equal(formatValue("x"), "x");
    assert.equal(formatValue(42n), "42");
    assert.equal(formatValue(-7n), "-7");
    assert.equal(formatValue(true), "true");
    assert.equal(formatValue(null), "<nil>");
    assert.equal(formatValue(undefined), "<no value>");
  });

  it("prints float64 with %g's shortest form (exponent from 1e+06 and below 1e-04)", () => {
    const cases: [number, string][] = [
      [1000000, "1e+06"],
      [100000, "100000"],
      [1e21, "1e+21"],
      [1.2e-5, "1.2e-05"],
      [3, "3"],
      [0.0001, "0.0001"],
      [123456789, "1.23456789e+08"],
      [999999.5, "999999.5"],
      [-0, "-0"],
      [Number.POSITIVE_INFINITY, "+Inf"],
      [Number.NaN, "NaN"],
      [0.1 + 0.2, "0.30000000000000004"],
    ];
    for (const [f, want] of cases) assert.equal(formatValue(f), want, String(f));
  });

  it("prints typed numbers, containers and structs", () => {
    assert.equal(formatValue(new TypedNumber("float32", Math.fround(0.1))), "0.1");
    assert.equal(formatValue(new TypedNumber("uint8", 7n)), "7");
    const m = newMap();
    m.b = [1n, "x"];
    m.a = 1.5;
    assert.equal(formatValue(m), "map[a:1.5 b:[1 x]]");
    assert.equal(formatValue(new TypedNil("map[string]string")), "map[]");
    assert.equal(formatValue(new TypedNil("[]string")), "[]");
    assert.equal(formatValue(new TypedNil("*v1.ProxyConfig")), "<nil>");
    assert.equal(formatValue(Uint8Array.from([104, 105])), "[104 105]");
  });
});

describe("pointers and funcs", () => {
  const inner = goObject("*main.T", [["A", 1n]]);
  const outer = goObject("main.Outer", [["P", inner]]);

  it("shows a pointer to a struct as &{...} at top level", () => {
    assert.equal(sprintf("%v %+v", [inner, inner]), "&{1} &{A:1}");
    assert.equal(sprintf("%#v", [inner]), "&main.T{A:1}");
  });

  it("shows nested pointers as a fixed address", () => {
    const hex = `0x${FAKE_ADDRESS.toString(16)}`;
    assert.equal(sprintf("%v", [outer]), `{${hex}}`);
    assert.equal(sprintf("%#v", [outer]), `main.Outer{P:(*main.T)(${hex})}`);
    assert.equal(sprintf("%v", [[inner]]), `[${hex}]`);
    assert.equal(sprintf("%p", [inner]), hex);
    assert.equal(sprintf("%p", [newMap()]), hex);
  });

  it("prints funcs as addresses and their type with %T", () => {
    const f = goFunc("f", ["string", "...any"], () => "", "string");
    assert.equal(sprintf("%v", [f]), `0x${FAKE_ADDRESS.toString(16)}`);
    assert.equal(sprintf("%T", [f]), "func(string, ...interface {}) string");
    assert.equal(sprintf("%v %p", [new TypedNil("func()"), new TypedNil("*T")]), "<nil> 0x0");
    assert.equal(sprintf("%p", [1n]), "%!p(int=1)");
  });

  it("formatTemplateValue dereferences pointers like the template executor", () => {
    assert.equal(formatTemplateValue(inner), "{1}");
    assert.equal(formatTemplateValue(goObject("*main.T", [], {}, true)), "<nil>");
    assert.equal(formatTemplateValue(goObject("*main.S", [], { String: () => "str" })), "str");
    assert.equal(formatTemplateValue(1.5), "1.5");
    assert.equal(formatTemplateValue(undefined), "<no value>");
  });

  it("lets errors other than GoError escape from methods", () => {
    const bad = goObject("main.Bad", [], {
      String: () => {
        throw new TypeError("bug");
      },
    });
    assert.throws(() => formatValue(bad), TypeError);
  });
});

describe("sprintf details", () => {
  it("counts width and precision in runes and %x in UTF-8 bytes", () => {
    assert.equal(sprintf("%-4s|%4s|%.1s", ["日本", "😀", "😀x"]), "日本  |   😀|😀");
    assert.equal(sprintf("%x", ["é😀"]), "c3a9f09f9880");
  });

  it("treats a missing operand (undefined) like nil", () => {
    assert.equal(sprintf("%v %d", [undefined, undefined]), "<nil> %!d(<nil>)");
  });

  it("prints a format without verbs unchanged", () => {
    assert.equal(sprintf("plain text", []), "plain text");
  });
});
