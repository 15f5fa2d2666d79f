import type { TObject, TProperties } from "@sinclair/typebox";
import { t, type TSchema } from "elysia";
import type { FieldError } from "../errors/field-errors";

/**
 * Marks a closed object's schema: Elysia sets `additionalProperties: false` on
 * every object of a route's schemas, so that cannot tell them apart; a symbol
 * key survives TypeBox's copies (t.Optional clones), as its own Kind does.
 */
const CLOSED = Symbol("closed object");

/**
 * An object whose member names are data, not fields (a permission map, named
 * by resource): an unknown one is refused, where a body's unknown fields are
 * dropped.
 */
export function closedObject<Properties extends TProperties>(properties: Properties, options: Parameters<typeof t.Object>[1] = {}): TObject<Properties> {
  // propertyNames says it in the documents (which leave additionalProperties out: bodies drop unknown fields).
  const schema = t.Object(properties, { ...options, additionalProperties: false, propertyNames: { enum: Object.keys(properties) } });
  return Object.assign(schema, { [CLOSED]: true });
}

/**
 * The members of closed objects (closedObject) that their schemas do not
 * name, as field errors. TypeBox's clean-up drops unknown members before the
 * check, which is right for a body's fields but not here: a key asked for
 * `{"pages": "full"}` would be made with less than was asked, and nothing said.
 */
export function unknownClosedMembers(value: unknown, schema: TSchema | undefined, path = ""): FieldError[] {
  if (schema === undefined || value === null || typeof value !== "object") return [];
  if (Array.isArray(value)) {
    const items = schema.items as TSchema | undefined;
    if (items === undefined || Array.isArray(items)) return [];
    return value.flatMap((item, index) => unknownClosedMembers(item, items, `${path}[${index}]`));
  }
  const properties = schema.properties as Record<string, TSchema> | undefined;
  if (properties === undefined) return [];
  const errors: FieldError[] = [];
  for (const [name, member] of Object.entries(value)) {
    const field = path ? `${path}.${name}` : name;
    if (Object.hasOwn(properties, name)) errors.push(...unknownClosedMembers(member, properties[name], field));
    else if ((schema as { [CLOSED]?: true })[CLOSED]) {
      const known = Object.keys(properties);
      errors.push({ field, rule: "unknown_field", message: `${field} is not an allowed field; allowed: ${known.join(", ")}`, allowed: known });
    }
  }
  return errors;
}
