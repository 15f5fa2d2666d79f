/**
 * Sections of `npm run bench` that can also run alone:
 * `npm run bench -- floor` (or `BENCH_SECTIONS=floor npm run bench`) runs only
 * the named sections, prints their tables and writes bench/results/<name>.json;
 * the full run includes every section marked `inFullRun` in latest.json.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { REPO_ROOT } from "../../scripts/system/processes";
import type { TestStorage } from "../../tests/harness/database";
import { memoryAbuseReport, memoryAbuseSection } from "../memory-abuse";
import { floorSection } from "./floor";
import { gatewayCostSection } from "./gateway-cost";
import { ladderSection } from "./ladder";
import { profileSection } from "./profile";

export interface SectionContext {
  storage: TestStorage;
  log(line: string): void;
  /** Registers a cleanup that runs when the bench ends, however it ends. */
  defer(cleanup: () => Promise<unknown>): void;
}

export interface Section<Result = any> {
  name: string;
  /** Part of the full `npm run bench`; otherwise only when named. */
  inFullRun: boolean;
  run(context: SectionContext): Promise<Result>;
  report(result: Result): string;
  /** The results file's name when run alone, if not `<name>.json`. */
  fileName?(result: Result): string;
}

/** Memory under abuse: 48 concurrent 10 MiB bodies from one key, on a system of its own (bench/memory-abuse.ts). */
const memoryAbuse: Section = {
  name: "memory-abuse",
  inFullRun: true,
  run: (context) => memoryAbuseSection(context.storage, context.log),
  report: memoryAbuseReport,
};

export const SECTIONS: Section[] = [gatewayCostSection, floorSection, ladderSection, profileSection, memoryAbuse];

/** The sections named on the command line or in BENCH_SECTIONS; null runs the whole bench. */
export function requestedSections(argv = process.argv.slice(2), fromEnv = process.env.BENCH_SECTIONS): Section[] | null {
  const names = [...argv.filter((arg) => !arg.startsWith("-")), ...(fromEnv ?? "").split(",")].map((name) => name.trim()).filter(Boolean);
  if (names.length === 0) return null;
  return names.map((name) => {
    const section = SECTIONS.find((candidate) => candidate.name === name);
    if (!section) throw new Error(`unknown bench section "${name}"; sections that run alone: ${SECTIONS.map((s) => s.name).join(", ")}`);
    return section;
  });
}

/** Runs sections one after another; their results by name and their tables. */
export async function runSections(sections: Section[], context: SectionContext): Promise<{ results: Record<string, unknown>; report: string }> {
  const results: Record<string, unknown> = {};
  const reports: string[] = [];
  for (const section of sections) {
    context.log(`section ${section.name}`);
    const result = await section.run(context);
    results[section.name] = result;
    reports.push(section.report(result));
  }
  return { results, report: reports.join("\n\n") };
}

/** A run of named sections only: each result goes to bench/results/<name>.json. */
export async function runSectionsAlone(sections: Section[], context: SectionContext, header: Record<string, unknown>): Promise<string> {
  const { results, report } = await runSections(sections, context);
  await mkdir(`${REPO_ROOT}bench/results`, { recursive: true });
  for (const section of sections) {
    const result = results[section.name];
    const file = section.fileName?.(result) ?? `${section.name}.json`;
    await writeFile(`${REPO_ROOT}bench/results/${file}`, `${JSON.stringify({ ...header, [section.name]: result }, null, 2)}\n`);
  }
  return report;
}
