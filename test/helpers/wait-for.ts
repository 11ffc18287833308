// The contract suite's own, shared with every other test.
export { waitFor } from '../../lib/backend-kit/contract/wait-for';
