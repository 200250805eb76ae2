// tools/list: every tool is described well enough for a model to use it, the list is small, and
// it holds only the tools the server's settings let work (issue 53).
import assert from 'node:assert/strict';
import test from 'node:test';
import { ALL_TOOLS, EXPECTED_TOOLS, KEEPS_SESSIONS, LANGUAGES, SETTING_TOOLS } from './support/config.mjs';
import { connectSdk1, finishClient } from './support/clients.mjs';
import { describe, modernMeta, textOf, withServer } from './support/server.mjs';
import { temporaryFolder } from './support/cleanup.mjs';

// A temporary folder for test `t`, removed when it ends.
function tempDir(t, label) {
  const dir = temporaryFolder(t, `paddock-e2e-${label}-`);
  return dir;
}

// Settings that list every tool: kept sessions, a writable share, previews.
function everyToolSettings(t) {
  return { args: ['--state-dir', tempDir(t, 'state'), '--share', `${tempDir(t, 'share')}=out:rw`, '--allow-preview'] };
}

// paddock mcp's default settings: no PADDOCK_STATE_DIR (the runner sets none), so the default
// state directory, here under a temporary XDG_STATE_HOME; no share, no previews.
function defaultSettings(t) {
  return { env: { PADDOCK_STATE_DIR: undefined, XDG_STATE_HOME: tempDir(t, 'xdg') } };
}

const READ_ONLY = ['get_supported_languages', 'get_language_details', 'list_sessions', 'read_file', 'list_files', 'diff_session'];
const WRITING = ['execute_code', 'create_session', 'close_session', 'restart_session', 'write_file', 'upload_file', 'download_file', 'snapshot_session', 'fork_session', 'export_session'];

// Arguments whose name says what they are (a session_id comes from create_session, as its
// description says): words for them would be read on every turn and tell nothing.
const SELF_EVIDENT = {
  execute_code: ['code'],
  create_session: ['language'],
  write_file: ['content', 'encoding'], // encoding: its enum and default say it
  list_files: ['all'],
  upload_file: ['recursive'],
  download_file: ['overwrite'],
  read_file: ['length'], // its maximum says it
  snapshot_session: ['name'],
  fork_session: ['name', 'live'],
  diff_session: ['since'],
  export_session: ['snapshot', 'overwrite'],
  expose_port: ['protocol'], // its enum, its default, and the tool's description say it
};

// The parameters that name or make kept sessions, which a container backend does not list.
const KEPT_SESSION_PARAMS = { create_session: ['name', 'from_snapshot', 'from_archive'], close_session: ['keep'] };
const PARAMS = {
  execute_code: { required: ['code'], props: ['code', 'language', 'libraries', 'timeout', 'session_id', 'stdin', 'files'] },
  get_supported_languages: { required: [], props: [] },
  get_language_details: { required: ['language'], props: ['language'] },
  create_session: { required: [], props: ['language', 'libraries', 'ttl_seconds', 'live', 'mounts', 'name', 'from_snapshot', 'from_archive'] },
  list_sessions: { required: [], props: [] },
  close_session: { required: ['session_id'], props: ['session_id', 'keep'] },
  snapshot_session: { required: ['session_id', 'name'], props: ['session_id', 'name'] },
  fork_session: { required: ['session_id'], props: ['session_id', 'name', 'live'] },
  diff_session: { required: ['session_id'], props: ['session_id', 'since'] },
  export_session: { required: ['session_id', 'host_path'], props: ['session_id', 'snapshot', 'host_path', 'overwrite'] },
  restart_session: { required: ['session_id'], props: ['session_id'] },
  write_file: { required: ['session_id', 'path', 'content'], props: ['session_id', 'path', 'content', 'encoding'] },
  read_file: { required: ['session_id', 'path'], props: ['session_id', 'path', 'offset', 'length'] },
  list_files: { required: ['session_id'], props: ['session_id', 'path', 'all'] },
  upload_file: { required: ['session_id', 'host_path'], props: ['session_id', 'host_path', 'path', 'recursive'] },
  download_file: { required: ['session_id', 'path', 'host_path'], props: ['session_id', 'path', 'host_path', 'overwrite'] },
  expose_port: { required: ['session_id', 'port'], props: ['session_id', 'port', 'protocol'] },
};

