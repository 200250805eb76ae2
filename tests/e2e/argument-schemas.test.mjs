// Tool arguments: paddock's verdict on a tools/call (refused as invalid arguments, or taken) is
// ajv's, for every tool tools/list names and a corpus of arguments made from its inputSchema.
// The corpus breaks every keyword the schemas use, one at a time, so that a keyword paddock's
// checker skipped shows here as a call ajv refuses and paddock takes; and it keeps values at each
// bound, which both must take. A schema keyword the corpus has no cases for fails the test.
import assert from 'node:assert/strict';
import test from 'node:test';
import { ALL_TOOLS } from './support/config.mjs';
import { compileDeclaredSchema } from './support/schemas.mjs';
import { describe, textOf, withServer } from './support/server.mjs';
import { temporaryFolder } from './support/cleanup.mjs';

// What every taken call carries so that it fails afterwards, for a reason that is not the
// schema's: no call of the corpus runs code, opens a sandbox or touches a file.
const HARMLESS = { session_id: 'no-such-session' };
const HARMLESS_BY_TOOL = { create_session: { language: 'no-such-language' } };
// Tools whose taken calls may succeed: they only read what the server knows.
const READ_ONLY = new Set(['get_supported_languages', 'get_language_details', 'list_sessions']);

// Strings that match and miss each "pattern" a schema uses: no generic way makes them.
const PATTERN_SAMPLES = {};

// Keywords that say nothing about a value, and those whose cases the corpus makes. A schema that
// uses any other (oneOf, format...) fails the test until its cases are written here.
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', '$comment', 'deprecated',
  'readOnly', 'writeOnly', '$schema', '$id']);
const APPLICATORS = new Set(['properties', 'items']);
const ASSERTIONS = new Set(['type', 'required', 'additionalProperties', 'enum', 'const', 'minimum',
  'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'pattern',
  'minItems', 'maxItems']);

// One value of each JSON type, to put where another is wanted.
const ONE_OF_EACH_TYPE = { string: 'text', integer: 7, number: 2.5, boolean: true, null: null, array: [], object: {} };

function keywordsOf(schema, found = new Set()) {
  if (typeof schema !== 'object' || schema === null) return found;
  for (const [keyword, value] of Object.entries(schema)) {
    found.add(keyword);
    if (keyword === 'properties') Object.values(value).forEach((s) => keywordsOf(s, found));
    if (keyword === 'items' || keyword === 'additionalProperties') keywordsOf(value, found);
  }
  return found;
}

function patternSamples(pattern) {
  const samples = PATTERN_SAMPLES[pattern];
  assert.ok(samples, `no strings that match and miss ${pattern}: add them to PATTERN_SAMPLES`);
  return samples;
}

function lowestNumber(schema, type) {
  let n = 1;
  if ('minimum' in schema) n = schema.minimum;
  else if ('exclusiveMinimum' in schema) n = schema.exclusiveMinimum + (type === 'integer' ? 1 : 0.5);
  if ('maximum' in schema) n = Math.min(n, schema.maximum);
  return n;
}

// A value `schema` takes.
function sample(schema, where) {
  if ('const' in schema) return schema.const;
  if (schema.enum) return schema.enum[0];
  const type = [].concat(schema.type ?? [])[0];
  switch (type) {
    case 'string':
      return schema.pattern ? patternSamples(schema.pattern).match[0] : 'x'.repeat(Math.max(1, schema.minLength ?? 0));
    case 'integer':
    case 'number':
      return lowestNumber(schema, type);
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items ?? {}, `${where}[]`));
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((name) => [name, sample(schema.properties?.[name] ?? {}, `${where}.${name}`)]));
    default:
      throw new Error(`${where}: no sample value for ${JSON.stringify(schema)}`);
  }
}

