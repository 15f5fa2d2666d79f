import type { Sql } from "./database";

/**
 * The versions a conditional write accepts (from If-Match), as a condition on
 * the table's updated_at inside the write's own statement, so nothing can
 * change between the check and the write. Absent: any version.
 */
export function versionCondition(sql: Sql, versions: string[] | undefined) {
  return versions === undefined ? sql`` : sql`and updated_at = any(${sql.array(versions)}::timestamptz[])`;
}
