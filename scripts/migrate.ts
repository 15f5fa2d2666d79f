import process from "node:process";
import { ConfigError, databaseConfig, envReader, migrate, openDatabase, type ProcessDefinition } from "@ws/shared";
import { gatewayProcess } from "../gateway/src/definition";
import { calendarProcess } from "../services/calendar/src/definition";
import { pagesProcess } from "../services/pages/src/definition";
import { databaseProblem, redactedUrl } from "./system/database-errors";

/**
 * Applies every process's migrations (the Kubernetes pre-install/pre-upgrade Job):
 * `bun scripts/migrate.ts [gateway] [pages] [calendar]`, all of them by default.
 * A failure is one line naming what failed, and exit code 1.
 */
const all: Record<string, ProcessDefinition> = { gateway: gatewayProcess, pages: pagesProcess, calendar: calendarProcess };
const chosen = process.argv.slice(2);
for (const name of chosen) {
  if (!Object.hasOwn(all, name)) {
    console.error(`Unknown process "${name}": choose from ${Object.keys(all).join(", ")}.`);
    process.exit(2);
  }
}

const env = envReader();
for (const name of chosen.length ? chosen : Object.keys(all)) {
  const target = all[name]!;
  let config: ReturnType<typeof databaseConfig>;
  try {
    config = databaseConfig(env, name);
  } catch (error) {
    console.error(error instanceof ConfigError ? error.message : String(error));
    process.exit(2);
  }
  let step = "connect";
  try {
    const database = await openDatabase({ ...config, poolMax: 1 }, target.embeddedExtensions);
    try {
      await database.sql`select 1`;
      step = "migrate";
      const applied = await migrate(database.sql, name, target.migrations);
      console.log(JSON.stringify({ process: name, applied }));
    } finally {
      await database.close();
    }
  } catch (error) {
    const where = config.url ? `the database at DATABASE_URL=${redactedUrl(config.url)}` : `the embedded database in ${config.dataDir}`;
    const reason = config.url ? databaseProblem(error, config.url) : (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
    console.error(`Migrating ${name} failed: ${step === "connect" ? "cannot use" : "while applying its migrations to"} ${where}: ${reason.replace(/([^.?!])$/, "$1.")}`);
    process.exit(1);
  }
}
