/**
 * Redis key names. Everything of one workspace carries the same hash tag, so a
 * key's counter, its suspension and the workspace's credential epoch live on one
 * Redis Cluster slot and one script can touch them atomically.
 */
const tag = (workspaceId: string) => `{ws:${workspaceId}}`;

export const redisKeys = {
  counter: (workspaceId: string, keyId: string) => `rl:${tag(workspaceId)}:${keyId}`,
  suspension: (workspaceId: string, keyId: string) => `rl:${tag(workspaceId)}:${keyId}:suspended`,
  authEpoch: (workspaceId: string) => `auth-epoch:${tag(workspaceId)}`,
  authFailures: (clientAddress: string, kind: "api-key" | "admin-token" = "api-key") =>
    kind === "api-key" ? `auth-fail:{ip:${clientAddress}}` : `admin-auth-fail:{ip:${clientAddress}}`,
};
