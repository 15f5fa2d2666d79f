import { timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import { extractKey, unauthorized } from "../auth/extract-credential";

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Contract 8: the management API takes `Authorization: Bearer $ADMIN_TOKEN`. */
export function requireAdminToken(adminToken: string) {
  return new Elysia({ name: "require-admin-token" }).onBeforeHandle({ as: "global" }, ({ request }) => {
    const token = extractKey(request.headers);
    if (!sameSecret(token, adminToken)) throw unauthorized("invalid_token", "The admin token is not valid.");
  });
}
