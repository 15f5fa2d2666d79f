import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { appendFileSync } from "node:fs";
import { buildOpenApiDocument } from "../../gateway/src/definition";

type Json = Record<string, any>;

const PUBLIC_DOCUMENT_ID = "https://workspace-api.test/openapi.json";

export class ConformanceError extends Error {
  override name = "ConformanceError";
}

export interface CheckedResponse {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  text: string;
}

let checked = 0;
export const conformanceCount = () => checked;
/** OPENAPI_CONFORMANCE_LOG=<file> appends one line per checked response, to count them over a run. */
const LOG = process.env.OPENAPI_CONFORMANCE_LOG;

/** A checker of responses against one OpenAPI document (the public one, or the management API's). */
export function conformanceTo(document: Json, documentId: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: documentId });

  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}|\{[^}]+\}/g, "[^/]+")}/?$`),
  }));

  const pointer = (...segments: string[]) => segments.map((segment) => segment.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
  const validators = new Map<string, ValidateFunction>();
  function validatorAt(path: string): ValidateFunction {
    let validate = validators.get(path);
    if (!validate) {
      validate = ajv.compile({ $ref: `${documentId}#/${path}` });
      validators.set(path, validate);
    }
    return validate;
  }

  /** A response object and the JSON pointer of where it lives, following `$ref`s. */
  function resolveResponse(response: Json, at: string): { response: Json; at: string } {
    if (typeof response.$ref !== "string") return { response, at };
    const target = response.$ref.replace(/^#\//, "");
    const found = target.split("/").reduce((node: Json, key: string) => node[key.replace(/~1/g, "/").replace(/~0/g, "~")], document);
    return resolveResponse(found, target);
  }


  function describeOperation(method: string, pathname: string): { where: string; responses: Json } {
    const path = pathname.split("?")[0]!;
    const match = templates.find(({ pattern }) => pattern.test(path));
    const unrouted = (document["x-unrouted-responses"] ?? {}) as Json;
    if (!match) return { where: "x-unrouted-responses", responses: unrouted["404"] ? { "404": unrouted["404"] } : {} };
    // HEAD is left implicit in the document: it answers as the path's GET does, without a body.
    const documented = method.toUpperCase() === "HEAD" ? "get" : method.toLowerCase();
    const operation = document.paths[match.template][documented];
    if (!operation) {
      // A method OpenAPI cannot name (PROPFIND, say) answers the 405 every path documents for the methods it can.
      const methodNotAllowed = document.components?.responses?.MethodNotAllowed ? { $ref: "#/components/responses/MethodNotAllowed" } : unrouted["405"];
      return { where: "x-unrouted-responses", responses: methodNotAllowed ? { "405": methodNotAllowed } : {} };
    }
    return { where: pointer("paths", match.template, documented, "responses"), responses: operation.responses };
  }

  /**
   * Checks a response against the OpenAPI document: the
   * operation (method + path template), then the status, then the body schema and
   * the required headers. Throws a ConformanceError when the document does not
   * describe the response.
   */
  function assertConforms(response: CheckedResponse): void {
    const label = `${response.method} ${response.path} → ${response.status}`;
    const { where, responses } = describeOperation(response.method, response.path);
    const described = responses[String(response.status)];
    if (!described) {
      throw new ConformanceError(`${label}: the OpenAPI document does not describe this status (it lists ${Object.keys(responses).join(", ")}). Body: ${response.text.slice(0, 300)}`);
    }
    const { response: spec, at } = resolveResponse(described, where === "x-unrouted-responses" ? "" : `${where}/${response.status}`);
    const problems: string[] = [];

    for (const [name, header] of Object.entries((spec.headers ?? {}) as Json)) {
      const resolved = typeof header.$ref === "string" ? document.components.headers[header.$ref.split("/").pop()] : header;
      const value = response.headers.get(name);
      if (value === null) {
        if (resolved.required) problems.push(`header ${name} is missing`);
        continue;
      }
      if (resolved.schema?.type === "integer" && !/^\d+$/.test(value)) problems.push(`header ${name} is not an integer: ${value}`);
    }

    const content = spec.content as Json | undefined;
    if (response.method === "HEAD") {
      // No body by definition.
    } else if (!content) {
      if (response.text !== "") problems.push(`the document describes no body, but one came: ${response.text.slice(0, 200)}`);
    } else {
      const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      if (!content[type]) {
        problems.push(`content type ${type || "(none)"} is not described (described: ${Object.keys(content).join(", ")})`);
      } else if (type === "application/json") {
        let body: unknown;
        try {
          body = JSON.parse(response.text);
        } catch {
          problems.push(`the body is not JSON: ${response.text.slice(0, 200)}`);
        }
        if (problems.length === 0) {
          const validate = validatorAt(pointer(...`${at}/content`.split("/").filter(Boolean).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~")), "application/json", "schema"));
          if (!validate(body)) {
            problems.push(
              `the body does not match the schema: ${ajv.errorsText(validate.errors, { separator: "; " })}. Body: ${response.text.slice(0, 500)}`,
            );
          }
        }
      }
    }
    if (problems.length) throw new ConformanceError(`${label} does not conform to the OpenAPI document: ${problems.join("; ")}`);
    checked++;
    if (LOG) appendFileSync(LOG, `${response.method} ${response.path.split("?")[0]} ${response.status}\n`);
  }

  return { assertConforms, describeOperation };
}

const publicDocument = JSON.parse(JSON.stringify(buildOpenApiDocument())) as Json;
const publicConformance = conformanceTo(publicDocument, PUBLIC_DOCUMENT_ID);
/** Checks a response of the public API against its OpenAPI document. */
export const assertConforms = publicConformance.assertConforms;
export const describeOperation = publicConformance.describeOperation;

const publicGateways = new Map<string, Promise<boolean>>();

/** Only the public gateway serves the document; the management port and the services are not checked. */
export function isPublicGateway(baseUrl: string): Promise<boolean> {
  let known = publicGateways.get(baseUrl);
  if (!known) {
    known = fetch(`${baseUrl}/openapi.json`, { signal: AbortSignal.timeout(5000) })
      .then(async (response) => {
        if (response.status !== 200) return false;
        const body = (await response.json()) as Json;
        return body.openapi === publicDocument.openapi && body.info?.title === publicDocument.info.title;
      })
      .catch(() => {
        publicGateways.delete(baseUrl);
        return false;
      });
    publicGateways.set(baseUrl, known);
  }
  return known;
}