function numberCases(schema, type, add) {
  const step = type === 'integer' ? 1 : 0.5;
  if ('minimum' in schema) { add('below minimum', schema.minimum - step); add('at minimum', schema.minimum); }
  if ('maximum' in schema) { add('above maximum', schema.maximum + step); add('at maximum', schema.maximum); }
  if ('exclusiveMinimum' in schema) {
    add('at exclusiveMinimum', schema.exclusiveMinimum);
    add('just above exclusiveMinimum', schema.exclusiveMinimum + (type === 'integer' ? 1 : 0.001));
  }
  if ('exclusiveMaximum' in schema) {
    add('at exclusiveMaximum', schema.exclusiveMaximum);
    add('just below exclusiveMaximum', schema.exclusiveMaximum - (type === 'integer' ? 1 : 0.001));
  }
  if (type === 'integer') add('a fraction', lowestNumber(schema, type) + 0.5);
}

// Lengths are characters: a multibyte character counts once, an astral one (two UTF-16 units) too.
function stringCases(schema, add) {
  if ((schema.minLength ?? 0) > 0) {
    add('shorter than minLength', 'x'.repeat(schema.minLength - 1));
    add('at minLength', 'é'.repeat(schema.minLength));
  }
  if ('maxLength' in schema) {
    add('at maxLength', 'x'.repeat(schema.maxLength));
    add('at maxLength in two-byte characters', 'é'.repeat(schema.maxLength));
    add('at maxLength in astral characters', '😀'.repeat(schema.maxLength));
    add('longer than maxLength', 'x'.repeat(schema.maxLength + 1));
  }
  if (schema.pattern) {
    const { match, miss } = patternSamples(schema.pattern);
    match.forEach((text) => add(`matching ${schema.pattern}`, text));
    miss.forEach((text) => add(`missing ${schema.pattern}`, text));
  }
}

function arrayCases(schema, value, where, add, out) {
  const item = schema.items ?? {};
  const one = () => sample(item, `${where}[]`);
  if ((schema.minItems ?? 0) > 0) add('fewer than minItems', Array.from({ length: schema.minItems - 1 }, one));
  if ('maxItems' in schema) {
    add('at maxItems', Array.from({ length: schema.maxItems }, one));
    add('more than maxItems', Array.from({ length: schema.maxItems + 1 }, one));
  }
  const first = value.length > 0 ? value[0] : one();
  for (const inner of variants(item, first, `${where}[0]`)) out.push({ what: inner.what, value: [inner.value, ...value.slice(1)] });
}

function objectCases(schema, value, where, add, out) {
  for (const name of schema.required ?? []) {
    const { [name]: _, ...rest } = value;
    add(`without required ${name}`, rest);
  }
  if (schema.additionalProperties === false) add('with an unknown member', { ...value, unexpected_argument: 1 });
  for (const [name, member] of Object.entries(schema.properties ?? {})) {
    const current = name in value ? value[name] : sample(member, `${where}.${name}`);
    if (!(name in value)) add(`with ${name}`, { ...value, [name]: current });
    for (const inner of variants(member, current, `${where}.${name}`)) out.push({ what: inner.what, value: { ...value, [name]: inner.value } });
  }
}

// Values for the place `where` holds (now `value`), each changed in one way: [{what, value}].
function variants(schema, value, where) {
  const out = [];
  const add = (what, changed) => out.push({ what: `${where} ${what}`, value: changed });
  // The arguments are always an object: tools/call's own schema says so.
  if (schema.type && where !== 'arguments') {
    for (const [name, other] of Object.entries(ONE_OF_EACH_TYPE)) add(`given ${name} ${JSON.stringify(other)}`, other);
  }
  if (schema.enum) {
    add('not in enum', 'not-one-of-them');
    schema.enum.forEach((allowed) => add(`given ${JSON.stringify(allowed)}`, allowed));
  }
  if ('const' in schema) add('not the const', { not: schema.const });
  const types = [].concat(schema.type ?? []);
  for (const type of types) {
    if (type === 'integer' || type === 'number') numberCases(schema, type, add);
    if (type === 'string') stringCases(schema, add);
    if (type === 'array' && Array.isArray(value)) arrayCases(schema, value, where, add, out);
    if (type === 'object' && typeof value === 'object' && value !== null) objectCases(schema, value, where, add, out);
  }
  return out;
}

