import { REDIS_SCRIPTS } from '../../../../lib/backends/redis/redis-script-sources';
import { allLuaFiles, functionFiles, header, luaFiles, luaSource } from './lua-headers.setup';

describe('Lua script headers', () => {
  // A ]] inside the --[[ ]] block would end the comment there, and Redis would refuse the
  // rest of the header as code.
  it.each(allLuaFiles)('%s has no ]] inside its header', (file) => {
    expect(header(file).text).not.toContain(']]');
  });

  it.each(luaFiles)('%s has a why-paragraph, ARGV, Returns and Errors sections', (file) => {
    const { text } = header(file);
    const [why] = text.trim().split(/\n\s*\n/);
    expect(why.split(/\s+/).length).toBeGreaterThan(20);
    // A script that takes no arguments says so.
    expect(text).toMatch(/^\s*ARGV(\[\d+\] \S| none$)/m);
    expect(text).toMatch(/^\s*Returns \S/m);
    expect(text).toMatch(/^\s*Errors \S/m);
    // Every KEYS line names the Redis type it expects.
    for (const line of text.split('\n').filter((l) => /^\s*KEYS\[/.test(l))) {
      expect(line).toMatch(/\((STRING|HASH|ZSET|LIST|SET)\)/);
    }
  });

  it.each(luaFiles)('%s derives keys only as documented and names no TS class', (file) => {
    const source = luaSource(file);
    const body = source.slice(source.indexOf(']]') + 2);
    // Concatenating onto an ARGV prefix builds a key: the header must declare it.
    if (/ARGV\[\d+\]\s*\.\./.test(body) || /prefix \.\./.test(body)) {
      expect(header(file).text).toMatch(/Derived keys: [\s\S]*?same hash tag/);
    }
    expect(body).not.toMatch(/threadmill:/);
    expect(body).not.toMatch(/[A-Z][a-z]+(Error|Timeout)\b/);
    expect(body).not.toMatch(/'(READY|RUNNING|SUCCESSFUL|FAILED)'/);
  });

  it.each(
    Object.values(REDIS_SCRIPTS)
      .filter(
        (script) => 'uses' in script && (script.uses as readonly string[]).includes('publishLive'),
      )
      .map((script) => script.file),
  )('%s documents the live channel it publishes on, and what it publishes', (file) => {
    const { text } = header(file);
    expect(text).toMatch(/^\s*ARGV\[\d+\] pub\/sub channel of the alias's live events/m);
    expect(text).toMatch(
      /^\s*Publishes once on ARGV\[\d+\] .*\n\s*\[(enqueued|started|progressed),/m,
    );
  });

  it.each(functionFiles)('%s documents why, its parameters and what it returns', (file) => {
    const { text } = header(file);
    const name = file.replace('.function.lua', '');
    expect(text).toMatch(new RegExp(`^\\s*${name}: `));
    expect(text).toMatch(/^\s*Parameters$/m);
    expect(text).toMatch(/^\s*Returns \S/m);
    const source = luaSource(file);
    expect(source).toMatch(new RegExp(`^local function ${name}\\(`, 'm'));
  });
});
