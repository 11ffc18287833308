// A process that only relays an outbox: it builds the alias's RedisBackend
// with its outbox (relay on, a short safety poll) and says `relaying` over
// IPC once it holds the relay's lock. The chaos spec kills it with SIGKILL.
import { RedisBackend } from '../../lib/backends/redis/redis.backend';
import { storeRules } from '../../lib/lifecycle/store-rules';

const [alias, redisUrl, postgresUrl, schema] = process.argv.slice(2);
const backend = new RedisBackend(
  alias,
  {
    backend: RedisBackend,
    url: redisUrl,
    queues: ['default'],
    options: { outbox: { url: postgresUrl, schema, pollInterval: 100, batchSize: 50 } },
  },
  storeRules,
);
const watch = setInterval(() => {
  if (!backend.relaysOutbox) return;
  clearInterval(watch);
  process.send?.('relaying');
}, 5);
process.on('disconnect', () => {
  clearInterval(watch);
  void backend.close().then(() => process.exit(0));
});
