/** What the budget needs of a connection holding an incomplete head. */
export interface HeadHolder {
  /** The client it counts against (clientUnit). */
  readonly client: string;
  /** Answers 503 and closes (shortly after when `toFreeRoom`: its connection is wanted for another): its head's room went to another. */
  refuseIncompleteHead(toFreeRoom?: boolean): void;
}

/**
 * The room for request heads still arriving, over every connection of a
 * listener, and for each client (an IPv4 address, an IPv6 /64) a quarter of it.
 *
 * Heads that arrive in one read are never held. One that needs room past a
 * bound takes it from the oldest head held (answered 503 with Retry-After):
 * first the oldest of its own address when the address's share is full, then
 * the oldest of all. An ordinary head in pieces ends within milliseconds, so it
 * is never the oldest for long, while heads kept from ending on purpose are;
 * and one address, however fast it sends, fills only its own share, so it
 * cannot push out other clients' heads at all. Behind a proxy every client has
 * the proxy's address: the share then bounds what arrives through it, and the
 * oldest-first rule still protects the heads that end.
 */
export class UnfinishedHeads {
  private total = 0;
  /** Each holder's bytes, in the order their heads began to be held: the first is the oldest. */
  private readonly held = new Map<HeadHolder, number>();
  /** The same per address, with the address's total. */
  private readonly byAddress = new Map<string, { bytes: number; holders: Set<HeadHolder> }>();
  private readonly perAddressBytes: number;

  constructor(private readonly totalBytes: number) {
    this.perAddressBytes = Math.floor(totalBytes / 4);
  }

  /** Counts `bytes` as `holder`'s incomplete head (0: it ended), making room as above; false when there is none to make but from its own head. */
  hold(holder: HeadHolder, bytes: number): boolean {
    const before = this.held.get(holder) ?? 0;
    const delta = bytes - before;
    if (delta > 0) {
      const address = this.byAddress.get(holder.client);
      while (address !== undefined && address.bytes + delta > this.perAddressBytes) {
        if (!this.refuseOldest(address.holders, holder)) return false;
      }
      while (this.total + delta > this.totalBytes) {
        if (!this.refuseOldest(this.held.keys(), holder)) return false;
      }
    }
    if (bytes > 0) this.count(holder, bytes);
    else this.forget(holder);
    return true;
  }

  /** Refuses the oldest incomplete head of all, to free a connection; false when there is none but `sparing`'s. */
  refuseOldestOfAll(sparing: HeadHolder): boolean {
    return this.refuseOldest(this.held.keys(), sparing, true);
  }

  /** Refuses the oldest incomplete head of `client`'s, to free a connection; false when it has none. */
  refuseOldestOf(client: string, sparing: HeadHolder): boolean {
    const address = this.byAddress.get(client);
    return address !== undefined && this.refuseOldest(address.holders, sparing, true);
  }

  private refuseOldest(holders: Iterable<HeadHolder>, sparing: HeadHolder, toFreeRoom = false): boolean {
    for (const oldest of holders) {
      if (oldest === sparing) return false;
      this.forget(oldest);
      oldest.refuseIncompleteHead(toFreeRoom);
      return true;
    }
    return false;
  }

  private count(holder: HeadHolder, bytes: number): void {
    const before = this.held.get(holder) ?? 0;
    this.total += bytes - before;
    // Setting a key already in a Map keeps its place: a head stays as old as its first held byte.
    this.held.set(holder, bytes);
    let address = this.byAddress.get(holder.client);
    if (address === undefined) this.byAddress.set(holder.client, (address = { bytes: 0, holders: new Set() }));
    address.bytes += bytes - before;
    address.holders.add(holder);
  }

  private forget(holder: HeadHolder): void {
    const before = this.held.get(holder);
    if (before === undefined) return;
    this.total -= before;
    this.held.delete(holder);
    const address = this.byAddress.get(holder.client)!;
    address.bytes -= before;
    address.holders.delete(holder);
    if (address.holders.size === 0) this.byAddress.delete(holder.client);
  }
}
