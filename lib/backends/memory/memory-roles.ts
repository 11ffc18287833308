/**
 * The roles of one MemoryBackend: each role's holder and when its lease runs
 * out. A claim takes a role that is free, lapsed or already the claimant's.
 *
 * @internal
 */
export class MemoryRoles {
  private readonly leases = new Map<string, { holder: string; until: number }>();

  claim(role: string, holder: string, ttlMs: number, now = Date.now()): boolean {
    const lease = this.leases.get(role);
    if (lease && lease.holder !== holder && lease.until > now) return false;
    this.leases.set(role, { holder, until: now + ttlMs });
    return true;
  }
}
