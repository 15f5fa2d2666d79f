import process from "node:process";
import { ConfigError, envReader, port } from "@ws/shared";
import { adminClient, gatewayProcess } from "../gateway/src/definition";
import {
  chooseFormat,
  demoKey,
  demoStateFile,
  launcherOutput,
  launchSystem,
  PROCESSES,
  supervise,
  type RunningSystem,
  type RuntimeName,
  type SupervisionEvent,
} from "./system";

/**
 * `npm start`: the gateway and both services on this machine, kept running.
 * Embedded storage unless DATABASE_URL / REDIS_URL are set; GATEWAY_REPLICAS=N
 * for N gateways. Safe to run again and again: it checks its ports and the
 * database before starting anything, never leaves a process behind, restarts
 * a process that dies, and keeps one demo workspace per storage backend.
 */
const env = process.env;
const isTerminal = Boolean(process.stdout.isTTY);
const output = launcherOutput({
  format: chooseFormat(env.LOG_FORMAT, isTerminal),
  color: isTerminal && !env.NO_COLOR,
});

function readConfig() {
  const read = envReader();
  const config = {
    replicas: read.int("GATEWAY_REPLICAS", 1, { min: 1, max: 32 }),
    port: port(read, "PORT", PROCESSES.gateway.defaultPort),
    adminPort: port(read, "ADMIN_PORT", gatewayProcess.defaultAdminPort),
    pagesPort: port(read, "PAGES_PORT", PROCESSES.pages.defaultPort),
    calendarPort: port(read, "CALENDAR_PORT", PROCESSES.calendar.defaultPort),
    runtime: read.oneOf<RuntimeName>("RUNTIME", ["bun", "deno"], "bun"),
    logFormat: read.oneOf("LOG_FORMAT", ["auto", "json", "pretty"], "auto"),
    dataDir: read.string("DATA_DIR", ".data"),
    databaseUrl: read.url("DATABASE_URL", ["postgres:", "postgresql:"]),
    redisUrl: read.url("REDIS_URL", ["redis:", "rediss:"]),
  };
  if (config.replicas > 1 && (!config.databaseUrl || !config.redisUrl)) {
    throw new ConfigError("GATEWAY_REPLICAS", "above 1 needs DATABASE_URL and REDIS_URL: the replicas must share one database and one Redis.");
  }
  if (config.replicas > 1 && config.adminPort < config.port + config.replicas && config.adminPort + config.replicas > config.port) {
    // Replica i takes PORT+i and ADMIN_PORT+i: move the internal ports past the public ones.
    config.adminPort = config.port + config.replicas;
  }
  return config;
}

let config: ReturnType<typeof readConfig>;
try {
  config = readConfig();
} catch (error) {
  output.fatal(error instanceof ConfigError ? error.message : String(error));
  process.exit(2);
}

// Whatever ends the launcher, the processes it started end with it.
const launch = new AbortController();
let launching: Promise<unknown> | undefined;
let system: RunningSystem | undefined;
let supervisor: ReturnType<typeof supervise> | undefined;
let exiting = false;
async function exit(code: number): Promise<never> {
  if (!exiting) {
    exiting = true;
    supervisor?.stop();
    launch.abort();
    await launching?.catch(() => {});
    await system?.stop();
    output.close();
    process.exit(code);
  }
  return new Promise<never>(() => {});
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (!exiting) output.say("info", `${signal}: stopping every process`);
    void exit(0);
  });
}
// Killed without a signal reaching it (npm itself killed, say), the launcher is handed to init: stop then too.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid === parent || exiting) return;
  output.say("warn", "the process that started the launcher is gone: stopping every process");
  void exit(1);
}, 1000).unref();
const crash = (error: unknown) => {
  output.fatal(`The launcher failed: ${error instanceof Error ? error.message : String(error)}. Every process it started is being stopped.`);
  void exit(1);
};
process.on("uncaughtException", crash);
process.on("unhandledRejection", crash);

