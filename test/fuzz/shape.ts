/**
 * The documented error body (http-interface.md "Errors", product.md "Auth"): exactly
 * `{status: 'error', message: string, errors: object}`, where a 422 (and our 413) lists field → string[]
 * under "The given data was invalid.", a 404 has one key whose value is the message, and the 401 and 403
 * bodies are the fixed ones. Returns what is wrong, or an empty list.
 */

const VALIDATION_MESSAGE = 'The given data was invalid.';

export const UNAUTHENTICATED_BODY = {
  status: 'error',
  message: 'Unauthenticated.',
  errors: { authorization: 'A valid API key is required.' },
};

export const FORBIDDEN_BODY = {
  status: 'error',
  message: 'Forbidden.',
  errors: { host: 'This server only answers to localhost.' },
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * `status` is the HTTP status (REST) or undefined (an MCP tool error, whose kind is read from the body:
 * arrays of sentences for a 422, one string for a 404 or 401).
 */
export function errorBodyProblems(body: unknown, status?: number): string[] {
  if (!isRecord(body)) return [`the error body is not an object: ${JSON.stringify(body)?.slice(0, 200)}`];
  const problems: string[] = [];
  const keys = Object.keys(body).sort();
  if (!sameJson(keys, ['errors', 'message', 'status'])) problems.push(`keys are ${JSON.stringify(keys)}`);
  if (body.status !== 'error') problems.push(`status is ${JSON.stringify(body.status)}`);
  if (typeof body.message !== 'string' || body.message === '') problems.push('message is not a string');
  const errors = body.errors;
  if (!isRecord(errors) || Object.getPrototypeOf(errors) !== Object.prototype) {
    problems.push(`errors is not a plain object: ${JSON.stringify(errors)?.slice(0, 200)}`);
    return problems;
  }
  const entries = Object.entries(errors);
  if (entries.length === 0) problems.push(`errors is empty (message: ${String(body.message).slice(0, 200)})`);
  const lists = entries.every(
    ([, value]) =>
      Array.isArray(value) &&
      value.length > 0 &&
      value.every((text) => typeof text === 'string' && text !== ''),
  );
  const strings = entries.every(([, value]) => typeof value === 'string' && value !== '');
  const kind =
    status ??
    (lists && entries.length > 0 ? 422 : sameJson(body, UNAUTHENTICATED_BODY) ? 401 : strings ? 404 : 0);
  switch (kind) {
    case 422:
    case 413:
      if (body.message !== VALIDATION_MESSAGE)
        problems.push(`a ${kind} says ${JSON.stringify(body.message)}`);
      if (!lists)
        problems.push(`a ${kind} has errors that are not arrays of strings: ${JSON.stringify(errors)}`);
      break;
    case 404:
      if (entries.length !== 1 || entries[0]![1] !== body.message) {
        problems.push(`a 404 must have one key whose value is the message: ${JSON.stringify(body)}`);
      }
      break;
    case 401:
      if (!sameJson(body, UNAUTHENTICATED_BODY)) problems.push(`a 401 is ${JSON.stringify(body)}`);
      break;
    case 403:
      if (!sameJson(body, FORBIDDEN_BODY)) problems.push(`a 403 is ${JSON.stringify(body)}`);
      break;
    default:
      problems.push(`errors match no documented error: ${JSON.stringify(body).slice(0, 300)}`);
  }
  return problems;
}

/** Own properties added to the built-in prototypes since `snapshot()`. */
export function prototypeSnapshot(): () => string[] {
  const targets = [Object.prototype, Array.prototype, Function.prototype, String.prototype] as const;
  const before = targets.map((target) => new Set(Object.getOwnPropertyNames(target)));
  return () => {
    const added: string[] = [];
    targets.forEach((target, index) => {
      for (const name of Object.getOwnPropertyNames(target)) {
        if (!before[index]!.has(name)) added.push(name);
      }
    });
    if (({} as Record<string, unknown>).polluted !== undefined) added.push('({}).polluted');
    return added;
  };
}
