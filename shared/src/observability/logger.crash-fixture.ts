/** Run by logger.test.ts: logs three info lines (still buffered), then dies the way argv says. */
import process from "node:process";
import { createLogger } from "./logger";

const logger = createLogger("crash-fixture", "info");
logger.info("one");
logger.info("two");
const how = process.argv.at(-1);
setTimeout(() => {
  logger.info("three");
  if (how === "throws") throw new Error("crash-fixture: thrown on purpose");
  if (how === "rejects") void Promise.reject(new Error("crash-fixture: rejected on purpose"));
  if (how === "exits") process.exit(3);
}, 1);
