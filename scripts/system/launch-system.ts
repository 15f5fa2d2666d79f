import { randomBytes } from "node:crypto";
import { commandFor, runtimeEnv, startChild, stopChild, waitUntilOk, type Child, type RuntimeName } from "./processes";

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
  output?: (name: string, line: string) => void;
  readyTimeoutMs?: number;
}

export interface RunningSystem {
  gatewayUrls: string[];
  adminUrls: string[];
  adminToken: string;
  signingKey: string;
  pagesUrl: string;
  calendarUrl: string;
  children: Child[];
  stop(): Promise<void>;
}

function clean(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/**
 * Starts both services and N gateway replicas as separate processes, the way
 * they run in production, and waits until every one is ready.
 */
export async function launchSystem(options: SystemOptions): Promise<RunningSystem> {
  const runtime = options.runtime ?? "bun";
  const replicas = options.replicas ?? 1;
  const base = { ...process.env, ...options.env };
  if (replicas > 1 && (!base.DATABASE_URL || !base.REDIS_URL)) {
    throw new Error("GATEWAY_REPLICAS above 1 needs DATABASE_URL and REDIS_URL: replicas must share one database and one Redis.");
  }
  const signingKey = base.INTERNAL_SIGNING_KEY ?? randomBytes(32).toString("base64url");
  const adminToken = base.ADMIN_TOKEN ?? randomBytes(24).toString("base64url");
  const output = options.output ?? (() => {});
  const pagesUrl = `http://127.0.0.1:${options.pagesPort}`;
  const calendarUrl = `http://127.0.0.1:${options.calendarPort}`;
  const shared = clean({ ...base, INTERNAL_SIGNING_KEY: signingKey });
  // Only the gateway faces the network; it reaches the services on this machine.
  const serviceHost = "127.0.0.1";
  const children: Child[] = [];
  const stop = async () => {
    await Promise.all(children.map((child) => stopChild(child)));
  };
  try {
    const services = [
      startChild("pages", commandFor("pages", runtime), { ...runtimeEnv("pages", runtime), ...shared, HOST: serviceHost, PORT: String(options.pagesPort) }, output),
      startChild("calendar", commandFor("calendar", runtime), { ...runtimeEnv("calendar", runtime), ...shared, HOST: serviceHost, PORT: String(options.calendarPort) }, output),
    ];
    children.push(...services);
    const timeout = options.readyTimeoutMs ?? 60_000;
    await waitUntilOk(`${pagesUrl}/healthz`, services[0]!, timeout);
    await waitUntilOk(`${calendarUrl}/healthz`, services[1]!, timeout);
    const gatewayUrls: string[] = [];
    const adminUrls: string[] = [];
    const gateways: Child[] = [];
    for (let i = 0; i < replicas; i++) {
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
      const name = replicas > 1 ? `gateway-${i}` : "gateway";
      const child = startChild(name, commandFor("gateway", runtime), env, output);
      children.push(child);
      gateways.push(child);
      gatewayUrls.push(`http://127.0.0.1:${options.port + i}`);
      adminUrls.push(`http://127.0.0.1:${options.adminPort + i}`);
      // Replicas start one after another so only the first applies migrations; a gateway listens only once booted.
      await waitUntilOk(`${gatewayUrls[i]}/healthz`, child, timeout);
    }
    return { gatewayUrls, adminUrls, adminToken, signingKey, pagesUrl, calendarUrl, children, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