test('tools/list names every tool, each with a description, documented parameters and annotations', { timeout: 30000 }, async (t) => {
  await withServer(t, everyToolSettings(t), async (server) => {
    await server.initialize();
    const { tools } = await server.call('tools/list', {});
    const names = tools.map((tool) => tool.name);
    for (const name of ALL_TOOLS) assert.ok(names.includes(name), `tools/list lacks ${name}: ${names.join(', ')}`);
    assert.equal(new Set(names).size, names.length, `duplicate tool names: ${names.join(', ')}`);

    for (const tool of tools) {
      assert.equal(typeof tool.description, 'string', `${tool.name} has no description`);
      assert.ok(tool.description.trim().length >= 20, `${tool.name}'s description is too short: ${JSON.stringify(tool.description)}`);
      assert.equal(tool.inputSchema?.type, 'object', `${tool.name}: inputSchema.type is not "object"`);
      for (const [prop, schema] of Object.entries(tool.inputSchema.properties || {})) {
        if (prop === 'session_id' && tool.name !== 'execute_code') continue;
        if ((SELF_EVIDENT[tool.name] || []).includes(prop)) continue;
        assert.equal(typeof schema.description, 'string', `${tool.name}.${prop} has no description`);
        assert.ok(schema.description.trim().length > 0, `${tool.name}.${prop} has an empty description`);
      }
      assert.equal(typeof tool.annotations, 'object', `${tool.name} has no annotations`);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
        if (hint in tool.annotations) assert.equal(typeof tool.annotations[hint], 'boolean', `${tool.name}.annotations.${hint}`);
      }
      assert.equal(typeof tool.annotations.readOnlyHint, 'boolean', `${tool.name} has no annotations.readOnlyHint`);
      if (tool.outputSchema) assert.equal(tool.outputSchema.type, 'object', `${tool.name}: outputSchema.type is not "object"`);
    }

    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    // A container backend keeps no sessions, so it lists no kept-session tool to check.
    for (const name of names.filter((listed) => !ALL_TOOLS.includes(listed))) assert.fail(`${name} is listed on a backend that cannot run it`);
    for (const name of READ_ONLY.filter((name) => name in byName)) assert.equal(byName[name].annotations.readOnlyHint, true, `${name} should be readOnlyHint: true`);
    for (const name of WRITING.filter((name) => name in byName)) assert.equal(byName[name].annotations.readOnlyHint, false, `${name} should be readOnlyHint: false`);

    for (const [name, { required, props }] of Object.entries(PARAMS).filter(([name]) => name in byName)) {
      const schema = byName[name].inputSchema;
      const listed = props.filter((prop) => KEEPS_SESSIONS || !(KEPT_SESSION_PARAMS[name] || []).includes(prop));
      assert.deepEqual(Object.keys(schema.properties || {}).sort(), [...listed].sort(), `${name}'s parameters`);
      assert.deepEqual([...(schema.required || [])].sort(), [...required].sort(), `${name}'s required parameters`);
    }
    const ex = byName.execute_code.inputSchema.properties;
    assert.equal(ex.code.type, 'string');
    assert.equal(ex.language.type, 'string');
    assert.equal(ex.language.default, 'python', 'execute_code.language defaults to python');
    assert.equal(ex.libraries.type, 'array');
    assert.equal(ex.libraries.items?.type, 'string');
    assert.ok(['number', 'integer'].includes(ex.timeout.type), 'execute_code.timeout is a number of seconds');
    assert.equal(ex.files.type, 'array');
    const all = byName.list_files.inputSchema.properties.all;
    assert.equal(all.type, 'boolean', 'list_files.all is a boolean');
    assert.equal(all.default, false, 'list_files hides paddock\'s own files by default');
    assert.ok(byName.execute_code.outputSchema, 'execute_code declares an outputSchema');
    const out = byName.execute_code.outputSchema;
    for (const key of ['exit_code', 'stdout', 'stderr', 'timed_out', 'oom_killed', 'duration_ms', 'truncated', 'artifacts']) {
      assert.ok(key in (out.properties || {}), `execute_code's outputSchema lacks ${key}`);
    }
  });
});

