// Installs React 18.3 into react18/node_modules for the standalone bundle (see vite.config.ts).
// It runs before every build and does nothing when the install is current, so `npm ci` in this
// folder plus `npm run build` is still all a fresh clone needs.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'react18');
const stamp = join(dir, 'node_modules', '.package-lock.json');
const lock = join(dir, 'package-lock.json');
if (!existsSync(stamp) || statSync(stamp).mtimeMs < statSync(lock).mtimeMs) {
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
}
