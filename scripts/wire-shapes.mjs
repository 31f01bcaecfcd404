// Shared by scripts/gen-sdk-wire.mjs and scripts/gen-backend-wire.mjs: resolves response types a
// Stytch client declares (its .d.ts files) to "shapes", the JSON fields an answer may carry and the
// ones it must carry, with the TypeScript compiler. A shape is SCALAR (a value with no further
// schema: a string, a number, null), OPEN (an object with no schema: a Record<string, ...>, any) or
// { fields: { name: shape }, required: [name...] }; an array's shape is its element's. A field is
// required when the type declares it without `?` and without `undefined` in its type (`x: T | null`
// is required: JSON null is present). toJSON writes SCALAR and OPEN as `true` and an object as its
// fields with the required ones listed under REQUIRED ("(required)", which no JSON field is named).
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(ROOT, 'web/widget/package.json'));
const ts = require('typescript');

/**
 * Resolves declared types and type literals in one compiler program.
 *   typesDir: the client's declaration directory (searched recursively for .d.ts files);
 *   names:    type names declared there;
 *   literals: { key: TypeScript type literal } for calls with no declared type;
 *   withheld: { TypeName: [field...] } fields left out wherever that type appears;
 *   unsent:   { TypeName: [field...] } required fields Latchkey deliberately does not send: still
 *             allowed, no longer required, wherever that type appears;
 *   added:    { TypeName: type literal } fields added wherever that type appears.
 * Returns { named: { name: shape }, literal: { key: shape } }.
 */
export function resolveShapes({ typesDir, names, literals = {}, withheld = {}, unsent = {}, added = {} }) {
  const files = readdirSync(typesDir, { recursive: true })
    .filter((f) => f.endsWith('.d.ts'))
    .sort()
    .map((f) => path.join(typesDir, f));
  // Each type gets a probe alias appended to the file that declares it, so the alias resolves in
  // that file's scope (with its imports and its generic defaults applied).
  const probes = new Map(files.map((f) => [f, '']));
  const where = {};
  for (const [i, name] of names.entries()) {
    const decl = new RegExp(`^(?:export )?(?:declare )?(?:type|interface) ${name}\\b`, 'm');
    const file = files.find((f) => decl.test(readFileSync(f, 'utf8')));
    if (!file) throw new Error(`wire-shapes: no declaration of ${name} in ${typesDir}`);
    probes.set(file, probes.get(file) + `\nexport type __probe${i} = ${name};\n`);
    where[`type ${name}`] = { file, probe: `__probe${i}` };
  }
  const custom = path.join(typesDir, '__custom_probes.d.ts');
  let customText = 'export {};\n';
  for (const [i, [key, literal]] of Object.entries(literals).entries()) {
    customText += `export type __custom${i} = ${literal};\n`;
    where[`literal ${key}`] = { file: custom, probe: `__custom${i}` };
  }
  for (const [i, [name, literal]] of Object.entries(added).entries()) {
    customText += `export type __added${i} = ${literal};\n`;
    where[`added ${name}`] = { file: custom, probe: `__added${i}` };
  }
  const options = { strict: true, noEmit: true, skipLibCheck: true, types: [], target: ts.ScriptTarget.ES2022 };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  host.readFile = (f) => (f === custom ? customText : probes.has(f) ? read(f) + probes.get(f) : read(f));
  host.fileExists = ((exists) => (f) => f === custom || exists(f))(host.fileExists.bind(host));
  const getSource = host.getSourceFile.bind(host);
  host.getSourceFile = (f, lang) =>
    f === custom || probes.has(f) ? ts.createSourceFile(f, host.readFile(f), lang, true) : getSource(f, lang);
  const prog = ts.createProgram([...files, custom], options, host);
  const checker = prog.getTypeChecker();
  const typeOf = (w) => {
    const sf = prog.getSourceFile(w.file);
    const decl = sf.statements.find((s) => ts.isTypeAliasDeclaration(s) && s.name.text === w.probe);
    return checker.getTypeAtLocation(decl.name);
  };
  const edits = { withheld, unsent, added: {} };
  for (const name of Object.keys(added)) edits.added[name] = shapeOf(checker, typeOf(where[`added ${name}`]), edits);
  const shape = (w) => shapeOf(checker, typeOf(w), edits);
  return {
    named: Object.fromEntries(names.map((n) => [n, shape(where[`type ${n}`])])),
    literal: Object.fromEntries(Object.keys(literals).map((k) => [k, shape(where[`literal ${k}`])])),
  };
}

export const SCALAR = true;
export const OPEN = Object.freeze({ open: true });
export const REQUIRED = '(required)';

