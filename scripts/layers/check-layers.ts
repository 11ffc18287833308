import { type ImportEdge, importGraph } from './import-graph';
import { type Layer, LEVELS } from './layers.config';

/** Where a file sits: its layer and that layer's level (0 at the bottom). */
interface Placement {
  layer: Layer;
  level: number;
}

/** What the check found, each problem one line. */
export interface LayerReport {
  /** Files of lib/ that no layer holds. */
  unplaced: string[];
  /** Imports of a higher level, or of a layer beside the importer's. */
  upward: string[];
  /** Import cycles: per set of files tied by cycles, its shortest cycle of imports. */
  cycles: string[];
}

function placementOf(file: string, levels: readonly (readonly Layer[])[]): Placement | undefined {
  let found: Placement | undefined;
  let longest = -1;
  levels.forEach((layers, level) => {
    for (const layer of layers) {
      for (const held of layer.holds) {
        const matches = held.endsWith('/') ? file.startsWith(held) : file === held;
        if (matches && held.length > longest) {
          found = { layer, level };
          longest = held.length;
        }
      }
    }
  });
  return found;
}

function describe(edge: ImportEdge): string {
  return `${edge.from}:${edge.line} imports ${edge.to}${edge.typeOnly ? ' (type-only)' : ''}`;
}

/** The strongly connected components of more than one file (or a file importing itself). */
function circles(files: readonly string[], edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>(files.map((file) => [file, []]));
  for (const edge of edges) next.get(edge.from)?.push(edge.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  // Tarjan's algorithm, with an explicit stack: lib/ is deep enough to matter.
  for (const start of files) {
    if (index.has(start)) continue;
    const work: { file: string; child: number }[] = [{ file: start, child: 0 }];
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const { file } = frame;
      if (frame.child === 0 && !index.has(file)) {
        index.set(file, index.size);
        low.set(file, index.get(file)!);
        stack.push(file);
        onStack.add(file);
      }
      const targets = next.get(file) ?? [];
      if (frame.child < targets.length) {
        const target = targets[frame.child++];
        if (!index.has(target)) work.push({ file: target, child: 0 });
        else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].file;
        low.set(parent, Math.min(low.get(parent)!, low.get(file)!));
      }
      if (low.get(file) !== index.get(file)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || targets.includes(file)) found.push(component.sort());
    }
  }
  return found;
}

/** The shortest cycle of imports among `component`'s files, as its imports in order. */
function shortestCycle(component: readonly string[], edges: readonly ImportEdge[]): ImportEdge[] {
  const members = new Set(component);
  const next = new Map<string, ImportEdge[]>();
  for (const edge of edges) {
    if (!members.has(edge.from) || !members.has(edge.to)) continue;
    const out = next.get(edge.from) ?? [];
    if (!out.some((known) => known.to === edge.to)) out.push(edge);
    next.set(edge.from, out);
  }
  let best: ImportEdge[] = [];
  for (const start of component) {
    // Breadth first from `start` until an import leads back to it.
    const via = new Map<string, ImportEdge>();
    let frontier = [start];
    let closing: ImportEdge | undefined;
    while (frontier.length > 0 && !closing) {
      const following: string[] = [];
      for (const file of frontier) {
        for (const edge of next.get(file) ?? []) {
          if (edge.to === start) closing ??= edge;
          else if (!via.has(edge.to)) {
            via.set(edge.to, edge);
            following.push(edge.to);
          }
        }
      }
      frontier = following;
    }
    if (!closing) continue;
    const cycle = [closing];
    while (cycle[0].from !== start) cycle.unshift(via.get(cycle[0].from)!);
    if (best.length === 0 || cycle.length < best.length) best = cycle;
  }
  return best;
}

/**
 * Checks the imports between files under `root`/lib against `levels`: every file placed,
 * no import upward or sideways, no cycle (type-only imports count).
 */
export function checkLayers(
  root: string,
  levels: readonly (readonly Layer[])[] = LEVELS,
): LayerReport {
  const { files, edges } = importGraph(root, 'lib');

  const placements = new Map<string, Placement>();
  const unplaced: string[] = [];
  for (const file of files) {
    const placement = placementOf(file, levels);
    if (placement) placements.set(file, placement);
    else unplaced.push(`${file} is in no layer`);
  }

  const upward: string[] = [];
  for (const edge of edges) {
    const from = placements.get(edge.from);
    const to = placements.get(edge.to);
    if (!from || !to || from.layer === to.layer || to.level < from.level) continue;
    const where = to.level === from.level ? 'beside it' : 'above it';
    upward.push(`${describe(edge)}: ${from.layer.name} imports ${to.layer.name}, ${where}`);
  }

  const cycles = circles(files, edges).map((component) => {
    const cycle = shortestCycle(component, edges);
    const among =
      cycle.length < component.length
        ? ` (the shortest of the cycles among ${component.length} files)`
        : '';
    return `cycle: ${cycle.map(describe).join('; ')}${among}`;
  });

  return { unplaced, upward, cycles };
}

/** Every problem of a report, one a line; empty when the layers hold. */
export function problems(report: LayerReport): string[] {
  return [...report.unplaced, ...report.upward, ...report.cycles];
}
