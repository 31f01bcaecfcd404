// Removes previous build outputs but keeps dist/.keep, which git tracks so the Go binary's
// go:embed pattern always matches a directory even before the widget is built.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
for (const entry of readdirSync(dist)) {
  if (entry === '.keep') continue;
  rmSync(join(dist, entry), { recursive: true, force: true });
}
