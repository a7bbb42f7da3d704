/**
 * Sprig v3's text function map (`sprig.TxtFuncMap()`), assembled from one file per family.
 * Later entries win where names repeat, as in Sprig's own map.
 */

import type { GoFunc } from "../../go/value.js";
import { certsFuncs } from "./certs.js";
import { cryptoFuncs } from "./crypto.js";
import { datesFuncs } from "./dates.js";
import { defaultsFuncs } from "./defaults.js";
import { dictsFuncs } from "./dicts.js";
import { encodingFuncs } from "./encoding.js";
import { listsFuncs } from "./lists.js";
import { networkFuncs } from "./network.js";
import { numbersFuncs } from "./numbers.js";
import { osFuncs } from "./os.js";
import { pathsFuncs } from "./paths.js";
import { reflectFuncs } from "./reflect.js";
import { regexFuncs } from "./regex.js";
import { semverFuncs } from "./semver.js";
import { stringsFuncs } from "./strings.js";
import { urlFuncs } from "./url.js";

export const sprigFuncs: Readonly<Record<string, GoFunc>> = Object.freeze({
  ...stringsFuncs,
  ...pathsFuncs,
  ...osFuncs,
  ...numbersFuncs,
  ...listsFuncs,
  ...dictsFuncs,
  ...defaultsFuncs,
  ...reflectFuncs,
  ...regexFuncs,
  ...datesFuncs,
  ...encodingFuncs,
  ...cryptoFuncs,
  ...certsFuncs,
  ...semverFuncs,
  ...urlFuncs,
  ...networkFuncs,
});
