import { OptionalDependencyMissingError } from '../../../lib/core/errors/optional-dependency-missing.error';
import { loadInkRuntime } from '../../../lib/inspector/ink.loader';
import { assertEsmMode } from '../../helpers/esm-mode';

describe('ink loader', () => {
  beforeAll(assertEsmMode);

  it('loads Ink and React through a native import', async () => {
    const runtime = await loadInkRuntime();
    expect(typeof runtime.ink.render).toBe('function');
    expect(typeof runtime.ink.useInput).toBe('function');
    expect(typeof runtime.react.createElement).toBe('function');
    expect(typeof runtime.react.useSyncExternalStore).toBe('function');
  });

  it('says which peers to install when one is missing, instead of a resolution stack', async () => {
    const missing = loadInkRuntime({ ink: 'ink-is-not-installed-here', react: 'react' });
    await expect(missing).rejects.toThrow(OptionalDependencyMissingError);
    await expect(missing).rejects.toThrow(
      'The inspector needs ink@6 react@19; install it with `npm install ink@6 react@19`.',
    );
  });
});
