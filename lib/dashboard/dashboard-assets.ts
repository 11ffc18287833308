import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';

import { InternalServerErrorException, Logger, NotFoundException } from '@nestjs/common';
import {
  dashboardAssetNotFound,
  dashboardAssetsMissing,
  dashboardAssetsMissingAt,
} from './dashboard.messages';

/** The content types of the files the page is built into. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

/** A file name of the assets folder: no folder, no dot file, no `..`. */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const ASSET_REFERENCE = /\b(src|href)="((?:\.\/)?assets\/)([A-Za-z0-9][A-Za-z0-9._-]*)"/g;

const escapeAttribute = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A file to send: its bytes and content type. */
export interface DashboardFile {
  readonly body: Buffer;
  readonly type: string;
}

/**
 * The page's files, from the `assets` folder next to this module's
 * compiled file (dist/dashboard/assets installed, lib/dashboard/assets from
 * a checkout once `npm run build` made it). The page is index.html with
 * `<base href>` set to where the dashboard is mounted, and each asset it
 * names marked with its content's hash (`assets/app.js?v=…`) so a browser
 * never mixes a cached bundle with a newer page.
 *
 * @internal
 */
export class DashboardAssets {
  private readonly logger = new Logger('ThreadmillDashboard');
  private missingLogged = false;
  private readonly hashes = new Map<string, string>();

  constructor(readonly dir: string = join(__dirname, 'assets')) {}

  /**
   * index.html, its base the mount path `base` (ending with `/`).
   *
   * @throws InternalServerErrorException (500) naming the build command when the page is not built.
   */
  async page(base: string): Promise<DashboardFile> {
    let html: string;
    try {
      html = await readFile(join(this.dir, 'index.html'), 'utf8');
    } catch {
      if (!this.missingLogged) this.logger.error(dashboardAssetsMissingAt(this.dir));
      this.missingLogged = true;
      throw new InternalServerErrorException(dashboardAssetsMissing());
    }
    const baseTag = `<base href="${escapeAttribute(base)}">`;
    html = /<base\b[^>]*>/i.test(html)
      ? html.replace(/<base\b[^>]*>/i, baseTag)
      : html.replace(/<head\b[^>]*>/i, (head) => `${head}${baseTag}`);
    const versions = await Promise.all(
      [...html.matchAll(ASSET_REFERENCE)].map(
        async ([, , , file]): Promise<[string, string | undefined]> => [
          file,
          await this.hashOf(file),
        ],
      ),
    );
    const versionOf = new Map(versions);
    html = html.replace(
      ASSET_REFERENCE,
      (whole: string, attribute: string, prefix: string, file: string) => {
        const version = versionOf.get(file);
        return version ? `${attribute}="${prefix}${file}?v=${version}"` : whole;
      },
    );
    return { body: Buffer.from(html, 'utf8'), type: 'text/html; charset=utf-8' };
  }

  /** @throws NotFoundException (404) for a file the folder does not hold. */
  async asset(file: string): Promise<DashboardFile> {
    const type = CONTENT_TYPES[extname(file).toLowerCase()];
    if (!ASSET_NAME.test(file) || type === undefined) {
      throw new NotFoundException(dashboardAssetNotFound(file));
    }
    try {
      return { body: await readFile(join(this.dir, file)), type };
    } catch {
      throw new NotFoundException(dashboardAssetNotFound(file));
    }
  }

  private async hashOf(file: string): Promise<string | undefined> {
    let hash = this.hashes.get(file);
    if (hash === undefined) {
      try {
        const body = await readFile(join(this.dir, file));
        hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
        this.hashes.set(file, hash);
      } catch {
        return undefined;
      }
    }
    return hash;
  }
}
