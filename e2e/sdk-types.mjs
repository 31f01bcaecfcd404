// Shape checks against the TypeScript declarations shipped by the public `stytch` Node client.
//
// The client returns the parsed JSON as-is, so its .d.ts files are the contract an application is
// compiled against: a field declared required there must be present (and not null) in our answer,
// with the declared JSON type, or typed code reading it breaks at run time. This reads the
// interfaces straight out of node_modules/stytch/types (no copy that could drift) and checks a
// response against one of them, recursively. Fields we send beyond the declaration are allowed.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = fileURLToPath(new URL('./node_modules/stytch/types/lib/', import.meta.url));

/** Parses `export interface Name { field?: Type; ... }` blocks (comments stripped). */
function parseInterfaces(text, into) {
  const src = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const re = /export interface (\w+)(?:<[^>]*>)?\s*\{/g;
  for (let m; (m = re.exec(src)); ) {
    // Find the matching brace; nested inline object types are skipped as opaque.
    let depth = 1;
    let i = re.lastIndex;
    for (; i < src.length && depth > 0; i++) {
      if (src[i] === '{') depth++;
      else if (src[i] === '}') depth--;
    }
    const body = src.slice(re.lastIndex, i - 1);
    const fields = [];
    let d = 0;
    let line = '';
    for (const ch of body) {
      if (ch === '{' || ch === '(' || ch === '<') d++;
      if (ch === '}' || ch === ')' || ch === '>') d--;
      if (ch === ';' && d === 0) {
        const f = /^\s*(\w+)(\??):\s*([\s\S]+?)\s*$/.exec(line);
        if (f) fields.push({ name: f[1], optional: f[2] === '?', type: f[3].replace(/\s+/g, ' ') });
        line = '';
      } else {
        line += ch;
      }
    }
    if (!into.has(m[1])) into.set(m[1], fields);
  }
}

let cache;
/** Every interface of the declarations; B2B names win, then shared, then B2C (which declares the
 * session factor and JWK types the B2B ones import). */
export function interfaces() {
  if (cache) return cache;
  cache = new Map();
  for (const dir of ['b2b', 'shared', 'b2c']) {
    for (const f of readdirSync(path.join(TYPES, dir)).sort()) {
      if (f.endsWith('.d.ts')) parseInterfaces(readFileSync(path.join(TYPES, dir, f), 'utf8'), cache);
    }
  }
  return cache;
}

/** Splits a type at top-level `|`. */
function alternatives(type) {
  const out = [];
  let d = 0;
  let cur = '';
  for (const ch of type) {
    if ('{(<['.includes(ch)) d++;
    if ('})>]'.includes(ch)) d--;
    if (ch === '|' && d === 0) {
      out.push(cur.trim());
      cur = '';
    } else {
      cur += ch;
    }
  }
  out.push(cur.trim());
  return out;
}

function check(value, type, where, errs) {
  const alts = alternatives(type);
  if (alts.length > 1) {
    for (const a of alts) {
      const e = [];
      check(value, a, where, e);
      if (e.length === 0) return;
    }
    errs.push(`${where}: ${JSON.stringify(value)} is none of ${type}`);
    return;
  }
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (type === 'any' || type === 'unknown') return;
  if (type === 'string' || /^".*"$/.test(type)) {
    if (typeof value !== 'string') errs.push(`${where}: expected string, got ${JSON.stringify(value)}`);
    return;
  }
  if (type === 'number' || type === 'boolean') {
    if (typeof value !== type) errs.push(`${where}: expected ${type}, got ${JSON.stringify(value)}`);
    return;
  }
  if (type === 'true' || type === 'false') {
    if (value !== (type === 'true')) errs.push(`${where}: expected ${type}, got ${JSON.stringify(value)}`);
    return;
  }
  if (type.endsWith('[]')) {
    if (!Array.isArray(value)) {
      errs.push(`${where}: expected an array (${type}), got ${JSON.stringify(value)}`);
      return;
    }
    value.forEach((v, i) => check(v, type.slice(0, -2), `${where}[${i}]`, errs));
    return;
  }
  if (type.startsWith('Record<')) {
    if (!isObject(value)) errs.push(`${where}: expected an object (${type}), got ${JSON.stringify(value)}`);
    return;
  }
  const fields = interfaces().get(type);
  if (!fields) return; // inline object types, Date, classes: not part of the JSON contract here
  if (!isObject(value)) {
    errs.push(`${where}: expected ${type} object, got ${JSON.stringify(value)}`);
    return;
  }
  for (const f of fields) {
    const v = value[f.name];
    const at = `${where}.${f.name}`;
    if (v === undefined || v === null) {
      // Optional fields may be absent or null (the API family sends null for unset ones).
      if (!f.optional) errs.push(`${at}: required by ${type} but ${v === null ? 'null' : 'missing'}`);
      continue;
    }
    check(v, f.type, at, errs);
  }
}

/** The mismatches between `value` and the declared interface `typeName` (empty when it conforms). */
export function shapeErrors(value, typeName) {
  if (!interfaces().has(typeName)) throw new Error(`no interface ${typeName} in the stytch declarations`);
  const errs = [];
  check(value, typeName, typeName, errs);
  return errs;
}
