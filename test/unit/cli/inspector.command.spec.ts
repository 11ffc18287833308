import { BackendRegistry } from '../../../lib/backends/backend.registry';
import { MemoryBackend } from '../../../lib/backends/memory/memory.backend';
import { CommandOutputWriter } from '../../../lib/cli/command-output.writer';
import { InspectorCommand } from '../../../lib/cli/inspector.command';
import { storeRules } from '../../../lib/lifecycle/store-rules';

/** Records what the command would print, instead of writing to the process streams. */
class RecordingOutput extends CommandOutputWriter {
  readonly usageErrors: string[] = [];
  readonly failures: string[] = [];
  override usageError(message: string): void {
    this.usageErrors.push(message);
  }
  override failure(message: string): void {
    this.failures.push(message);
  }
}

describe('inspector command', () => {
  const registry = new BackendRegistry(
    ['default', 'audit'].map(
      (alias) => new MemoryBackend(alias, { backend: MemoryBackend }, storeRules),
    ),
  );
  afterAll(() => registry.closeAll());

  it('is a usage error that lists the configured aliases when --alias names another', async () => {
    const output = new RecordingOutput();
    await new InspectorCommand(registry, output).run([], { alias: 'nope' });
    expect(output.usageErrors).toEqual([
      expect.stringContaining(
        'No Threadmill backend "nope" is configured (configured: "default", "audit")',
      ),
    ]);
  });

  it('refuses to start without a terminal, in plain words', async () => {
    const output = new RecordingOutput();
    const isTTY = process.stdin.isTTY;
    process.stdin.isTTY = false;
    try {
      await new InspectorCommand(registry, output).run([], { alias: 'audit' });
    } finally {
      process.stdin.isTTY = isTTY;
    }
    expect(output.usageErrors).toEqual([expect.stringContaining('run it in a terminal')]);
  });

  it('parses --alias as a non-empty name', () => {
    const command = new InspectorCommand(registry, new RecordingOutput());
    expect(command.parseAlias('audit')).toBe('audit');
    expect(() => command.parseAlias(' ')).toThrow(/--alias/);
  });
});
