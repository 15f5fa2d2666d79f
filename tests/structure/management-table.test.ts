import { afterAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { createLogger } from "@ws/shared";
import { adminRoutes } from "../../gateway/src/admin";
import { ADMIN_OPERATIONS, ADMIN_PREFIX } from "../../gateway/src/admin/operations";
import { createMemoryAuthFailureLimiter } from "../../gateway/src/ratelimit/auth-failure-limiter";

// Building the routes opens no connection: this pool is handed over but never queried.
const sql = postgres("postgres://unused@127.0.0.1:9/unused", { max: 1 });
afterAll(() => sql.end());

describe("the management operation table", () => {
  const serviceData = { purgeWorkspace: async () => ({}) };
  const app = adminRoutes({ sql, epochs: { publish: async () => true }, keyPrefix: "wsk", logger: createLogger("test", "silent"), serviceData }, {
    adminToken: "token",
    failures: createMemoryAuthFailureLimiter(100),
    clientAddressOf: () => "127.0.0.1",
  });

  test("when the management routes are built, then they serve exactly the table's operations under the prefix", () => {
    const served = app.routes.map((route) => `${route.method} ${route.path}`).sort();
    const table = Object.values(ADMIN_OPERATIONS).map((operation) => `${operation.method} ${ADMIN_PREFIX}${operation.path}`).sort();
    expect(served).toEqual(table);
  });
});
