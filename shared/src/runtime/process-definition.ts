import type { LoadEmbeddedExtensions } from "../db/database";

/** How one runtime starts a process: arguments before the entry file, and variables the runtime itself reads at start. */
export interface RuntimeSettings {
  flags: readonly string[];
  env: Readonly<Record<string, string>>;
}

/**
 * What the tools (the launcher, the migration job, the tests' harness, the
 * benchmark, the image) may know of a process, written once beside its code.
 */
export interface ProcessDefinition {
  name: string;
  defaultPort: number;
  /** The folder of numbered SQL migration files. */
  migrations: URL;
  /** PGlite extensions the migrations need in embedded mode. */
  embeddedExtensions?: LoadEmbeddedExtensions;
  /** The entry file per runtime. */
  entry: { bun: URL; deno: URL };
  runtime: { bun: RuntimeSettings; deno: RuntimeSettings };
}
