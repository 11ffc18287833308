import { useState } from 'preact/hooks';

import { useDashboard } from './context';
import { navigate } from './router';
import type { TaskListRoute } from './router';

/** Find one task by its id, or list only the tasks of one name. */
export function TaskFilters({ route }: { route: TaskListRoute }) {
  const { alias } = useDashboard();
  const [id, setId] = useState(route.id ?? '');
  const [name, setName] = useState(route.task ?? '');
  return (
    <div class="filters">
      <form
        role="search"
        aria-label="Find a task by id"
        onSubmit={(event) => {
          event.preventDefault();
          navigate({ ...route, id: id.trim() || undefined }, alias);
        }}
      >
        <label>
          Task id
          <input
            type="search"
            data-search
            value={id}
            placeholder="exact id"
            autocomplete="off"
            spellcheck={false}
            onInput={(event) => setId(event.currentTarget.value)}
          />
        </label>
        <button type="submit">Find</button>
        {route.id && (
          <button
            type="button"
            onClick={() => {
              setId('');
              navigate({ ...route, id: undefined }, alias);
            }}
          >
            Show the list
          </button>
        )}
      </form>
      <form
        aria-label="Filter by task name"
        onSubmit={(event) => {
          event.preventDefault();
          navigate({ ...route, task: name.trim() || undefined, id: undefined }, alias);
        }}
      >
        <label>
          Task name
          <input
            type="text"
            value={name}
            placeholder="any"
            autocomplete="off"
            spellcheck={false}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        </label>
        <button type="submit">Filter</button>
        {route.task && (
          <button
            type="button"
            onClick={() => {
              setName('');
              navigate({ ...route, task: undefined, id: undefined }, alias);
            }}
          >
            Clear
          </button>
        )}
      </form>
    </div>
  );
}