// What tools/list costs a model's context, counted as JSON.stringify counts: compact JSON, one per
// UTF-16 code unit (the text is ASCII, so one per byte too). `words` is every tool's description
// plus its inputSchema: what a model reads to choose a tool and its arguments. `outputs` is every
// outputSchema. The budgets leave room for a few more arguments and result fields: main had
// 10,578 and 9,863, the trimmed list 5,759 and 6,806. Kept sessions (issue 40) added four tools
// (snapshot_session, fork_session, diff_session, export_session: about 1,060 characters) and
// create_session's name, from_snapshot and from_archive (about 350): 7,635 with them. Their
// outputSchemas and list_sessions' kept-session fields added about 1,450: 8,536. Previews (issue
// 42) added expose_port (about 470 and 310) and get_session's and list_sessions' `exposed`:
// 8,127 with 19 tools. Issue 53 lists only the tools the settings let work and trimmed words:
// with the default settings (kept sessions; no share, no previews) 5,642 with 15 tools, and
// 7,785 with every setting that lists a tool. --ask network's network.allowed_by_user added 190
// to execute_code's outputSchema: 9,142 outputs with every tool listed.
const WORDS_BUDGET = 6000; // with the default settings
const ALL_WORDS_BUDGET = 8200; // with every tool listed
const OUTPUTS_BUDGET = 9300; // with every tool listed
const INSTRUCTIONS_BUDGET = 700; // without shares or allowed hosts, which add their own lines

function listCost(tools) {
  let words = 0;
  let outputs = 0;
  const each = [];
  for (const tool of tools) {
    const cost = tool.description.length + JSON.stringify(tool.inputSchema).length;
    const output = tool.outputSchema ? JSON.stringify(tool.outputSchema).length : 0;
    words += cost;
    outputs += output;
    each.push(`${tool.name} ${cost}/${output}`);
  }
  return { words, outputs, each: each.join(', ') };
}

// Every text a model reads about a tool before calling it.
const wordsOf = (tool) => `${tool.description} ${JSON.stringify(tool.inputSchema)}`;

// Issue 53: with paddock mcp's default settings, through the SDK client a host uses.
test('with the default settings, descriptions and input schemas take at most 6,000 characters', { timeout: 30000 }, async (t) => {
  const conn = await connectSdk1(t, defaultSettings(t));
  const { tools } = await conn.client.listTools();
  const names = tools.map((tool) => tool.name);
  for (const name of EXPECTED_TOOLS) assert.ok(names.includes(name), `tools/list lacks ${name}: ${names.join(', ')}`);
  for (const name of ['expose_port', 'export_session', 'upload_file', 'download_file']) {
    assert.ok(!names.includes(name), `${name} is listed without the setting that lets it work`);
  }
  const cost = listCost(tools);
  // The figures docs/mcp.md quotes, printed so that they can be checked against it.
  t.diagnostic(`default settings: ${tools.length} tools, descriptions + inputSchemas ${cost.words}, ` +
    `outputSchemas ${cost.outputs}, instructions ${conn.client.getInstructions().length}`);
  assert.ok(cost.words <= WORDS_BUDGET,
    `descriptions + inputSchemas take ${cost.words} characters, over ${WORDS_BUDGET} (each tool words/outputs: ${cost.each})`);
  const instructions = conn.client.getInstructions();
  assert.ok(instructions.length <= INSTRUCTIONS_BUDGET,
    `the instructions take ${instructions.length} characters, over ${INSTRUCTIONS_BUDGET}: ${instructions}`);
  await finishClient(conn);
});

