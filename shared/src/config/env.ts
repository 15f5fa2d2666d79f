import process from "node:process";

/** A configuration value that stops the process at start, naming the variable. */
export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = "ConfigError";
  }
}

type Source = Record<string, string | undefined>;

/** Typed readers over the environment; each throws ConfigError naming the variable. */
export function envReader(source: Source = process.env) {
  const raw = (name: string) => {
    const value = source[name];
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  };
  return {
    optionalString(name: string): string | undefined {
      return raw(name);
    },
    string(name: string, fallback?: string): string {
      const value = raw(name) ?? fallback;
      if (value === undefined) throw new ConfigError(name, "is required.");
      return value;
    },
    int(name: string, fallback: number, bounds: { min?: number; max?: number } = {}): number {
      const value = raw(name);
      if (value === undefined) return fallback;
      const parsed = Number(value);
      if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(parsed)) throw new ConfigError(name, `must be a whole number, got "${value}".`);
      if (bounds.min !== undefined && parsed < bounds.min) throw new ConfigError(name, `must be at least ${bounds.min}, got ${parsed}.`);
      if (bounds.max !== undefined && parsed > bounds.max) throw new ConfigError(name, `must be at most ${bounds.max}, got ${parsed}.`);
      return parsed;
    },
    oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
      const value = raw(name) ?? fallback;
      if (!(allowed as readonly string[]).includes(value)) throw new ConfigError(name, `must be one of ${allowed.join(", ")}, got "${value}".`);
      return value as T;
    },
    bool(name: string, fallback: boolean): boolean {
      const value = raw(name);
      if (value === undefined) return fallback;
      if (/^(1|true|yes|on)$/i.test(value)) return true;
      if (/^(0|false|no|off)$/i.test(value)) return false;
      throw new ConfigError(name, `must be true or false, got "${value}".`);
    },
    url(name: string, protocols: string[], fallback?: string): string | undefined {
      const value = raw(name) ?? fallback;
      if (value === undefined) return undefined;
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        throw new ConfigError(name, "is not a valid URL.");
      }
      if (!protocols.includes(parsed.protocol)) throw new ConfigError(name, `must use ${protocols.join(" or ")}, got ${parsed.protocol}`);
      return value;
    },
    secret(name: string, minLength: number, developmentFallback?: () => string): string {
      const value = raw(name) ?? developmentFallback?.();
      if (value === undefined) throw new ConfigError(name, "is required.");
      if (value.length < minLength) throw new ConfigError(name, `must be at least ${minLength} characters long.`);
      return value;
    },
  };
}
