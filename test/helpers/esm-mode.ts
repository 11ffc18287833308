/**
 * Ink is ESM-only and the inspector loads it with a native import(), which
 * Jest serves to CommonJS tests only when Node runs with
 * --experimental-vm-modules (as `npm test` and `npm run test:unit` do). Fails
 * with that advice instead of Jest's "dynamic import callback" error.
 */
export function assertEsmMode(): void {
  const flag = '--experimental-vm-modules';
  if (process.execArgv.includes(flag) || (process.env.NODE_OPTIONS ?? '').includes(flag)) return;
  throw new Error(
    `These tests load Ink (ESM-only) and need Node's ${flag}: run them with \`npm test\`, ` +
      `\`npm run test:unit\`, or \`node ${flag} node_modules/jest/bin/jest.js ...\`.`,
  );
}
