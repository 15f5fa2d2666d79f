import type { TSchema } from "elysia";

export type JsonSchema = { [keyword: string]: unknown };

const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/;

/** Elysia's string forms of numbers and booleans (`format: "integer"`, `"numeric"`, `"boolean"`), there only to coerce query strings. */
const COERCION_FORMATS = new Set(["integer", "numeric", "boolean"]);

/**
 * Elysia's `t.Integer`/`t.Numeric` are `anyOf: [string-that-parses, integer]`
 * so that query strings coerce; on the wire (JSON bodies, and query parameters
 * as OpenAPI describes them) the value is the number, so only that branch is kept.
 */
function collapseCoercion(schema: JsonSchema): void {
  const choices = schema.anyOf;
  if (!Array.isArray(choices)) return;
  const kept = (choices as JsonSchema[]).filter((choice) => !(choice.type === "string" && COERCION_FORMATS.has(String(choice.format))));
  if (kept.length === choices.length) return;
  delete schema.anyOf;
  if (kept.length === 1) Object.assign(schema, { ...kept[0], ...schema });
  else schema.anyOf = kept;
}

/** JSON with every object's keys sorted: the same schema whatever order its keywords were written in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, node: unknown) =>
    node !== null && typeof node === "object" && !Array.isArray(node)
      ? Object.fromEntries(Object.entries(node as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : node,
  );
}

/**
 * Turns TypeBox schemas into OpenAPI 3.1 (JSON Schema 2020-12) schemas: the
 * TypeBox symbols go (JSON has no symbols), `$id`s go (TypeBox's
 * `#/components/...` ids are not valid 2020-12 ids), and every titled subschema
 * becomes a named component referenced by `$ref`, so a schema used twice is
 * written once.
 */
export function createSchemaRegistry() {
  const components: Record<string, JsonSchema> = {};
  const serialized = new Map<string, string>();

  function convert(node: unknown, root: boolean): unknown {
    if (Array.isArray(node)) return node.map((item) => convert(item, false));
    if (node === null || typeof node !== "object") return node;
    const out: JsonSchema = {};
    for (const [keyword, value] of Object.entries(node)) {
      if (keyword === "$id") continue;
      // Keyword values that are data, not schemas, are copied as they are.
      out[keyword] = keyword === "examples" || keyword === "default" || keyword === "const" || keyword === "enum" ? value : convert(value, false);
    }
    collapseCoercion(out);
    const title = out.title;
    if (!root && typeof title === "string" && COMPONENT_NAME.test(title)) return reference(title, out);
    return out;
  }

  function reference(name: string, schema: JsonSchema): JsonSchema {
    const text = canonical(schema);
    const existing = serialized.get(name);
    if (existing !== undefined && existing !== text) {
      throw new Error(`Two different schemas are titled ${name}; give one another title.`);
    }
    serialized.set(name, text);
    components[name] = schema;
    return { $ref: `#/components/schemas/${name}` };
  }

  return {
    components,
    /** A named schema becomes a component and its `$ref` is returned; an untitled one is inlined. */
    use(schema: TSchema): JsonSchema {
      return convert(JSON.parse(JSON.stringify(schema)), false) as JsonSchema;
    },
    /** The schema itself (its named parts still become components). */
    inline(schema: TSchema): JsonSchema {
      return convert(JSON.parse(JSON.stringify(schema)), true) as JsonSchema;
    },
  };
}
export type SchemaRegistry = ReturnType<typeof createSchemaRegistry>;

/**
 * An example value derived from a schema (its own `examples`, `default`, enum,
 * format or bounds), so examples follow the schemas instead of sitting beside them.
 */
export function exampleOf(schema: JsonSchema, components: Record<string, JsonSchema>): unknown {
  if (typeof schema.$ref === "string") return exampleOf(components[schema.$ref.split("/").pop()!]!, components);
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const choices = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (choices) return exampleOf(choices.find((choice) => choice.type !== "null") ?? choices[0]!, components);
  switch (schema.type) {
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, exampleOf(property, components)]));
    }
    case "array":
      return schema.items ? [exampleOf(schema.items as JsonSchema, components)] : [];
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 0;
    case "boolean":
      return false;
    case "null":
      return null;
    case "string":
      switch (schema.format) {
        case "uuid":
          return "01936f3e-8a4b-7c2d-9e1f-0a1b2c3d4e5f";
        case "date-time":
          return "2026-01-15T09:30:00.000Z";
        case "email":
          return "ada@example.com";
        case "uri":
          return "https://example.com/";
        default:
          return "text";
      }
    default:
      return null;
  }
}