function harmlessArguments(tool) {
  const properties = tool.inputSchema.properties ?? {};
  const args = sample(tool.inputSchema, 'arguments');
  for (const [name, value] of Object.entries({ ...HARMLESS, ...HARMLESS_BY_TOOL[tool.name] })) {
    if (name in properties) args[name] = value;
  }
  return args;
}

test('paddock refuses exactly the tool arguments ajv refuses, for every tool and keyword', { timeout: 240000 }, async (t) => {
  // A state directory of its own, so that the session tools' taken calls fail on the session they
  // cannot find (without one, snapshot_session's took the server down: a null state directory).
  const stateDir = temporaryFolder(t, 'paddock-e2e-state-');
  // A writable share and previews too: only then is every tool listed (issue 53).
  const shareDir = temporaryFolder(t, 'paddock-e2e-share-');
  const args = ['--share', `${shareDir}=out:rw`, '--allow-preview'];
  await withServer(t, { args, env: { PADDOCK_STATE_DIR: stateDir } }, async (server) => {
    await server.initialize();
    const { tools } = await server.call('tools/list', {});
    assert.ok(tools.length >= ALL_TOOLS.length, `tools/list: ${tools.map((tool) => tool.name).join(', ')}`);

    const used = new Set();
    for (const tool of tools) keywordsOf(tool.inputSchema, used);
    const uncovered = [...used].filter((k) => !ANNOTATIONS.has(k) && !APPLICATORS.has(k) && !ASSERTIONS.has(k));
    assert.deepEqual(uncovered, [], 'keywords the tool schemas use that the corpus makes no cases for');

    const disagreements = [];
    const ranAnyway = [];
    const refusedFor = new Map(); // keyword -> calls both refused for that keyword alone
    let calls = 0;
    for (const tool of tools) {
      const { validate } = compileDeclaredSchema(tool.inputSchema);
      const base = harmlessArguments(tool);
      const corpus = [{ what: 'arguments as sampled', value: base }, ...variants(tool.inputSchema, base, 'arguments')];
      for (const { what, value } of corpus) {
        const ajvTakes = validate(value);
        const ajvKeywords = ajvTakes ? [] : [...new Set(validate.errors.map((e) => e.keyword))];
        const result = await server.callTool(tool.name, value);
        calls += 1;
        const text = textOf(result);
        const paddockTakes = !(result.isError === true && text.startsWith(`invalid arguments for ${tool.name}: `));
        if (paddockTakes !== ajvTakes) {
          disagreements.push(`${tool.name}, ${what}: ajv ${ajvTakes ? 'takes it' : `refuses it (${ajvKeywords.join(', ')})`}, ` +
            `paddock ${paddockTakes ? 'takes it' : 'refuses it'}: ${JSON.stringify(value).slice(0, 200)} -> ${text.slice(0, 200)}`);
        } else if (!ajvTakes && ajvKeywords.length === 1) {
          refusedFor.set(ajvKeywords[0], (refusedFor.get(ajvKeywords[0]) ?? 0) + 1);
        }
        if (paddockTakes && !READ_ONLY.has(tool.name) && result.isError !== true) {
          ranAnyway.push(`${tool.name}, ${what}: ${describe(result).slice(0, 300)}`);
        }
      }
    }
    t.diagnostic(`${calls} calls; refused for one keyword: ${JSON.stringify(Object.fromEntries(refusedFor))}`);
    assert.deepEqual(disagreements, [], `paddock and ajv disagree on ${disagreements.length} of ${calls} calls`);
    assert.deepEqual(ranAnyway, [], 'calls meant to fail after the schema check that succeeded (the corpus must stay harmless)');
    // Each keyword the schemas use was the one reason for some refusal: a checker that skipped it
    // would have taken that call.
    const unexercised = [...used].filter((k) => ASSERTIONS.has(k) && !refusedFor.has(k));
    assert.deepEqual(unexercised, [], 'keywords no call was refused for alone');
  });
});