// Issue 53: a tool the settings leave out is refused as an unknown tool is, naming the setting.
test('a call to a tool the settings leave out is refused, naming the setting that lists it', { timeout: 30000 }, async (t) => {
  await withServer(t, { args: ['--state-dir', 'none'] }, async (server) => {
    await server.initialize();
    const { tools } = await server.call('tools/list', {});
    const names = tools.map((tool) => tool.name);
    for (const [name, setting] of Object.entries(SETTING_TOOLS)) {
      assert.ok(!names.includes(name), `${name} is listed with --state-dir none and no share or previews`);
      const response = await server.request('tools/call', { name, arguments: { session_id: 's-0' } });
      assert.ok(response.error, `${name}: ${JSON.stringify(response)}`);
      assert.match(response.error.message, /is not offered by this server/, response.error.message);
      assert.ok(response.error.message.includes(setting), `${name} names ${setting}: ${response.error.message}`);
    }
    const create = tools.find((tool) => tool.name === 'create_session').inputSchema.properties;
    for (const argument of ['name', 'from_snapshot', 'from_archive', 'mounts']) {
      assert.ok(!(argument in create), `create_session.${argument} is listed with --state-dir none and no share`);
    }
    const close = tools.find((tool) => tool.name === 'close_session').inputSchema.properties;
    assert.ok(!('keep' in close), 'close_session.keep is listed with --state-dir none');
    // An argument left out is refused naming the setting too, not as an unknown argument.
    for (const [name, args, setting] of [
      ['create_session', { name: 'kept' }, '--state-dir DIR'],
      ['create_session', { from_snapshot: 'x' }, '--state-dir DIR'],
      ['create_session', { from_archive: 'data/x.tar.zst' }, '--share DIR'],
      ['create_session', { mounts: [{ share: 'data' }] }, '--share DIR'],
      ['close_session', { session_id: 's-0', keep: true }, '--state-dir DIR'],
    ]) {
      const result = await server.call('tools/call', { name, arguments: args });
      assert.equal(result.isError, true, JSON.stringify(result));
      const text = result.content[0].text;
      const argument = Object.keys(args).find((key) => key !== 'session_id');
      assert.ok(text.includes(`${name}'s argument '${argument}' is not offered by this server: it needs`), text);
      assert.ok(text.includes(setting), `${name}.${argument} names ${setting}: ${text}`);
    }
  });
});

test('the tool list is small: descriptions and input schemas, output schemas and instructions within budget, in both eras', { timeout: 30000 }, async (t) => {
  await withServer(t, everyToolSettings(t), async (server) => {
    const init = await server.initialize();
    const legacy = (await server.call('tools/list', {})).tools;
    const modern = (await server.call('tools/list', { _meta: modernMeta() })).tools;
    const discover = await server.call('server/discover', { _meta: modernMeta() });
    assert.deepEqual(modern, legacy, 'both eras list the same tools');
    assert.equal(discover.instructions, init.instructions, 'both eras give the same instructions');

    const cost = listCost(legacy);
    t.diagnostic(`every tool: ${legacy.length} tools, descriptions + inputSchemas ${cost.words}, ` +
      `outputSchemas ${cost.outputs}`);
    assert.ok(cost.words <= ALL_WORDS_BUDGET,
      `descriptions + inputSchemas take ${cost.words} characters, over ${ALL_WORDS_BUDGET} (each tool words/outputs: ${cost.each})`);
    assert.ok(cost.outputs <= OUTPUTS_BUDGET,
      `outputSchemas take ${cost.outputs} characters, over ${OUTPUTS_BUDGET} (each tool words/outputs: ${cost.each})`);
    // The instructions' budget is held with the default settings, below: a share adds its lines.
  });
});

