// `npm run lint`'s check of lib/'s layers (scripts/layers/layers.config.ts): prints each
// problem and exits 1, or prints nothing.
import { join } from 'node:path';

import { checkLayers, problems } from './layers/check-layers';

const found = problems(checkLayers(join(__dirname, '..')));
for (const problem of found) process.stderr.write(`${problem}\n`);
if (found.length > 0) {
  process.stderr.write(`${found.length} layer problem(s): see docs/architecture.md#layers\n`);
  process.exitCode = 1;
}
