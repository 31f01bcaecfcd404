// Shared by scripts/gen-sdk-wire.mjs and scripts/gen-backend-wire.mjs: resolves response types a
// Stytch client declares (its .d.ts files) to "shapes", the JSON fields an answer may carry, with the
// TypeScript compiler. A shape is `true` (a value with no further schema: a scalar, a
// Record<string, ...>) or an object of field shapes; an array's shape is its element's.
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
 *   added:    { TypeName: type literal } fields added wherever that type appears.
 * Returns { named: { name: shape }, literal: { key: shape } }.
 */
export function resolveShapes({ typesDir, names, literals = {}, withheld = {}, added = {} }) {
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
  const edits = { withheld, added: {} };
  for (const name of Object.keys(added)) edits.added[name] = shapeOf(checker, typeOf(where[`added ${name}`]), edits);
  const shape = (w) => shapeOf(checker, typeOf(w), edits);
  return {
    named: Object.fromEntries(names.map((n) => [n, shape(where[`type ${n}`])])),
    literal: Object.fromEntries(Object.keys(literals).map((k) => [k, shape(where[`literal ${k}`])])),
  };
}

function shapeOf(checker, type, edits, seen = new Set()) {
  if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return true;
  if (type.isUnion()) {
    let merged = true;
    for (const t of type.types) merged = merge(merged, shapeOf(checker, t, edits, seen));
    return merged;
  }
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    let merged = true;
    for (const t of checker.getTypeArguments(type)) merged = merge(merged, shapeOf(checker, t, edits, seen));
    return merged;
  }
  if (!(type.flags & ts.TypeFlags.Object) && !type.isIntersection()) return true; // scalars, null
  const props = checker.getPropertiesOfType(type);
  if (props.length === 0) return true; // Record<string, ...>: keys are data, not schema
  if (seen.has(type)) return true;
  const name = (type.aliasSymbol ?? type.symbol)?.name;
  const skip = edits.withheld[name] ?? [];
  let out = {};
  const inner = new Set(seen).add(type);
  for (const p of props) {
    if (skip.includes(p.name)) continue;
    out[p.name] = shapeOf(checker, checker.getNonNullableType(checker.getTypeOfSymbol(p)), edits, inner);
  }
  if (Object.hasOwn(edits.added, name ?? '')) out = merge(out, edits.added[name]);
  return out;
}

/** Union of two shapes: `true` (anything scalar) joins with an object as the object. */
export function merge(a, b) {
  if (a === true) return b;
  if (b === true) return a;
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = k in out ? merge(out[k], v) : v;
  return out;
}
