import { DuplicateTaskError } from '../../../lib';
import { TaskDefinition, type ResolvedTaskOptions } from '../../../lib/task/task-definition';
import { TaskRegistry } from '../../../lib/task/task.registry';

class BaseTasks {
  run(): string {
    return 'base';
  }
}
class SesTasks extends BaseTasks {}
class OtherTasks {
  run(): string {
    return 'other';
  }
}

const options = (name: string): ResolvedTaskOptions => ({
  name,
  queue: 'default',
  priority: 0,
  alias: 'default',
  takesContext: false,
});

function define(
  instance: object,
  name: string,
  classes = [instance.constructor as typeof BaseTasks],
) {
  return new TaskDefinition(
    instance,
    'run',
    options(name),
    classes,
    `${instance.constructor.name}.run`,
  );
}

describe('TaskRegistry', () => {
  it('finds a task by name and by class and method', () => {
    const registry = new TaskRegistry();
    const definition = define(new OtherTasks(), 'other');
    registry.register(definition);
    expect(registry.find('other')).toBe(definition);
    expect(registry.findByMethod(OtherTasks, 'run')).toBe(definition);
    expect(registry.findByMethod(OtherTasks, 'missing')).toBeUndefined();
    expect(registry.find('missing')).toBeUndefined();
  });

  it('finds a subclass provider through its base class, and a useClass provider through its token', () => {
    const registry = new TaskRegistry();
    const sub = define(new SesTasks(), 'sub');
    registry.register(sub);
    expect(registry.findByMethod(BaseTasks, 'run')).toBe(sub);
    const tokenRegistry = new TaskRegistry();
    const viaToken = define(new SesTasks(), 'token', [SesTasks, OtherTasks]);
    tokenRegistry.register(viaToken);
    expect(tokenRegistry.findByMethod(OtherTasks, 'run')).toBe(viaToken);
  });

  it('refuses a second task with the same name, naming both places', () => {
    const registry = new TaskRegistry();
    registry.register(define(new OtherTasks(), 'shared'));
    expect(() => registry.register(define(new SesTasks(), 'shared'))).toThrow(DuplicateTaskError);
    expect(() => registry.register(define(new SesTasks(), 'shared'))).toThrow(
      'Two tasks are named "shared": OtherTasks.run and SesTasks.run.',
    );
  });

  it('accepts the same instance and method twice as one task', () => {
    const registry = new TaskRegistry();
    const instance = new OtherTasks();
    registry.register(define(instance, 'same'));
    registry.register(define(instance, 'same'));
    expect(registry.size).toBe(1);
  });
});
