// Validation of what the server writes against the official MCP JSON Schemas of the revision in use.
//
// Every message is checked against the revision's `JSONRPCMessage`; on top of that a result is
// checked against the result type of the method it answers (InitializeResult, CallToolResult,
// DiscoverResult...), a notification against its own type, and a -32022 error against
// UnsupportedProtocolVersionError, where the revision defines them.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { SCHEMA_DIR } from './config.mjs';

const require = createRequire(import.meta.url);
const Ajv07 = require('ajv').default;
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats').default;

// Which schema file covers a negotiated revision: 2025-06-18.json is the oldest one shipped, so
// the older revisions a server may echo (2025-03-26, 2024-11-05) are checked against it.
export function schemaRevisionFor(version) {
  if (version === '2026-07-28') return '2026-07-28';
  if (version === '2025-11-25') return '2025-11-25';
  return '2025-06-18';
}

const RESULT_TYPES = {
  'initialize': 'InitializeResult',
  'ping': 'EmptyResult',
  'logging/setLevel': 'EmptyResult',
  'server/discover': 'DiscoverResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/read': 'ReadResourceResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
};

const NOTIFICATION_TYPES = {
  'notifications/progress': 'ProgressNotification',
  'notifications/message': 'LoggingMessageNotification',
  'notifications/cancelled': 'CancelledNotification',
  'notifications/tools/list_changed': 'ToolListChangedNotification',
  'notifications/resources/list_changed': 'ResourceListChangedNotification',
  'notifications/resources/updated': 'ResourceUpdatedNotification',
  'notifications/prompts/list_changed': 'PromptListChangedNotification',
};

class RevisionValidator {
  constructor(revision) {
    const file = path.join(SCHEMA_DIR, `${revision}.json`);
    const schema = JSON.parse(fs.readFileSync(file, 'utf8'));
    const draft = schema.$schema || '';
    this.revision = revision;
    this.defsKey = schema.$defs ? '$defs' : 'definitions';
    this.defs = schema[this.defsKey];
    const Ajv = draft.includes('2020-12') ? Ajv2020 : Ajv07;
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.id = `mcp-${revision}`;
    this.ajv.addSchema({ ...schema, $id: this.id });
    this.cache = new Map();
  }

  has(def) {
    return Object.hasOwn(this.defs, def);
  }

  validator(def) {
    let v = this.cache.get(def);
    if (!v) {
      v = this.ajv.getSchema(`${this.id}#/${this.defsKey}/${def}`);
      if (!v) throw new Error(`${this.revision}: no definition ${def}`);
      this.cache.set(def, v);
    }
    return v;
  }

  // Returns a list of problems (empty when `value` is a valid `def`).
  check(def, value) {
    const v = this.validator(def);
    if (v(value)) return [];
    return [`not a valid ${this.revision} ${def}: ${this.ajv.errorsText(v.errors, { separator: '; ' })}`];
  }
}

const validators = new Map();
export function revisionValidator(version) {
  const revision = schemaRevisionFor(version);
  let v = validators.get(revision);
  if (!v) {
    v = new RevisionValidator(revision);
    validators.set(revision, v);
  }
  return v;
}

// The requests a server may send a client (issue 53: paddock mcp --ask asks the user, and
// --share-roots asks for the client's roots), each only to a client that declared the
// capability. In 2026-07-28 the same requests come embedded in an input_required result instead.
const SERVER_REQUESTS = {
  'elicitation/create': { def: 'ElicitRequest', capability: 'elicitation' },
  'roots/list': { def: 'ListRootsRequest', capability: 'roots' },
};

function checkServerRequest(v, request, clientCapabilities) {
  const known = SERVER_REQUESTS[request.method];
  if (!known) return [`the server sent a request (${request.method}); paddock has no reason to`];
  if (!clientCapabilities?.[known.capability]) {
    return [`the server sent ${request.method} to a client that did not declare the ${known.capability} capability`];
  }
  return v.has(known.def) ? v.check(known.def, request) : [];
}

// An input_required result (2026-07-28) and each request it carries.
function checkInputRequired(v, result, clientCapabilities) {
  const problems = v.check('InputRequiredResult', result);
  for (const request of Object.values(result.inputRequests ?? {})) {
    problems.push(...checkServerRequest(v, request, clientCapabilities));
  }
  return problems;
}

// Checks one message the server wrote. `version` is the revision in use for it, `method` the
// method of the request it answers (responses) or undefined, `clientCapabilities` what the
// client declared (at initialize, or in the request's _meta). Returns a list of problems.
export function checkServerMessage(message, { version, method, clientCapabilities }) {
  const v = revisionValidator(version);
  let candidate = message;
  // JSON-RPC 2.0 (section 5) requires `"id": null` when the id of a request could not be
  // determined (parse error, invalid request), but every MCP schema types RequestId as
  // string | integer. That one case is checked with the id set aside; `id: null` is refused
  // everywhere else.
  if (message && typeof message === 'object' && message.id === null && message.error &&
      (message.error.code === -32700 || message.error.code === -32600)) {
    candidate = { ...message, id: 0 };
  }
  const problems = v.check('JSONRPCMessage', candidate);
  if (problems.length) return problems;
  if ('method' in message && !('id' in message)) {
    const def = NOTIFICATION_TYPES[message.method];
    if (!def) return [`unexpected notification method ${JSON.stringify(message.method)}`];
    if (v.has(def)) problems.push(...v.check(def, message));
    return problems;
  }
  if ('method' in message) return checkServerRequest(v, message, clientCapabilities);
  if ('result' in message && message.result?.resultType === 'input_required' && v.has('InputRequiredResult')) {
    problems.push(...checkInputRequired(v, message.result, clientCapabilities));
  } else if ('result' in message && method && RESULT_TYPES[method] && v.has(RESULT_TYPES[method])) {
    problems.push(...v.check(RESULT_TYPES[method], message.result));
  }
  if ('error' in message && message.error.code === -32022 && v.has('UnsupportedProtocolVersionError')) {
    problems.push(...v.check('UnsupportedProtocolVersionError', message));
  }
  return problems;
}

// ajv's validator of a JSON Schema a server declared (a tool's inputSchema or outputSchema), with
// formats checked: draft 2020-12 unless it names another. Returns { validate, ajv }.
export function compileDeclaredSchema(schema) {
  const draft = schema.$schema || '';
  const Ajv = draft.includes('draft-07') ? Ajv07 : Ajv2020;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  return { validate: ajv.compile(schema), ajv };
}

// Validates `value` against a JSON Schema a server declared.
export function checkAgainstDeclaredSchema(schema, value) {
  const { validate, ajv } = compileDeclaredSchema(schema);
  if (validate(value)) return [];
  return [ajv.errorsText(validate.errors, { separator: '; ' })];
}
