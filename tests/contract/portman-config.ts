/**
 * The Portman configuration for the public API, derived from the OpenAPI
 * document so that a new operation is covered without editing this file:
 * contract tests for every operation (status, content type, JSON body, schema,
 * required headers), and variations that break each request the way a client
 * can (fields left out or out of bounds, no key, an id that does not exist).
 */

type Json = Record<string, any>;

export interface DocumentOperation {
  method: string;
  path: string;
  operationId: string;
  operation: Json;
}

const METHODS = ["get", "put", "post", "delete", "options", "patch", "trace"];
const UNSUPPORTED = "Unsupported methods";
/** Collection variables holding the ids that the creates answered, by the path that reads them. */
const ID_VARIABLES: Record<string, { variable: string; createdBy: string }> = {
  "/v1/new-page/{id}": { variable: "pageId", createdBy: "POST::/v1/new-page" },
  "/api/calendar/calendars/{id}": { variable: "calendarId", createdBy: "POST::/api/calendar/calendars" },
  "/api/calendar/events/{id}": { variable: "eventId", createdBy: "POST::/api/calendar/events" },
};
const MISSING_ID = "0190a5e0-0000-7000-8000-000000000000";

export function operationsOf(document: Json): DocumentOperation[] {
  return Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ method: method.toUpperCase(), path, operationId: item[method].operationId, operation: item[method] })),
  );
}

const target = (operation: DocumentOperation) => `${operation.method}::${operation.path}`;
const isApi = (operation: DocumentOperation) => typeof operation.operation["x-required-scope"] === "string";
const isUnsupported = (operation: DocumentOperation) => (operation.operation.tags ?? []).includes(UNSUPPORTED);
const headerParameters = (operation: DocumentOperation) =>
  ((operation.operation.parameters ?? []) as Json[]).filter((parameter) => parameter.in === "header").map((parameter) => parameter.name as string);

/** Creates first, deletes last, so that every read, update and refused method finds the resources the creates made. */
function orderOfOperations(operations: DocumentOperation[]): string[] {
  const rank = (operation: DocumentOperation) => {
    if (isUnsupported(operation)) return 2;
    if (operation.method === "POST") return operation.path === "/api/calendar/calendars" ? 0 : 1;
    if (operation.method === "DELETE") return operation.path === "/api/calendar/calendars/{id}" ? 5 : 4;
    return 3;
  };
  return [...operations].sort((a, b) => rank(a) - rank(b)).map(target);
}