launching = launchSystem({
  runtime: config.runtime,
  replicas: config.replicas,
  port: config.port,
  adminPort: config.adminPort,
  pagesPort: config.pagesPort,
  calendarPort: config.calendarPort,
  env: { DATA_DIR: config.dataDir },
  output: output.format === "json" ? "inherit" : output.child,
  // Embedded storage can take a minute to open on a busy machine; a process that dies meanwhile fails the start at once.
  readyTimeoutMs: 180_000,
  signal: launch.signal,
});
try {
  system = (await launching) as RunningSystem;
} catch (error) {
  if (!exiting) {
    const message = error instanceof Error ? error.message : String(error);
    output.fatal(/exited before it was ready|was not ready/.test(message) ? `${message}: its output above says why.` : message);
  }
  await exit(1);
}
const running = system!;

function describe(event: SupervisionEvent): [level: "info" | "warn" | "error", message: string] {
  const wait = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  switch (event.kind) {
    case "exited": {
      const how = event.signal ? `was killed (${event.signal})` : `exited with code ${event.code}`;
      return ["warn", `${event.name} ${how}; restarting it in ${wait(event.restartInMs)}`];
    }
    case "restarted":
      return ["info", `${event.name} is running again (pid ${event.pid})`];
    case "restart-failed":
      return ["error", `${event.name} did not start again (${event.reason}); next try in ${wait(event.restartInMs)}`];
  }
}
supervisor = supervise(running, (event) => output.say(...describe(event), { process: event.name }));

const seedDemo = !env.ADMIN_TOKEN;
let demo: Awaited<ReturnType<typeof demoKey>> | undefined;
if (seedDemo) {
  try {
    demo = await demoKey(adminClient(running.adminUrls[0]!, running.adminToken), demoStateFile(config.dataDir, config.databaseUrl), config.databaseUrl);
  } catch (error) {
    output.fatal(`The demo workspace could not be prepared: ${error instanceof Error ? error.message : String(error)}`);
    await exit(1);
  }
}

const local = (url: string) => url.replace("127.0.0.1", "localhost");
const gateway = local(running.gatewayUrls[0]!);
const storage = config.databaseUrl ? "PostgreSQL" : `embedded PGlite in ${config.dataDir}`;
const limits = config.redisUrl ? "Redis" : "in-process";
const lines = [
  "",
  `Workspace API is up (${config.runtime}, ${config.replicas} gateway${config.replicas > 1 ? "s" : ""}, ${storage}, ${limits} rate limits).`,
  `  API:        ${running.gatewayUrls.map(local).join(", ")}`,
  `  Docs:       ${gateway}/docs   (OpenAPI: ${gateway}/openapi.json)`,
  `  Management: ${running.adminUrls.map(local).join(", ")}`,
];
if (seedDemo) {
  lines.push(
    `  CLI:        export ADMIN_URL=${local(running.adminUrls[0]!)} ADMIN_TOKEN=${running.adminToken}   (this run's token)`,
    "",
    `Demo workspace API key (shown once${demo!.seeded ? "" : "; the demo workspace and its pages are kept from earlier runs"}):`,
    `  ${demo!.key}`,
    "",
    "Try it:",
    `  curl -s -X POST ${gateway}/v1/new-page -H "Authorization: Bearer ${demo!.key}" -H "Content-Type: application/json" -d '{"title":"Hello","content":"# First page"}'`,
    `  curl -s ${gateway}/v1/new-page -H "Authorization: Bearer ${demo!.key}"`,
  );
}
lines.push("", "Ctrl-C stops every process.", "");
output.banner("ready", lines.join("\n"), {
  api: running.gatewayUrls.map(local),
  docs: `${gateway}/docs`,
  management: running.adminUrls.map(local),
  ...(seedDemo ? { admin_token: running.adminToken, demo_key: demo!.key, demo_workspace_id: demo!.workspaceId, demo_seeded: demo!.seeded } : {}),
  storage,
  rate_limits: limits,
  runtime: config.runtime,
  processes: running.children.map((child) => ({ name: child.name, pid: child.process.pid })),
});
