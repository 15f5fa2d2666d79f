import { randomBytes } from "node:crypto";
import { checkDatabase } from "./database-check";
import { assertPortsFree, type PortUse } from "./ports";
import { commandFor, runtimeEnv, startChild, stopChild, waitUntilOk, type Child, type ChildOutput, type ProcessName, type RuntimeName } from "./processes";

export interface SystemOptions {
  runtime?: RuntimeName;
  replicas?: number;
  /** Public port of replica 0; replica i listens on port + i. */
  port: number;
  adminPort: number;
  pagesPort: number;
  calendarPort: number;
  /** Extra environment for every process (DATABASE_URL, REDIS_URL, DATA_DIR, …). */
  env?: Record<string, string | undefined>;
  /** Extra environment for the gateway processes only. */
  gatewayEnv?: Record<string, string | undefined>;
  /** The processes' output: a function per line (nothing when absent), or "inherit" to share the caller's stdout and stderr. */
  output?: ChildOutput;
  readyTimeoutMs?: number;
  /** Aborting it while the system starts stops what was started, and the launch fails. */
  signal?: AbortSignal;
}

export interface RunningSystem {
  gatewayUrls: string[];
  adminUrls: string[];
  adminToken: string;
  signingKey: string;
  pagesUrl: string;
  calendarUrl: string;
  /** The processes now running, replaced in place when one is restarted. */
  children: Child[];
  /** Starts a process again with the same command and environment, and waits until it is ready. */
  restart(name: string): Promise<Child>;
  /** Stops every process; no process is started after it was called. */
  stop(): Promise<void>;
}

interface ChildSpec {
  command: string[];
  env: Record<string, string>;
  readyUrl: string;
}

function clean(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** Every port the system will listen on, and the variable that moves it (as `npm start` reads them). */
function portUses(options: SystemOptions, replicas: number): PortUse[] {
  const uses: PortUse[] = [];
  for (let i = 0; i < replicas; i++) {
    const suffix = replicas > 1 ? ` of gateway ${i}` : "";
    uses.push({ port: options.port + i, purpose: `the public API${suffix}`, variable: "PORT" });
    uses.push({ port: options.adminPort + i, purpose: `the management API${suffix}`, variable: "ADMIN_PORT" });
  }
  uses.push({ port: options.pagesPort, purpose: "the pages service", variable: "PAGES_PORT" });
  uses.push({ port: options.calendarPort, purpose: "the calendar service", variable: "CALENDAR_PORT" });
  return uses;
}

/**
 * Starts both services and N gateway replicas as separate processes, the way
 * they run in production, and waits until every one is ready. Fails before
 * starting anything when a port is taken or DATABASE_URL cannot be used.
 */
export async function launchSystem(options: SystemOptions): Promise<RunningSystem> {
  const runtime = options.runtime ?? "bun";
  const replicas = options.replicas ?? 1;
  const base = { ...process.env, ...options.env };
  if (replicas > 1 && (!base.DATABASE_URL || !base.REDIS_URL)) {
    throw new Error("GATEWAY_REPLICAS above 1 needs DATABASE_URL and REDIS_URL: replicas must share one database and one Redis.");
  }
  await assertPortsFree(portUses(options, replicas));
  if (base.DATABASE_URL) await checkDatabase(base.DATABASE_URL);

  const signingKey = base.INTERNAL_SIGNING_KEY ?? randomBytes(32).toString("base64url");
  const adminToken = base.ADMIN_TOKEN ?? randomBytes(24).toString("base64url");
  const output = options.output ?? (() => {});
  const pagesUrl = `http://127.0.0.1:${options.pagesPort}`;
  const calendarUrl = `http://127.0.0.1:${options.calendarPort}`;
  const shared = clean({ ...base, INTERNAL_SIGNING_KEY: signingKey });
  // Only the gateway faces the network; it reaches the services on this machine.
  const serviceHost = "127.0.0.1";
  const timeout = options.readyTimeoutMs ?? 60_000;
  const children: Child[] = [];
  const specs = new Map<string, ChildSpec>();
  let stopped = false;

  const start = (name: string, spec: ChildSpec): Child => {
    if (stopped) throw new Error("the launch was interrupted");
    specs.set(name, spec);
    const child = startChild(name, spec.command, spec.env, output);
    children.push(child);
    return child;
  };
  const service = (name: ProcessName, port: number, url: string) =>
    start(name, { command: commandFor(name, runtime), env: { ...runtimeEnv(name, runtime), ...shared, HOST: serviceHost, PORT: String(port) }, readyUrl: `${url}/healthz` });
  const stop = async () => {
    stopped = true;
    await Promise.all(children.map((child) => stopChild(child)));
  };
  const restart = async (name: string): Promise<Child> => {
    const spec = specs.get(name);
    const index = children.findIndex((child) => child.name === name);
    if (!spec || index === -1) throw new Error(`no process named ${name}`);
    if (stopped) throw new Error(`the system is stopping: ${name} is not restarted`);
    await stopChild(children[index]!);
    // Checked again after the await: stop() may have been called meanwhile. From here to the replacement nothing awaits.
    if (stopped) throw new Error(`the system is stopping: ${name} is not restarted`);
    const child = startChild(name, spec.command, spec.env, output);
    children[index] = child;
    await waitUntilOk(spec.readyUrl, child, timeout);
    return child;
  };

  const onAbort = () => void stop();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    if (options.signal?.aborted) throw new Error("the launch was interrupted");
    const services = [service("pages", options.pagesPort, pagesUrl), service("calendar", options.calendarPort, calendarUrl)];
    await waitUntilOk(`${pagesUrl}/healthz`, services[0]!, timeout);
    await waitUntilOk(`${calendarUrl}/healthz`, services[1]!, timeout);
    const gatewayUrls: string[] = [];
    const adminUrls: string[] = [];
    for (let i = 0; i < replicas; i++) {
      gatewayUrls.push(`http://127.0.0.1:${options.port + i}`);
      adminUrls.push(`http://127.0.0.1:${options.adminPort + i}`);
      const env = clean({
        ...runtimeEnv("gateway", runtime),
        ...shared,
        PORT: String(options.port + i),
        ADMIN_PORT: String(options.adminPort + i),
        ADMIN_TOKEN: adminToken,
        PAGES_URL: pagesUrl,
        CALENDAR_URL: calendarUrl,
        ...options.gatewayEnv,
      });
      const child = start(replicas > 1 ? `gateway-${i}` : "gateway", { command: commandFor("gateway", runtime), env, readyUrl: `${gatewayUrls[i]}/healthz` });
      // Replicas start one after another so only the first applies migrations; a gateway listens only once booted.
      await waitUntilOk(`${gatewayUrls[i]}/healthz`, child, timeout);
    }
    if (stopped) throw new Error("the launch was interrupted");
    return { gatewayUrls, adminUrls, adminToken, signingKey, pagesUrl, calendarUrl, children, restart, stop };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
  }
}