export function portmanConfig(document: Json, apiKey: string): Json {
  const operations = operationsOf(document);
  const api = operations.filter((operation) => isApi(operation));
  const unsupported = operations.filter((operation) => isUnsupported(operation) && operation.method !== "OPTIONS");
  const preflights = operations.filter((operation) => isUnsupported(operation) && operation.method === "OPTIONS");
  const operational = operations.filter((operation) => !isApi(operation) && !isUnsupported(operation));
  const validationStatus = (operation: DocumentOperation) => (operation.operation.tags.includes("Pages") ? 422 : 400);
  // Creates and lists: an update takes any one of its fields, so leaving one out of it is no error.
  const fuzzable = (status: number) => api.filter((operation) => validationStatus(operation) === status && (operation.method === "POST" || operation.method === "GET"));
  const updates = api.filter((operation) => operation.method === "PUT");
  const byId = api.filter((operation) => operation.path.endsWith("{id}"));
  const contract = (ids: string[], checks: Json) => ({ openApiOperationIds: ids, ...checks });
  const fullChecks = { contentType: { enabled: true }, jsonBody: { enabled: true }, schemaValidation: { enabled: true }, headersPresent: { enabled: true } };
  const ids = (list: DocumentOperation[]) => list.map((operation) => operation.operationId);

  const fuzzVariation = (status: number) => ({
    openApiOperationIds: ids(fuzzable(status)),
    openApiResponse: String(status),
    variations: [
      {
        name: `Invalid input answers ${status}`,
        fuzzing: [
          {
            requestBody: [{ requiredFields: { enabled: true }, minimumNumberFields: { enabled: true }, maximumNumberFields: { enabled: true }, minLengthFields: { enabled: true }, maxLengthFields: { enabled: true } }],
            requestQueryParams: [{ minimumNumberFields: { enabled: true }, maximumNumberFields: { enabled: true }, minLengthFields: { enabled: true }, maxLengthFields: { enabled: true } }],
          },
        ],
        tests: { contractTests: [contract(ids(fuzzable(status)), { statusCode: { enabled: true, code: status }, ...fullChecks })] },
      },
    ],
  });

  return {
    version: 1.0,
    tests: {
      contractTests: [
        contract(ids([...api, ...operational, ...preflights]), { statusSuccess: { enabled: true }, ...fullChecks }),
        contract(ids(unsupported), { statusCode: { enabled: true, code: 405 }, ...fullChecks }),
      ],
      variationTests: [
        fuzzVariation(422),
        fuzzVariation(400),
        {
          openApiOperationIds: ids(api.filter((operation) => operation.method === "POST")),
          openApiResponse: "400",
          variations: [
            {
              name: "A malformed Idempotency-Key answers 400",
              fuzzing: [{ requestHeaders: [{ maxLengthFields: { enabled: true } }] }],
              tests: { contractTests: [contract(ids(api.filter((operation) => operation.method === "POST")), { statusCode: { enabled: true, code: 400 }, ...fullChecks })] },
            },
          ],
        },
        ...updates.map((operation) => {
          const example = (operation.operation.requestBody?.content?.["application/json"]?.example ?? {}) as Json;
          const status = validationStatus(operation);
          return {
            openApiOperationId: operation.operationId,
            openApiResponse: String(status),
            variations: [
              {
                name: `An update without any field answers ${status}`,
                overwrites: [{ openApiOperation: "*::/*", overwriteRequestBody: Object.keys(example).map((key) => ({ key, remove: true })) }],
                tests: { contractTests: [contract([operation.operationId], { statusCode: { enabled: true, code: status }, ...fullChecks })] },
              },
            ],
          };
        }),
        {
          openApiOperationIds: ids(api),
          openApiResponse: "401",
          variations: [
            {
              name: "Without a key answers 401",
              overwrites: [{ openApiOperation: "*::/*", overwriteRequestSecurity: { remove: true } }],
              tests: { contractTests: [contract(ids(api), { statusCode: { enabled: true, code: 401 }, ...fullChecks })] },
            },
          ],
        },
        {
          openApiOperationIds: ids(byId),
          openApiResponse: "404",
          variations: [
            {
              name: "An id that does not exist answers 404",
              overwrites: [{ openApiOperation: "*::/*", overwriteRequestPathVariables: [{ key: "id", value: MISSING_ID, overwrite: true }] }],
              tests: { contractTests: [contract(ids(byId), { statusCode: { enabled: true, code: 404 }, ...fullChecks })] },
            },
          ],
        },
      ],
    },
    assignVariables: Object.values(ID_VARIABLES).map(({ variable, createdBy }) => ({
      openApiOperation: createdBy,
      collectionVariables: [{ responseBodyProp: "id", name: variable }],
    })),
    overwrites: [
      ...Object.entries(ID_VARIABLES).map(([path, { variable }]) => ({
        openApiOperation: `*::${path}`,
        overwriteRequestPathVariables: [{ key: "id", value: `{{${variable}}}`, overwrite: true }],
      })),
      { openApiOperation: "POST::/api/calendar/events", overwriteRequestBody: [{ key: "calendar_id", value: "{{calendarId}}", overwrite: true }] },
      // Each create under a key of its own; conditional headers left out, so the main run updates and deletes unconditionally.
      ...api.map((operation) => ({
        openApiOperationId: operation.operationId,
        overwriteRequestHeaders: headerParameters(operation).map((name) =>
          name === "Idempotency-Key" ? { key: name, value: "{{$guid}}", overwrite: true, insert: true } : { key: name, remove: true },
        ),
      })),
      {
        openApiOperationIds: ids(preflights),
        overwriteRequestHeaders: [
          { key: "Origin", value: "https://app.example.com", insert: true },
          { key: "Access-Control-Request-Method", value: "GET", insert: true },
        ],
      },
    ],
    globals: {
      // The converter names the bearer scheme's token {{bearerToken}} on every request.
      collectionVariables: { bearerToken: apiKey },
      orderOfOperations: orderOfOperations(operations),
    },
  };
}