function shapeOf(checker, type, edits, seen = new Set()) {
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return OPEN;
  if (type.isUnion()) return type.types.map((t) => shapeOf(checker, t, edits, seen)).reduce(union, SCALAR);
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    return checker.getTypeArguments(type).map((t) => shapeOf(checker, t, edits, seen)).reduce(union, SCALAR);
  }
  if (!(type.flags & ts.TypeFlags.Object) && !type.isIntersection()) return SCALAR; // scalars, null
  const props = checker.getPropertiesOfType(type);
  if (props.length === 0) return OPEN; // Record<string, ...>: keys are data, not schema
  if (seen.has(type)) return OPEN;
  const name = (type.aliasSymbol ?? type.symbol)?.name;
  const skip = edits.withheld[name] ?? [];
  const unsent = edits.unsent[name] ?? [];
  let out = { fields: {}, required: [] };
  const inner = new Set(seen).add(type);
  for (const p of props) {
    if (skip.includes(p.name) || !isData(p)) continue;
    const declared = checker.getTypeOfSymbol(p);
    out.fields[p.name] = shapeOf(checker, checker.getNonNullableType(declared), edits, inner);
    if (isRequired(p, declared) && !unsent.includes(p.name)) out.required.push(p.name);
  }
  if (Object.hasOwn(edits.added, name ?? '')) out = extend(out, edits.added[name]);
  return out;
}

// isData: a property JSON can carry. A class's members and methods are not: the Node client declares
// `class ConnectedApp` (its API namespace) beside `interface ConnectedApp` (the data), and
// TypeScript merges the two, so the merged type lists fetchConfig and clients among the data.
// A property with no declaration (a mapped type's, as Record<'a' | 'b', T> makes) is data.
function isData(p) {
  const decls = p.declarations ?? [];
  return decls.length === 0 ||
    !decls.every((d) => ts.isClassLike(d.parent) || ts.isMethodSignature(d) || ts.isMethodDeclaration(d));
}

// isRequired: declared without `?` and without undefined (or void, unknown) among its types, so a
// client's code may read it unchecked. `any` counts: the declaration promised the field.
function isRequired(p, declared) {
  if (p.flags & ts.SymbolFlags.Optional) return false;
  const absent = ts.TypeFlags.Undefined | ts.TypeFlags.Void | ts.TypeFlags.Unknown;
  const types = declared.isUnion() ? declared.types : [declared];
  return !types.some((t) => t.flags & absent);
}

const isObject = (s) => s !== SCALAR && s !== OPEN;

/**
 * The shape of a value that has shape a or shape b (a TypeScript union, a route serving several
 * calls): the fields of either, required only when both require them. A scalar branch requires
 * nothing of an object (the check looks into objects only); an OPEN branch (any object) requires
 * nothing at all.
 */
export function union(a, b) {
  if (a === SCALAR) return b;
  if (b === SCALAR) return a;
  if (!isObject(a) || !isObject(b)) {
    const o = isObject(a) ? a : b;
    return isObject(o) ? { fields: o.fields, required: [] } : OPEN;
  }
  const fields = { ...a.fields };
  for (const [k, v] of Object.entries(b.fields)) fields[k] = k in fields ? union(fields[k], v) : v;
  return { fields, required: a.required.filter((k) => b.required.includes(k)) };
}

/**
 * base with Latchkey's additions ext: ext's fields are allowed, but only base's are required (a
 * client's declared type does not promise an addition); a field only ext has keeps ext's shape.
 */
export function extend(base, ext) {
  if (!isObject(ext)) return base;
  if (!isObject(base)) return { fields: ext.fields, required: [] };
  const fields = { ...base.fields };
  for (const [k, v] of Object.entries(ext.fields)) fields[k] = k in fields ? extend(fields[k], v) : v;
  return { fields, required: base.required };
}

/** The JSON of a shape: `true` for no schema, else its fields, the required ones under REQUIRED. */
export function toJSON(shape) {
  if (!isObject(shape)) return true;
  const out = shape.required.length > 0 ? { [REQUIRED]: shape.required } : {};
  for (const [k, v] of Object.entries(shape.fields)) out[k] = toJSON(v);
  return out;
}

/** JSON text of a generated document: indented by one, lists of names on one line. */
export function stringify(doc) {
  return JSON.stringify(doc, null, 1).replace(/\[\n\s*("[^"\n]*"(?:,\n\s*"[^"\n]*")*)\n\s*\]/g,
    (_, names) => `[${names.split(/,\n\s*/).join(', ')}]`) + '\n';
}
