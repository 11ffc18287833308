import {
  describeBackendContract,
  type ContractOptions,
  type ContractRunner,
} from '../../../lib/backend-kit';
import { FAST_CHECK_MISSING } from '../../../lib/backend-kit/contract/fast-check.loader';

// Whether `require('fast-check')` finds it, as the suite's loader sees it.
let mockFastCheckInstalled = true;
jest.mock('../../../lib/utils/require-optional.util', () => {
  const actual: typeof import('../../../lib/utils/require-optional.util') = jest.requireActual(
    '../../../lib/utils/require-optional.util',
  );
  return {
    requireOptional: (specifier: string): unknown =>
      specifier === 'fast-check' && !mockFastCheckInstalled
        ? null
        : actual.requireOptional(specifier),
  };
});

/** A runner of its own: it records the cases the suite registers and runs none. */
function recordingRunner(): { runner: ContractRunner; cases: Map<string, () => Promise<void>> } {
  const cases = new Map<string, () => Promise<void>>();
  const path: string[] = [];
  const runner: ContractRunner = {
    describe: (name, body) => {
      path.push(name);
      body();
      path.pop();
    },
    it: (name, body) => {
      cases.set([...path, name].join(' › '), body);
    },
    beforeEach: () => undefined,
    afterEach: () => undefined,
    expect: () => {
      throw new Error('no case runs here');
    },
  };
  return { runner, cases };
}

function registered(options?: ContractOptions): Map<string, () => Promise<void>> {
  const { runner, cases } = recordingRunner();
  describeBackendContract(
    runner,
    'recorded',
    async () => {
      throw new Error('no backend is built here');
    },
    options,
  );
  return cases;
}

const INTERLEAVINGS =
  'recorded backend contract › two callers at once, against the sequential model';
const CANCEL_STARTS =
  'recorded backend contract › cancels racing the start of leased tasks, two callers at once';

describe('the contract suite, as another runner sees it', () => {
  afterEach(() => {
    mockFastCheckInstalled = true;
  });

  it("registers every case with the runner's functions it is given", () => {
    const names = [...registered().keys()];
    expect(names).toContain(
      'recorded backend contract › enqueue and getResult › stores a READY task that getResult returns unchanged',
    );
    expect(names).toContain('recorded backend contract › maintenance pass › answers a ping');
    expect(names.filter((name) => name.startsWith(INTERLEAVINGS))).toHaveLength(2);
    expect(names.filter((name) => name.startsWith(CANCEL_STARTS))).toHaveLength(2);
    expect(new Set(names).size).toBe(names.length);
  });

  it('leaves the random-program sections out when asked to', () => {
    const names = [...registered({ interleavings: false }).keys()];
    expect(names.filter((name) => name.startsWith(INTERLEAVINGS))).toEqual([]);
    expect(names.filter((name) => name.startsWith(CANCEL_STARTS))).toEqual([]);
  });

  it('without fast-check, has each random-program section fail saying how to install it or leave it out', async () => {
    mockFastCheckInstalled = false;
    const cases = registered();
    for (const section of [INTERLEAVINGS, CANCEL_STARTS]) {
      const inSection = [...cases.keys()].filter((name) => name.startsWith(section));
      expect(inSection).toEqual([`${section} › needs fast-check`]);
      await expect(cases.get(inSection[0])!()).rejects.toThrow(FAST_CHECK_MISSING);
    }
    expect(FAST_CHECK_MISSING).toContain('npm install --save-dev fast-check');
    expect(FAST_CHECK_MISSING).toContain('{ interleavings: false }');
  });
});
