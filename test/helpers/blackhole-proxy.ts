import { createConnection, createServer, type Server, type Socket } from 'node:net';

// A network path that can go silent. The fault it models is a blackhole (a
// dead switch, a partition, a security group dropping everything): every
// socket stays open, no FIN or RST reaches either end, and nothing sent gets
// through. TCP retransmits unacknowledged bytes until the path comes back, so
// when it does, everything sent meanwhile arrives late but whole and in
// order: the proxy holds what each side sends while blackholed and delivers
// it, in order, on restore. Dropping the bytes instead would leave each
// connection out of step with the other end, which a real network never does.

/** `replies-held`: what clients send goes through, what the target sends back is held. */
export type ProxyMode = 'forward' | 'blackhole' | 'replies-held';

/** What the blackhole holds right now, in bytes, per direction. */
export interface HeldBytes {
  /** Sent by clients, not yet delivered to the target. */
  toTarget: number;
  /** Sent by the target, not yet delivered to clients. */
  toClients: number;
}

/** One direction of one connection: what it forwards, or holds while blackholed. */
class Direction {
  private held: Buffer[] = [];
  private ended = false;
  private heldEnd = false;
  private heldBytes = 0;

  /** `passes`: whether the path lets this direction's bytes through now. */
  constructor(private readonly passes: () => boolean) {}

  get bytes(): number {
    return this.heldBytes;
  }

  /** Whether the source's end is held, to be delivered on restore. */
  get endHeld(): boolean {
    return this.heldEnd;
  }

  /** A chunk from the source: written now, or held. */
  data(to: Socket | null, chunk: Buffer): void {
    if (to && this.passes()) {
      to.write(chunk);
      return;
    }
    this.held.push(chunk);
    this.heldBytes += chunk.length;
  }

  /** The source ended (or closed without an end): so does the other side, now or on restore. */
  end(to: Socket | null): void {
    if (this.ended) return;
    this.ended = true;
    if (to && this.passes()) to.end();
    else this.heldEnd = true;
  }

  /** Delivers what was held, in order, and the end if one came. */
  flush(to: Socket): void {
    for (const chunk of this.held) to.write(chunk);
    this.held = [];
    this.heldBytes = 0;
    if (this.heldEnd) to.end();
  }
}

/** A client connection and its connection to the target (opened once the path lets it through). */
class Link {
  target: Socket | null = null;
  readonly toTarget: Direction;
  readonly toClient: Direction;

  constructor(
    readonly client: Socket,
    mode: () => ProxyMode,
  ) {
    this.toTarget = new Direction(() => mode() !== 'blackhole');
    this.toClient = new Direction(() => mode() === 'forward');
  }

  destroy(): void {
    this.client.destroy();
    this.target?.destroy();
  }
}

/**
 * A TCP proxy on a free loopback port in front of `target` (a private
 * redis-server, or any TCP server: Postgres too), whose path can be blackholed and restored at will. In
 * `forward` mode it pipes bytes both ways. In `blackhole` mode every socket
 * stays open and nothing goes through in either direction, an end or a close
 * included; a new connection is accepted (the client sees it connected) but
 * reaches the target only on restore. `restore` delivers everything held, in
 * order, then forwards again. `replies-held` lets every request reach the
 * target and holds its replies: a call the target carried out whose reply
 * its client never sees, once the client gives up on it and hangs up.
 */
export class BlackholeProxy {
  private current: ProxyMode = 'forward';
  private readonly links = new Set<Link>();
  private accepted = 0;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {
    server.on('connection', (client) => this.accept(client));
  }

  /** Starts a proxy to `targetPort` on 127.0.0.1; resolves once it listens. */
  static async start(targetPort: number): Promise<BlackholeProxy> {
    // Half-open allowed: Node would otherwise answer a client's FIN with its own at once,
    // and a blackhole lets no FIN through.
    const server = createServer({ allowHalfOpen: true });
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
    return new BlackholeProxy(server, port, { host: '127.0.0.1', port: targetPort });
  }

  /** `redis://` URL of the proxy, for clients that should go through it. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get mode(): ProxyMode {
    return this.current;
  }

  /** Connections accepted so far (each client socket counts once). */
  get connections(): number {
    return this.accepted;
  }

  /** Connections open now. */
  get openConnections(): number {
    return this.links.size;
  }

  held(): HeldBytes {
    let toTarget = 0;
    let toClients = 0;
    for (const link of this.links) {
      toTarget += link.toTarget.bytes;
      toClients += link.toClient.bytes;
    }
    return { toTarget, toClients };
  }

  /** Connections whose target hung up while its replies were held: the hang-up comes on restore. */
  targetEndsHeld(): number {
    let ended = 0;
    for (const link of this.links) if (link.toClient.endHeld) ended++;
    return ended;
  }

  /** From now on nothing gets through, in either direction, until restore. */
  blackhole(): void {
    this.current = 'blackhole';
  }

  /** From now on what clients send reaches the target, and nothing comes back, until restore. */
  holdReplies(): void {
    this.current = 'replies-held';
  }

  /** Delivers everything held, in order, on every connection, and forwards again. */
  restore(): void {
    if (this.current === 'forward') return;
    // Synchronous, so no chunk that arrives meanwhile can overtake a held one.
    this.current = 'forward';
    for (const link of this.links) {
      if (!link.target) this.connectTarget(link);
      const target = link.target as Socket;
      link.toTarget.flush(target);
      link.toClient.flush(link.client);
    }
  }

  /** Destroys every connection and stops listening. */
  async close(): Promise<void> {
    for (const link of this.links) link.destroy();
    this.links.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.accepted++;
    const link = new Link(client, () => this.current);
    this.links.add(link);
    // A reset or an EPIPE ends the socket; its close is handled below (forwarded or held).
    client.on('error', () => undefined);
    client.on('data', (chunk: Buffer) => link.toTarget.data(link.target, chunk));
    client.on('end', () => link.toTarget.end(link.target));
    client.on('close', () => {
      link.toTarget.end(link.target);
      this.forgetWhenBothClosed(link);
    });
    // Opened now only while requests get through: a blackholed SYN reaches nobody until it is back.
    if (this.current !== 'blackhole') this.connectTarget(link);
  }

  private connectTarget(link: Link): void {
    const target = createConnection({ ...this.target, allowHalfOpen: true });
    link.target = target;
    target.on('error', () => undefined);
    target.on('data', (chunk: Buffer) => link.toClient.data(link.client, chunk));
    target.on('end', () => link.toClient.end(link.client));
    target.on('close', () => {
      link.toClient.end(link.client);
      this.forgetWhenBothClosed(link);
    });
  }

  /**
   * A link whose client closed before the path let it reach the target stays
   * until restore: what the client sent, and its end, are still on their way.
   */
  private forgetWhenBothClosed(link: Link): void {
    if (link.client.destroyed && link.target?.destroyed) this.links.delete(link);
  }
}
