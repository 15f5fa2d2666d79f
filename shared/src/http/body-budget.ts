import { sweepWhenDoubled } from "../collections/sweep-when-doubled";
import { ApiError } from "../errors/api-error";

/**
 * The request-body bytes a process holds at once, in all and per holder (an API
 * key at the gateway, a workspace at a service). A request takes a lease for its
 * body before the bytes arrive (its declared length, or chunk by chunk when it
 * has none) and gives it back when it is answered, so memory stays bounded
 * however many bodies are sent at once: past the budget a request is refused
 * (503, or 429 when its holder holds its whole share) instead of being buffered.
 */
export interface BodyBudget {
  /**
   * A lease charged to `key`'s share and to the share of its `group` (a key's
   * workspace), when the limits set them; `items` names what it holds in its
   * refusals, when not the budget's own.
   */
  lease(key?: string, group?: string, items?: BudgetItems): BodyLease;
  /** Bytes held now, in all (for metrics and tests). */
  inUse(): number;
  /**
   * `holder`'s client gave up an answer at `at` where this budget could not
   * see it (it had left this process whole, and sat in the sockets' buffers
   * when its client went): counted as `abandoned()` from then, when the
   * limits count such answers at all.
   */
  givenUp(holder: string, at: number): void;
}

export interface BodyLease {
  /** Takes more bytes for this body; throws the refusal when a budget cannot cover them. */
  take(bytes: number): void;
  /**
   * Counts bytes already in memory for work that is done (an answer that must
   * go out): never refused, but what other takes are then measured against.
   */
  hold(bytes: number): void;
  /** Gives every byte back; safe to call more than once. */
  release(): void;
  /**
   * The answer that carries the held bytes is on its way out: while its client
   * takes none of it, it may give way to a take the total cannot cover.
   */
  sending(answer: AnswerInTransit): void;
  /** The answer that carried the held bytes was given up before it went out whole (its client went, or it was cut). */
  abandoned(): void;
}

/** An answer holding room in a budget until it has gone out, as the budget sees it. */
export interface AnswerInTransit {
  /** Since when its client has taken none of it, while some is left; undefined while it is being taken. */
  stalledSince(): number | undefined;
  /** Gives up on it: the connection carrying it is cut, and its room given back. */
  cut(): void;
}

/**
 * How long a client may take nothing of an answer before that answer gives way
 * to another's take the budget's total cannot cover: one that stopped reading
 * would otherwise keep its room, and with two or three such answers no one
 * else's large answer could be made. Seen from a service, a client reading
 * steadily but slowly takes nothing for seconds at a time: megabytes sit in
 * the sockets' buffers between it and the service, and they drain in bursts
 * (readers of 15 MiB lists at 150 KB/s were cut every 10 s at a limit of 1 s
 * or 5 s, and not in 45 s at 15 s). Still not every slow reader is safe: with
 * two other workspaces keeping the budget full, readers at about 160 KB/s were
 * cut 19 to 29 s into their answers in 5 runs of 7 (the buffers between hold
 * megabytes), and at 80 KB/s one was cut at 20 s.
 */
export const STALLED_ANSWER_GIVES_WAY_MS = 15_000;

/**
 * How long a holder whose client gave up an answer before it went out whole
 * still counts as holding room (abandonedCountsMs): twice the time after which
 * an unread answer gives way, so a client renewing its unread answers before
 * they can be cut (every 7 s, as a hostile client did, with a mark of 3 s) is
 * still marked at its next ask. The gateway tells a service of an answer given
 * up for as long (in the principal), when the service could not see it.
 */
export const ANSWER_GIVEN_UP_COUNTS_MS = 2 * STALLED_ANSWER_GIVES_WAY_MS;

