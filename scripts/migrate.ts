import process from "node:process";
import { databaseConfig, envReader, migrate, openDatabase } from "@ws/shared";
import { MIGRATIONS as gatewayMigrations } from "../gateway/src/boot";
import { pagesService } from "../services/pages/src/definition";
import { calendarService } from "../services/calendar/src/definition";

/**
 * Applies every process's migrations (the Kubernetes pre-install/pre-upgrade Job):
 * `bun scripts/migrate.ts [gateway] [pages] [calendar]`, all of them by default.
 */
const all = {
  gateway: { migrations: gatewayMigrations, extensions: undefined },
  pages: { migrations: pagesService.migrations, extensions: pagesService.embeddedExtensions },
  calendar: { migrations: calendarService.migrations, extensions: calendarService.embeddedExtensions },
};
const chosen = process.argv.slice(2);
const names = (chosen.length ? chosen : Object.keys(all)) as (keyof typeof all)[];
const env = envReader();
for (const name of names) {
  const target = all[name];
  if (!target) {
    console.error(`Unknown process "${name}": choose from ${Object.keys(all).join(", ")}.`);
    process.exit(2);
  }
  const database = await openDatabase({ ...databaseConfig(env, name), poolMax: 1 }, target.extensions);
  const applied = await migrate(database.sql, name, target.migrations);
  console.log(JSON.stringify({ process: name, applied }));
  await database.close();
}
