import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

import type { Meta, Overview } from './api-types';

/** What every view shares: the server's meta, the chosen alias and the live overview. */
export interface Dashboard {
  meta: Meta;
  alias: string;
  /** The latest overview of the alias (from the stream); null until the first arrives. */
  overview: Overview | null;
  /** Bumped after each action, so the views read again at once. */
  refreshTick: number;
  refresh(): void;
  /** Says a message in the page's live region (and shows it). */
  announce(message: string, kind?: 'status' | 'error'): void;
}

export const DashboardContext = createContext<Dashboard | null>(null);

export function useDashboard(): Dashboard {
  const dashboard = useContext(DashboardContext);
  if (!dashboard) throw new Error('useDashboard outside DashboardContext');
  return dashboard;
}