export interface BodyBudgetLimits {
  totalBytes: number;
  /** A holder's share; absent: one holder may use the whole budget. */
  perKeyBytes?: number;
  /** Who holds a share, as the refusal names it (default "key"). */
  holder?: "key" | "workspace";
  /** The share of a holder's group (the workspace of a key), as a workspace: absent, no group share. */
  perGroupBytes?: number;
  /** What the bytes are, as the refusals name them, and the 429's `details.reason` (default: request bodies in transit). */
  items?: BudgetItems;
  /**
   * Room a holder that already holds some must leave free after a take (its
   * refusal is its share's 429); a holder holding nothing is limited only by
   * its share and the total. So holders within their shares cannot together
   * fill the budget against a newcomer: set it to the largest single take.
   */
  keepFreeForNewHolders?: number;
  /**
   * How long a holder whose answer was given up before it went out whole
   * still counts as holding room for keepFreeForNewHolders (absent: not at
   * all). A client that asks, reads nothing and gives up to ask again would
   * otherwise be a newcomer at every ask: two such holders, each taking what
   * a newcomer may, kept the budget full with answers too young to be cut.
   * Not counted again from its refused asks: an honest client that gave up
   * once (it timed out) and retries would then stay refused for as long as
   * another holder kept the budget busy.
   */
  abandonedCountsMs?: number;
  /**
   * How long an answer of a holder that counts as having given one up
   * (abandonedCountsMs) may take nothing before it gives way to a take the
   * total cannot cover (absent: STALLED_ANSWER_GIVES_WAY_MS, as any other).
   * A holder's mark ends while it is refused (refusals do not renew it, or an
   * honest client that gave up once would stay refused): two workspaces
   * renewing unread answers every 7 s then held the budget together each time
   * one's mark had ended, and a third's read was refused at its ask and its
   * retry. The other's answer, unread, now gives way to that read.
   */
  givenUpStallMs?: number;
  /**
   * How long a holder refused for the total keeps its place in line after its
   * last refused ask (absent: no line). Holders refused after it, and newcomers,
   * then take room only beside what it asked for, so its retry finds it. Without
   * it, two workspaces that ask again the moment their last answers are out
   * take every room that frees before a third's retry comes (served 0 or 1
   * times in 40). With it, contending workspaces are served in the order they
   * were first refused: with N of them, a retry waits for the N − 1 before it.
   * A place holds others back only once its holder has come back within that
   * time: two workspaces refused once every 7 s (renewing unread answers)
   * otherwise kept places they never used, and a third's reads, with the
   * budget empty, were refused for them at the ask and at the retry.
   */
  placeKeptMs?: number;
  /**
   * How long after its first refusal a refused ask counts as its holder coming
   * back (default 0): asks sent together are one ask sent twice, and a holder
   * that sent two at once and never retried would hold others back for a place
   * it does not use. Set it below the Retry-After the refusal gives.
   */
  cameBackAfterMs?: number;
}

export interface BudgetItems {
  noun: string;
  reason: string;
}

const REQUEST_BODIES: BudgetItems = { noun: "request bodies", reason: "request_bodies_in_transit" };

const RETRY_AFTER = { "retry-after": "1" };

/**
 * The room a holder already holding some must leave free (keepFreeForNewHolders)
 * in a budget of `totalBytes` whose largest single take is `largestBytes`: that
 * take, but at most a quarter of a small budget. Two holders within their
 * shares would otherwise fill the budget, and every other holder's takes,
 * however small, would be refused.
 */
export function roomKeptForNewHolders(totalBytes: number, largestBytes: number): number {
  return Math.min(largestBytes, Math.floor(totalBytes / 4));
}

