import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GENERATED_TYPES, generateTypes } from "../../../examples/generate-types";
import { sharedSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";

const ROOT = join(import.meta.dir, "../../..");

async function run(command: string[], env: Record<string, string> = {}) {
  const child = Bun.spawn(command, { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code };
}

describe("the typed client example", () => {
  test("when the types are regenerated from the document, then they equal the committed file", async () => {
    expect(await generateTypes()).toBe(readFileSync(GENERATED_TYPES, "utf8"));
  });

  test("when examples/ is type-checked, then tsc reports nothing", async () => {
    const result = await run([join(ROOT, "node_modules/.bin/tsc"), "--noEmit", "-p", "examples"]);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  test("when the example runs against a running system, then it creates, reads, updates, lists and deletes a page", async () => {
    const system = await sharedSystem();
    const tenant = await seedTenant(system);
    const key = await tenant.key({ permissions: { docs: "full" } });
    const result = await run([process.execPath, "examples/pages-client.ts"], { BASE_URL: system.baseUrl, API_KEY: key });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^created [0-9a-f-]{36} at .+\nread "Typed client example"\nupdated at .+\nlisted 1 of 1\ndeleted\nafter delete: not_found\n$/);
  });
});
