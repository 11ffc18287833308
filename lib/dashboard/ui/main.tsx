import { render } from 'preact';

import { App } from './app';
import { normalizeAddress } from './router';

normalizeAddress();
const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