export function createBodyBudget(limits: BodyBudgetLimits): BodyBudget {
  const budgetItems = limits.items ?? REQUEST_BODIES;
  const overTotal = (items: BudgetItems) =>
    new ApiError("service_unavailable", `Too many ${items.noun} are in transit right now. Try again shortly.`, { headers: RETRY_AFTER });
  const overShare = (holder: string, items: BudgetItems) =>
    new ApiError("rate_limit_exceeded", `This ${holder} has too many ${items.noun} in transit at once. Retry when some have been answered.`, {
      headers: RETRY_AFTER,
      details: { reason: items.reason },
    });
  let total = 0;
  /** When each holder last gave up an answer before it went out whole (kept while it still counts). */
  const abandonedAt = new Map<string, number>();
  // Holders that gave up once and never came back are forgotten, not kept for ever.
  const forgetOldMarks = sweepWhenDoubled(
    () => abandonedAt.size,
    () => {
      for (const known of [...abandonedAt.keys()]) recentlyAbandoned(known);
    },
  );
  const markAbandoned = (holder: string, at: number) => {
    if (limits.abandonedCountsMs === undefined) return;
    forgetOldMarks();
    abandonedAt.set(holder, Math.max(at, abandonedAt.get(holder) ?? at));
  };
  const recentlyAbandoned = (holder: string): boolean => {
    const at = abandonedAt.get(holder);
    if (at === undefined) return false;
    if (Date.now() - at < limits.abandonedCountsMs!) return true;
    abandonedAt.delete(holder);
    return false;
  };
  /**
   * Holders refused for the total, in the order they were first refused: what
   * each asked for, until when its place is kept, and whether it came back.
   */
  const places = new Map<string, { bytes: number; since: number; until: number; cameBack: boolean }>();
  /** Room the places of holders refused before `holder`, and back since, keep (every such place, for a holder that has none). */
  const keptAhead = (holder: string | undefined): number => {
    if (places.size === 0) return 0;
    const now = Date.now();
    let kept = 0;
    for (const [placeHolder, place] of places) {
      if (place.until < now) places.delete(placeHolder);
      else if (placeHolder === holder) break;
      else if (place.cameBack) kept += place.bytes;
    }
    return kept;
  };
  // Holders that were refused once and never came back are forgotten, not kept for ever.
  const forgetOldPlaces = sweepWhenDoubled(
    () => places.size,
    () => keptAhead(undefined),
  );
  /** A holder refused again keeps its first place, for what it asks for now or asked before, whichever is more. */
  const keepPlace = (holder: string, bytes: number) => {
    const now = Date.now();
    const until = now + limits.placeKeptMs!;
    forgetOldPlaces();
    const place = places.get(holder);
    if (!place) return void places.set(holder, { bytes, since: now, until, cameBack: false });
    const cameBack = place.cameBack || now - place.since >= (limits.cameBackAfterMs ?? 0);
    Object.assign(place, { bytes: Math.max(place.bytes, bytes), until, cameBack });
  };
  /** Leases whose bytes are on their way out, each with its answer and its holder. */
  const sending = new Map<BodyLease, { answer: AnswerInTransit; key: string | undefined }>();
  /** How long an answer of `holder` may take nothing before it gives way. */
  const stallAllowedMs = (holder: string | undefined): number =>
    holder !== undefined && limits.givenUpStallMs !== undefined && recentlyAbandoned(holder) ? limits.givenUpStallMs : STALLED_ANSWER_GIVES_WAY_MS;
  /** Cuts the answers stalled longest (each past what its holder is allowed) until `bytes` fit the total; false if they still do not. */
  const makeRoom = (bytes: number): boolean => {
    while (total + bytes > limits.totalBytes) {
      const now = Date.now();
      let oldest: [BodyLease, AnswerInTransit] | undefined;
      let oldestSince = Number.POSITIVE_INFINITY;
      for (const [lease, { answer, key }] of sending) {
        const since = answer.stalledSince();
        if (since !== undefined && since < oldestSince && now - since >= stallAllowedMs(key)) {
          oldest = [lease, answer];
          oldestSince = since;
        }
      }
      if (!oldest) return false;
      // Cutting it releases its lease; it is forgotten here even if it did not.
      sending.delete(oldest[0]);
      oldest[1].cut();
    }
    return true;
  };
  const byKey = new Map<string, number>();
  const byGroup = new Map<string, number>();
  const give = (held: Map<string, number>, id: string, bytes: number) => {
    const left = (held.get(id) ?? 0) - bytes;
    if (left > 0) held.set(id, left);
    else held.delete(id);
  };
  return {
    inUse: () => total,
    givenUp: markAbandoned,
    lease(key, group, items = budgetItems) {
      let held = 0;
      const count = (bytes: number) => {
        total += bytes;
        held += bytes;
        if (key !== undefined) byKey.set(key, (byKey.get(key) ?? 0) + bytes);
        if (group !== undefined) byGroup.set(group, (byGroup.get(group) ?? 0) + bytes);
      };
      const lease: BodyLease = {
        take(bytes) {
          if (bytes <= 0) return;
          const keyHeld = key === undefined ? 0 : (byKey.get(key) ?? 0);
          if (key !== undefined && limits.perKeyBytes !== undefined && keyHeld + bytes > limits.perKeyBytes) throw overShare(limits.holder ?? "key", items);
          const groupHeld = group === undefined ? 0 : (byGroup.get(group) ?? 0);
          if (group !== undefined && limits.perGroupBytes !== undefined && groupHeld + bytes > limits.perGroupBytes) throw overShare("workspace", items);
          // Past the total too, it is still this holder that has to wait, not the newcomer it would crowd out.
          // A key whose workspace already holds room is no newcomer either: more keys must not mean more room.
          // What this lease took before does not count: a body taken chunk by chunk is one take, as if declared at once.
          const holdsRoom = keyHeld - held > 0 || (key !== undefined && limits.abandonedCountsMs !== undefined && recentlyAbandoned(key));
          if ((holdsRoom || groupHeld - held > 0) && limits.keepFreeForNewHolders !== undefined && total + bytes > limits.totalBytes - limits.keepFreeForNewHolders) {
            throw overShare(holdsRoom ? (limits.holder ?? "key") : "workspace", items);
          }
          const ahead = limits.placeKeptMs === undefined ? 0 : keptAhead(key);
          if (total + bytes + ahead > limits.totalBytes && !makeRoom(bytes + ahead)) {
            if (key !== undefined && limits.placeKeptMs !== undefined) keepPlace(key, bytes);
            throw overTotal(items);
          }
          if (key !== undefined) places.delete(key);
          count(bytes);
        },
        hold(bytes) {
          if (bytes > 0) count(bytes);
        },
        sending(answer) {
          if (held > 0) sending.set(lease, { answer, key });
        },
        abandoned() {
          if (key !== undefined) markAbandoned(key, Date.now());
        },
        release() {
          sending.delete(lease);
          if (held === 0) return;
          total -= held;
          if (key !== undefined) give(byKey, key, held);
          if (group !== undefined) give(byGroup, group, held);
          held = 0;
        },
      };
      return lease;
    },
  };
}
