/**
 * Prints the text summary of kept k6 reports again, e.g. to put two runs side
 * by side: `bun loadtest/show-report.ts loadtest/reports/mixed-*.json`.
 */
import { readFileSync } from "node:fs";
import { fromReport, textSummary } from "./lib/summary.js";

const paths = process.argv.slice(2);
if (paths.length === 0) {
  console.error("usage: bun loadtest/show-report.ts <report.json>...");
  process.exit(2);
}
for (const path of paths) {
  const { data, meta } = fromReport(JSON.parse(readFileSync(path, "utf8")));
  console.log(`${path}:`);
  console.log(textSummary(data, meta));
}
