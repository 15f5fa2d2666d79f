import process from "node:process";

/**
 * Checks a running gateway from outside, the way `helm test` does:
 * `bun scripts/smoke-check.ts http://gateway:80`. It waits for /readyz to
 * answer 200, then calls the API without a key and expects the JSON 401.
 * Exits 0 when both hold, 1 (with the reason) when not.
 */
const [base, waitArgument] = process.argv.slice(2);
if (!base || !/^https?:\/\//.test(base)) {
  console.error("Usage: bun scripts/smoke-check.ts <gateway base URL> [seconds to wait for /readyz, default 60]");
  process.exit(2);
}
const waitSeconds = Number(waitArgument ?? 60);
const url = (path: string) => new URL(path, base).toString();

async function readiness(): Promise<string> {
  const deadline = Date.now() + waitSeconds * 1000;
  let last = "no answer";
  for (;;) {
    try {
      const response = await fetch(url("/readyz"), { signal: AbortSignal.timeout(5000) });
      const body = await response.text();
      if (response.status === 200) return `GET /readyz: 200 ${body}`;
      last = `${response.status} ${body}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() >= deadline) throw new Error(`GET /readyz did not answer 200 within ${waitSeconds} s; last: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function unauthenticatedCall(): Promise<string> {
  const response = await fetch(url("/v1/new-page"), { signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  const problems: string[] = [];
  if (response.status !== 401) problems.push(`status ${response.status}, expected 401`);
  if (!response.headers.get("content-type")?.startsWith("application/json")) problems.push(`content-type ${response.headers.get("content-type")}`);
  if (!/^bearer/i.test(response.headers.get("www-authenticate") ?? "")) problems.push("no WWW-Authenticate: Bearer");
  let code: unknown;
  try {
    code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
  } catch {
    problems.push("the body is not JSON");
  }
  if (code !== "missing_token") problems.push(`error.code ${JSON.stringify(code)}, expected "missing_token"`);
  if (problems.length > 0) throw new Error(`GET /v1/new-page without a key: ${problems.join("; ")}: ${text.slice(0, 300)}`);
  return `GET /v1/new-page without a key: 401 ${text}`;
}

try {
  console.log(await readiness());
  console.log(await unauthenticatedCall());
  console.log("smoke check passed");
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