test('the small tool list keeps what a model needs, and names the languages once', { timeout: 60000 }, async (t) => {
  await withServer(t, everyToolSettings(t), async (server) => {
    const init = await server.initialize();
    const { tools } = await server.call('tools/list', {});
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    const execute = byName.execute_code;

    // The language list is said once, in execute_code's `language`; nowhere else names them all.
    const namesAll = (text) => LANGUAGES.every((language) => new RegExp(`\\b${language}\\b`).test(text));
    assert.ok(namesAll(execute.inputSchema.properties.language.description),
      `execute_code.language names every language: ${execute.inputSchema.properties.language.description}`);
    const elsewhere = tools.filter((tool) => tool.name !== 'execute_code' && namesAll(wordsOf(tool))).map((tool) => tool.name);
    assert.deepEqual(elsewhere, [], 'only execute_code lists the languages');
    assert.ok(!namesAll(execute.description), 'execute_code lists the languages once, in `language`');
    assert.ok(!namesAll(init.instructions), 'the instructions leave the language list to execute_code');

    // Facts a model acts on, each where it looks for it.
    const facts = [
      [execute.inputSchema.properties.session_id.description, /create_session/, 'execute_code.session_id: what a session keeps'],
      [execute.inputSchema.properties.session_id.description, /throw-away/, 'execute_code.session_id: what no session keeps'],
      [execute.description, /capped at 300 s/, 'execute_code: the timeout cap'],
      [execute.description, /figures? .*PNG|PNG .*figures?/i, 'execute_code: figures come back as images'],
      [execute.description, /outputs\//, 'execute_code: files in outputs/ come back'],
      [execute.description, /no network/i, 'execute_code: no network'],
      [init.instructions, /Preinstalled for python: numpy/, 'instructions: what is preinstalled'],
      [init.instructions, /Preinstalled for r: ggplot2/, 'instructions: what is preinstalled'],
      [execute.inputSchema.properties.libraries.description, /pip|npm/, 'execute_code.libraries: the installer'],
      [execute.inputSchema.properties.files.description, /\/work/, 'execute_code.files: where they go'],
      [execute.inputSchema.properties.stdin.description, /live/, 'execute_code.stdin: not in live sessions'],
      [byName.create_session.description, /live/, 'create_session: live sessions'],
      [byName.create_session.description, /variables/, 'create_session: what a live session keeps'],
      [byName.create_session.description, /session_id/, 'create_session: what to pass on'],
      [byName.create_session.description, /ttl_seconds/, 'create_session: when it closes'],
      [byName.install_libraries.description, /network/, 'install_libraries: who gets the network'],
      [byName.read_file.description, /\/work/, 'read_file: /work'],
      [byName.write_file.description, /\/work/, 'write_file: /work'],
      [byName.list_files.description, /1000/, 'list_files: its cap'],
      [byName.restart_session.description, /variable/, 'restart_session: what it forgets'],
      [byName.upload_file.description, /share/, 'upload_file: from a share'],
      [byName.download_file.description, /share/, 'download_file: into a share'],
      [init.instructions, /install_libraries/, 'instructions: how to install'],
      [init.instructions, /create_session/, 'instructions: when to use a session'],
      [init.instructions, /\/work/, 'instructions: where files are'],
    ];
    for (const [text, pattern, what] of facts) assert.match(text, pattern, what);

    // Limits stay in the schemas, where the arguments are checked against them.
    assert.equal(execute.inputSchema.properties.libraries.maxItems, 50);
    assert.equal(execute.inputSchema.properties.files.maxItems, 100);
    assert.deepEqual(execute.inputSchema.properties.files.items.properties.encoding.enum, ['utf-8', 'base64']);
    assert.equal(byName.create_session.inputSchema.properties.mounts.maxItems, 8);
    assert.equal(byName.install_libraries.inputSchema.properties.libraries.maxItems, 50);
    for (const tool of tools) assert.equal(tool.inputSchema.additionalProperties, false, `${tool.name} refuses unknown arguments`);

    // A language not in the list still gets one line naming the valid ones, in both tools that take one.
    for (const [name, args] of [['execute_code', { code: '1', language: 'cobol' }], ['create_session', { language: 'cobol' }]]) {
      const result = await server.callTool(name, args);
      assert.equal(result.isError, true, `${name} with language cobol: ${describe(result)}`);
      const text = textOf(result);
      assert.match(text, /cobol/, text);
      for (const language of LANGUAGES) assert.match(text, new RegExp(`\\b${language}\\b`), `${name}: ${text}`);
    }
  });
});
