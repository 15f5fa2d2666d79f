import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../../../scripts/system";
import { apiClient } from "../../harness/http";
import { sharedSystem } from "../../harness/system";
import { seedTenant } from "../../harness/tenant";

const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
const guide = readFileSync(join(REPO_ROOT, "docs/running-locally.md"), "utf8");

/** A machine with only Node.js and npm: this PATH without the folders that hold Bun, so Bun is reachable only through npm. */
const NODE_ONLY_PATH = (process.env.PATH ?? "/usr/bin:/bin")
  .split(":")
  .filter((dir) => dir && !dir.includes("bun-node") && !Bun.which("bun", { PATH: dir }))
  .join(":");

function shellBlockAfter(text: string, marker: string): string {
  const start = text.indexOf(marker);
  if (start === -1) throw new Error(`no ${marker} in the text`);
  const block = /```sh\n([\s\S]*?)```/.exec(text.slice(start));
  return block![1]!;
}

function bash(script: string) {
  const result = spawnSync("bash", ["-euo", "pipefail", "-c", script], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    env: { HOME: process.env.HOME ?? "/root", PATH: NODE_ONLY_PATH },
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr.split("\n").filter((line) => line && !line.startsWith("npm warn")).join("\n") };
}

describe("the README's commands, run as written on a machine with only Node.js and npm", () => {
  test("the test's PATH has node and npm but no bun", () => {
    expect(Bun.which("node", { PATH: NODE_ONLY_PATH })).not.toBeNull();
    expect(Bun.which("npm", { PATH: NODE_ONLY_PATH })).not.toBeNull();
    expect(Bun.which("bun", { PATH: NODE_ONLY_PATH })).toBeNull();
  });

  test("when the admin CLI block runs, then every line gets the management API's address and token, and the key it made ends revoked", async () => {
    const system = await sharedSystem();
    const block = shellBlockAfter(readme, "<!-- admin-cli-example");
    expect(shellBlockAfter(guide, "## The management CLI")).toBe(block);
    const exported = "export ADMIN_URL=http://localhost:8081 ADMIN_TOKEN=paste-the-token-npm-start-printed";
    expect(block.split("\n")[0]).toBe(exported);
    const result = bash(block.replace(exported, `export ADMIN_URL=${system.adminUrl} ADMIN_TOKEN=${system.adminToken}`));
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });

    const key = /The key \(shown only now, store it safely\):\n {2}(\S+)/.exec(result.stdout)?.[1];
    expect(key).toStartWith("wsk_");
    expect(result.stdout).toContain("1 in all; page 1 of 1.");
    expect(result.stdout).toMatch(/^revoked +true$/m);
    expect((await apiClient(system.baseUrl, key)("GET", "/v1/new-page")).status).toBe(401);
  });

  test("when the typed client example runs with npm, then it creates, reads, updates, lists and deletes a page", async () => {
    const system = await sharedSystem();
    const key = await (await seedTenant(system)).key({ permissions: { docs: "full" } });
    const line = readme.split("\n").find((candidate) => candidate.includes("npm run example:pages"))!;
    expect(line).toBe("BASE_URL=http://localhost:8080 API_KEY=wsk_… npm run example:pages");
    const result = bash(line.replace("http://localhost:8080", system.baseUrl).replace("wsk_…", key).replace("npm run", "npm run --silent"));
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
    expect(result.stdout).toMatch(/^created [0-9a-f-]{36} at .+\nread "Typed client example"\nupdated at .+\nlisted 1 of 1\ndeleted\nafter delete: not_found\n$/);
  });
});
