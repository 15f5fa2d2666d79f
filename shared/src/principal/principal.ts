import type { Scope } from "../access/scopes";

/**
 * Who is calling, as the gateway established it. The services trust nothing
 * else about the caller: this arrives signed in the internal token.
 */
export interface Principal {
  workspace_id: string;
  member_id: string;
  key_id: string;
  /** Key scopes intersected with the creator's role permissions. */
  scopes: Scope[];
  /** The teams a team-scoped key targets; null for a workspace-wide key. */
  target_team_ids: string[] | null;
  /** Every team whose resources the key's creator can see. */
  visible_team_ids: string[];
  request_id: string;
  /**
   * How long ago (ms) a client of this workspace, at the gateway that signed
   * this, gave up an answer of a service before it had all of it; absent when
   * none did within ANSWER_GIVEN_UP_COUNTS_MS. A service that holds room for
   * large answers counts it (large-contents.ts): an answer may leave the
   * service whole and sit unread in the sockets' buffers when its client goes.
   */
  answer_given_up_ms_ago?: number;
}
