import {
  Controller,
  Get,
  Header,
  NotFoundException,
  Param,
  Query,
  Req,
  Res,
  StreamableFile,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { dashboardRouteNotFound } from './dashboard.messages';
import { DashboardAccessGuard } from './dashboard-access.guard';
import { DashboardAssets, type DashboardFile } from './dashboard-assets';
import { DashboardExceptionFilter } from './dashboard-exception.filter';

/** The page's own routes, as deep as the client's routes go (no wildcard: both adapters route these alike). */
const CLIENT_ROUTES = [
  '',
  ':p1',
  ':p1/:p2',
  ':p1/:p2/:p3',
  ':p1/:p2/:p3/:p4',
  ':p1/:p2/:p3/:p4/:p5',
];

/** Only its own scripts and styles, never in a frame of another site. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/** An asset asked for with the version the page names: it never changes under that address. */
const VERSIONED_CACHE = 'public, max-age=31536000, immutable';
const UNVERSIONED_CACHE = 'public, max-age=300';

const send = ({ body, type }: DashboardFile): StreamableFile =>
  new StreamableFile(body, { type, length: body.length });

/**
 * The page: index.html at the dashboard's path and at each of the client's
 * routes under it, and the files of its bundle under `assets/`.
 *
 * @internal
 */
@Controller()
@UseGuards(DashboardAccessGuard)
@UseFilters(DashboardExceptionFilter)
export class DashboardPageController {
  constructor(
    private readonly assets: DashboardAssets,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** Listed before the client's routes: with Express the first route that matches answers. */
  @Get('assets/:file')
  @Header('X-Content-Type-Options', 'nosniff')
  async asset(
    @Param('file') file: string,
    @Res({ passthrough: true }) response: unknown,
    @Query('v') version?: string,
  ): Promise<StreamableFile> {
    const found = await this.assets.asset(file);
    const cache = version === undefined ? UNVERSIONED_CACHE : VERSIONED_CACHE;
    this.adapterHost.httpAdapter.setHeader(response, 'Cache-Control', cache);
    return send(found);
  }

  @Get(CLIENT_ROUTES)
  @Header('Cache-Control', 'no-cache')
  @Header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
  @Header('X-Content-Type-Options', 'nosniff')
  @Header('X-Frame-Options', 'DENY')
  @Header('Referrer-Policy', 'same-origin')
  async page(
    @Req() request: unknown,
    @Param() route: Record<string, string | undefined>,
  ): Promise<StreamableFile> {
    // The API's and the bundle's unknown routes are not the page's.
    if (route.p1 === 'api' || route.p1 === 'assets') {
      throw new NotFoundException(dashboardRouteNotFound(Object.values(route).join('/')));
    }
    return send(await this.assets.page(this.mountedAt(request, route)));
  }

  /**
   * Where the dashboard is mounted as the browser sees it (a global prefix
   * included): the request's path without the client's route.
   */
  private mountedAt(request: unknown, route: Record<string, string | undefined>): string {
    const url = String(this.adapterHost.httpAdapter.getRequestUrl(request));
    const segments = url.split(/[?#]/, 1)[0].replace(/\/+$/, '').split('/');
    const depth = Object.values(route).filter((part) => part !== undefined).length;
    return `${segments.slice(0, segments.length - depth).join('/')}/`;
  }
}
