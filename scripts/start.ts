import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { ConfigError, envReader, port } from "@ws/shared";
import { adminClient } from "../gateway/src/cli/admin-client";
import { launchSystem } from "./system/launch-system";
import type { RuntimeName } from "./system/processes";

/**
 * `npm start`: the gateway and both services on this machine. Embedded storage
 * unless DATABASE_URL / REDIS_URL are set; GATEWAY_REPLICAS=N for N gateways.
 */
const env = process.env;
function readConfig() {
  const read = envReader();
  return {
    replicas: read.int("GATEWAY_REPLICAS", 1, { min: 1, max: 32 }),
    port: port(read, "PORT", 8080),
    adminPort: port(read, "ADMIN_PORT", 8081),
    pagesPort: port(read, "PAGES_PORT", 8091),
    calendarPort: port(read, "CALENDAR_PORT", 8092),
    runtime: read.oneOf<RuntimeName>("RUNTIME", ["bun", "deno"], "bun"),
  };
}
let config: ReturnType<typeof readConfig>;
try {
  config = readConfig();
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : String(error));
  process.exit(2);
}
const { replicas, port: publicPort, pagesPort, calendarPort, runtime } = config;
let { adminPort } = config;
if (replicas > 1 && adminPort < publicPort + replicas && adminPort + replicas > publicPort) {
  // Replica i takes PORT+i and ADMIN_PORT+i: move the internal ports past the public ones.
  adminPort = publicPort + replicas;
}
if (replicas > 1 && (!env.DATABASE_URL || !env.REDIS_URL)) {
  console.error("GATEWAY_REPLICAS above 1 needs DATABASE_URL and REDIS_URL: the replicas must share one database and one Redis.");
  process.exit(2);
}
const dataDir = env.DATA_DIR ?? ".data";
const seedDemo = !env.ADMIN_TOKEN;

const system = await launchSystem({
  runtime,
  replicas,
  port: publicPort,
  adminPort,
  pagesPort,
  calendarPort,
  env: { DATA_DIR: dataDir },
  output: (name, line) => console.log(`[${name}] ${line}`),
}).catch((error) => {
  console.error(String(error instanceof Error ? error.message : error));
  process.exit(1);
});

async function demoKey(): Promise<string> {
  const admin = adminClient(system.adminUrls[0]!, system.adminToken);
  mkdirSync(dataDir, { recursive: true });
  const stateFile = `${dataDir}/demo-workspace.json`;
  let state: { workspaceId: string; ownerId: string } | undefined;
  if (existsSync(stateFile) && !env.DATABASE_URL) state = JSON.parse(readFileSync(stateFile, "utf8"));
  if (!state) {
    const workspace = await admin.createWorkspace("Demo workspace");
    const owner = await admin.addMember(workspace.id, { email: "demo@example.com", name: "Demo owner", role: "owner" });
    state = { workspaceId: workspace.id, ownerId: owner.id };
    writeFileSync(stateFile, JSON.stringify(state));
  }
  const created = await admin.createKey(state.workspaceId, {
    name: `demo key ${new Date().toISOString()}`,
    created_by: state.ownerId,
    permissions: { lists: "full", docs: "full", calendar: "full", workflows: "run", agents: "run" },
  });
  return created.key;
}

const gateway = `http://localhost:${publicPort}`;
const lines = [
  "",
  `Workspace API is up (${runtime}, ${replicas} gateway${replicas > 1 ? "s" : ""}, ${env.DATABASE_URL ? "PostgreSQL" : "embedded PGlite in " + dataDir}, ${env.REDIS_URL ? "Redis" : "in-process"} rate limits).`,
  `  API:        ${system.gatewayUrls.map((url) => url.replace("127.0.0.1", "localhost")).join(", ")}`,
  `  Docs:       ${gateway}/docs   (OpenAPI: ${gateway}/openapi.json)`,
  `  Management: ${system.adminUrls.map((url) => url.replace("127.0.0.1", "localhost")).join(", ")}${seedDemo ? `   ADMIN_TOKEN=${system.adminToken} (this run only)` : ""}`,
];
if (seedDemo) {
  const key = await demoKey();
  lines.push(
    "",
    "Demo workspace API key (shown once):",
    `  ${key}`,
    "",
    "Try it:",
    `  curl -s -X POST ${gateway}/v1/new-page -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" -d '{"title":"Hello","content":"# First page"}'`,
    `  curl -s ${gateway}/v1/new-page -H "Authorization: Bearer ${key}"`,
  );
}
console.log(lines.join("\n") + "\n");

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    await system.stop();
    process.exit(0);
  });
}
for (const child of system.children) {
  child.exited.then(async (code) => {
    if (stopping) return;
    console.error(`${child.name} exited (${code}); stopping the others.`);
    stopping = true;
    await system.stop();
    process.exit(1);
  });
}
