// The contract suite's own, shared with every other test.
export { passUntil } from '../../lib/backend-kit/contract/maintenance-passes';
