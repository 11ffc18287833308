import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { LUA_DIR } from '../../../../lib/backends/redis/redis-script-sources';

export interface Header {
  text: string;
  /** KEYS[n] lines with a literal index. */
  fixedKeys: number[];
  /** KEYS[<expr with a letter>] lines: the per-item keys of a variadic script. */
  perItemKeys: string[];
}

/** The source of `file` in the Lua folder. */
export const luaSource = (file: string): string => readFileSync(join(LUA_DIR, file), 'utf8');

export function header(file: string): Header {
  const source = luaSource(file);
  // After the #!lua line of a script (see the test of shebangs).
  const match = /^(?:#!lua[^\n]*\n)?--\[\[\n([\s\S]*?)\n\]\]/.exec(source);
  if (!match) throw new Error(`${file} does not start with a --[[ ]] header`);
  const text = match[1];
  const keyLines = text.split('\n').filter((line) => /^\s*KEYS\[/.test(line));
  return {
    text,
    fixedKeys: keyLines
      .map((line) => /^\s*KEYS\[(\d+)\]/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1])),
    perItemKeys: keyLines.filter((line) => /^\s*KEYS\[[^\]]*[a-z][^\]]*\]/.test(line)),
  };
}

/** Every file in the Lua folder: the scripts and the functions prepended to them. */
export const allLuaFiles = readdirSync(LUA_DIR).filter((file) => file.endsWith('.lua'));
/** The functions, prepended to the scripts that use them. */
export const functionFiles = allLuaFiles.filter((file) => file.endsWith('.function.lua'));
/** The scripts, each registered as one command. */
export const luaFiles = allLuaFiles.filter((file) => !file.endsWith('.function.lua'));
