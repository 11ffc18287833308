import { Cluster, Redis, type RedisOptions } from 'ioredis';

import type { BackendConfig } from '../../core/backend-config.interface';
import type { RedisBackendOptions } from './redis-backend-options.interface';

/** Where the backend's connections go. */
export type RedisTarget =
  | { kind: 'url'; url: string }
  | { kind: 'cluster'; nodes: HostPort[]; redisOptions: RedisOptions }
  | { kind: 'sentinel'; name: string; sentinels: HostPort[]; redisOptions: RedisOptions }
  | { kind: 'client'; client: Redis | Cluster };

interface HostPort {
  host: string;
  port: number;
}

/** A target, how logs and errors name it (password as `***`), and the secrets to mask. */
export interface ParsedTarget {
  target: RedisTarget;
  maskedTarget: string;
  secrets: string[];
}

const REDIS_PROTOCOLS: ReadonlySet<string> = new Set(['redis:', 'rediss:']);

/**
 * Reads where an alias connects: `url`, `options.clusterNodes`,
 * `options.sentinel` or `options.client`, exactly one of them. `fail`
 * throws the InvalidBackendConfigError naming the option.
 *
 * @internal
 */
export function parseRedisTarget(
  config: BackendConfig,
  fail: (option: string, problem: string) => never,
): ParsedTarget {
  const options = (config.options ?? {}) as RedisBackendOptions;
  const sources = [
    config.url !== undefined && 'url',
    options.clusterNodes !== undefined && 'clusterNodes',
    options.sentinel !== undefined && 'sentinel',
    options.client !== undefined && 'client',
  ].filter((source): source is string => typeof source === 'string');
  if (sources.length === 0) {
    fail(
      'url',
      'is missing: set url (redis:// or rediss://), options.clusterNodes, options.sentinel ' +
        'or options.client',
    );
  }
  if (sources.length > 1)
    fail(sources[1], `cannot be combined with ${sources[0]}: use one of them`);
  if (options.client !== undefined) return clientTarget(options.client, fail);
  if (options.clusterNodes !== undefined) return clusterTarget(options.clusterNodes, fail);
  if (options.sentinel !== undefined) return sentinelTarget(options.sentinel, fail);
  return urlTarget(config.url, fail);
}

function clientTarget(client: unknown, fail: (option: string, problem: string) => never) {
  if (!(client instanceof Redis) && !(client instanceof Cluster)) {
    return fail('client', 'must be an ioredis Redis or Cluster instance');
  }
  if (client.options.keyPrefix) {
    fail('client', 'must have no keyPrefix (Threadmill lays out its own keys)');
  }
  let maskedTarget = client instanceof Cluster ? 'a Redis Cluster client' : 'a Redis client';
  if (client instanceof Redis && client.options.sentinels?.length) {
    maskedTarget = `a Redis client of sentinel master ${client.options.name ?? ''}`;
  }
  return { target: { kind: 'client', client } as const, maskedTarget, secrets: [] };
}

function clusterTarget(
  seeds: unknown,
  fail: (option: string, problem: string) => never,
): ParsedTarget {
  const read = readNodes('clusterNodes', seeds, fail);
  return {
    target: { kind: 'cluster', nodes: read.nodes, redisOptions: read.nodeOptions },
    maskedTarget: `cluster ${listed(read.nodes)}`,
    secrets: read.secrets,
  };
}

/**
 * The sentinels and the primary's name: the sentinels' own credentials come
 * from their URLs, the primary's from `username` and `password`.
 */
function sentinelTarget(
  given: unknown,
  fail: (option: string, problem: string) => never,
): ParsedTarget {
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    return fail('sentinel', 'must be { name, nodes, username?, password? }');
  }
  const { name, nodes, username, password, ...rest } = given as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) {
    fail('sentinel', `has ${unknown.join(', ')}; its fields are name, nodes, username, password`);
  }
  if (typeof name !== 'string' || name.trim() === '') {
    fail('sentinel.name', "must be the primary's name in the sentinels' configuration");
  }
  const read = readNodes('sentinel.nodes', nodes, fail);
  if (read.tls) {
    fail(
      'sentinel.nodes',
      'takes host:port or redis:// URLs; for TLS set redisOptions.sentinelTLS (to the sentinels) ' +
        'and redisOptions.tls with enableTLSForSentinelMode (to the primary)',
    );
  }
  const redisOptions: RedisOptions = {};
  if (read.nodeOptions.username) redisOptions.sentinelUsername = read.nodeOptions.username;
  if (read.nodeOptions.password) redisOptions.sentinelPassword = read.nodeOptions.password;
  const secrets = [...read.secrets];
  for (const [field, value] of [
    ['username', username],
    ['password', password],
  ] as const) {
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '') fail(`sentinel.${field}`, 'must be a string');
    redisOptions[field] = value;
  }
  if (typeof password === 'string') secrets.push(password);
  return {
    target: { kind: 'sentinel', name: name, sentinels: read.nodes, redisOptions },
    maskedTarget: sentinelName(name, `sentinels ${listed(read.nodes)}`),
    secrets,
  };
}

/** How logs name a Sentinel's primary, `where` being the server in use or the sentinels asked. */
export function sentinelName(name: string, where: string): string {
  return `sentinel master ${name} (${where})`;
}

function urlTarget(given: unknown, fail: (option: string, problem: string) => never) {
  const url = parseUrl(given);
  if (url === null || !REDIS_PROTOCOLS.has(url.protocol)) {
    return fail('url', `must be a redis:// or rediss:// URL, got "${maskSeed(given)}"`);
  }
  const secrets: string[] = [];
  if (url.password) secrets.push(decodeURIComponent(url.password), url.password);
  const masked = new URL(url.href);
  if (masked.password) masked.password = '***';
  return { target: { kind: 'url', url: url.href } as const, maskedTarget: masked.href, secrets };
}

/** Seed nodes as `host:port` or redis:// URLs, with the credentials and TLS they carry. */
function readNodes(
  option: string,
  seeds: unknown,
  fail: (option: string, problem: string) => never,
): { nodes: HostPort[]; nodeOptions: RedisOptions; secrets: string[]; tls: boolean } {
  if (!Array.isArray(seeds) || seeds.length === 0) {
    return fail(option, 'must list at least one host:port node');
  }
  const nodes: HostPort[] = [];
  const nodeOptions: RedisOptions = {};
  const secrets: string[] = [];
  let tls = false;
  for (const seed of seeds as unknown[]) {
    const url = parseUrl(
      typeof seed === 'string' && !seed.includes('://') ? `redis://${seed}` : seed,
    );
    if (url === null || !REDIS_PROTOCOLS.has(url.protocol) || !url.hostname || !url.port) {
      return fail(option, `has "${maskSeed(seed)}", which is not host:port or a redis:// URL`);
    }
    nodes.push({ host: url.hostname, port: Number(url.port) });
    if (url.username) nodeOptions.username = decodeURIComponent(url.username);
    if (url.password) {
      nodeOptions.password = decodeURIComponent(url.password);
      secrets.push(nodeOptions.password, url.password);
    }
    if (url.protocol === 'rediss:') {
      nodeOptions.tls = {};
      tls = true;
    }
  }
  return { nodes, nodeOptions, secrets, tls };
}

function listed(nodes: readonly HostPort[]): string {
  return nodes.map((node) => `${node.host}:${node.port}`).join(',');
}

function parseUrl(text: unknown): URL | null {
  if (typeof text !== 'string') return null;
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** Something the user wrote, safe to repeat in an error: anything after `//user:` is hidden. */
function maskSeed(text: unknown): string {
  return String(text).replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}
