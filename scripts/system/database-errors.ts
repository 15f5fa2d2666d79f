/** A database URL fit to print: the password is replaced. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(not a valid URL)";
  }
}

const HINTS: Record<string, (url: URL) => string> = {
  ECONNREFUSED: (url) => `nothing accepts connections at ${url.hostname}:${url.port || 5432}; is PostgreSQL running?`,
  ENOTFOUND: (url) => `the host ${url.hostname} is unknown`,
  EAI_AGAIN: (url) => `the host ${url.hostname} could not be resolved`,
  CONNECT_TIMEOUT: (url) => `${url.hostname}:${url.port || 5432} did not answer in time`,
  ETIMEDOUT: (url) => `${url.hostname}:${url.port || 5432} did not answer in time`,
  "3D000": (url) => `the database "${decodeURIComponent(url.pathname.slice(1))}" does not exist (create it with \`createdb\`, or name another in DATABASE_URL)`,
  "28000": () => "the role is not allowed to log in",
  "28P01": () => "the password was refused",
};

/** What went wrong with a database, in a few words: no stack trace, no password. */
export function databaseProblem(error: unknown, url: string): string {
  const code = (error as { code?: unknown })?.code;
  const message = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.replace(/\.$/, "");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "DATABASE_URL is not a valid URL";
  }
  return typeof code === "string" && HINTS[code] ? HINTS[code]!(parsed) : message;
}

/** Why a database could not be used, in one line naming DATABASE_URL. */
export function describeDatabaseError(error: unknown, url: string): string {
  return `Cannot use the database at DATABASE_URL=${redactedUrl(url)}: ${databaseProblem(error, url).replace(/([^.?!])$/, "$1.")}`;
}
