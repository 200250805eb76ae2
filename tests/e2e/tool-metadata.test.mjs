// tools/list: every tool is described well enough for a model to use it.
import assert from 'node:assert/strict';
import test from 'node:test';
import { EXPECTED_TOOLS } from './support/config.mjs';
import { withServer } from './support/server.mjs';

const READ_ONLY = ['get_supported_languages', 'get_language_details', 'list_sessions', 'read_file', 'list_files'];
const WRITING = ['execute_code', 'create_session', 'close_session', 'restart_session', 'write_file', 'upload_file', 'download_file'];

const PARAMS = {
  execute_code: { required: ['code'], props: ['code', 'language', 'libraries', 'timeout', 'session_id', 'stdin', 'files'] },
  get_supported_languages: { required: [], props: [] },
  get_language_details: { required: ['language'], props: ['language'] },
  create_session: { required: [], props: ['language', 'libraries', 'ttl_seconds', 'live', 'mounts'] },
  list_sessions: { required: [], props: [] },
  close_session: { required: ['session_id'], props: ['session_id'] },
  restart_session: { required: ['session_id'], props: ['session_id'] },
  write_file: { required: ['session_id', 'path', 'content'], props: ['session_id', 'path', 'content', 'encoding'] },
  read_file: { required: ['session_id', 'path'], props: ['session_id', 'path', 'offset', 'length'] },
  list_files: { required: ['session_id'], props: ['session_id', 'path', 'all'] },
  upload_file: { required: ['session_id', 'host_path'], props: ['session_id', 'host_path', 'path', 'recursive'] },
  download_file: { required: ['session_id', 'path', 'host_path'], props: ['session_id', 'path', 'host_path', 'overwrite'] },
};

test('tools/list names every tool, each with a description, documented parameters and annotations', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const { tools } = await server.call('tools/list', {});
    const names = tools.map((tool) => tool.name);
    for (const name of EXPECTED_TOOLS) assert.ok(names.includes(name), `tools/list lacks ${name}: ${names.join(', ')}`);
    assert.equal(new Set(names).size, names.length, `duplicate tool names: ${names.join(', ')}`);

    for (const tool of tools) {
      assert.equal(typeof tool.description, 'string', `${tool.name} has no description`);
      assert.ok(tool.description.trim().length >= 20, `${tool.name}'s description is too short: ${JSON.stringify(tool.description)}`);
      assert.equal(tool.inputSchema?.type, 'object', `${tool.name}: inputSchema.type is not "object"`);
      for (const [prop, schema] of Object.entries(tool.inputSchema.properties || {})) {
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
    for (const name of READ_ONLY) assert.equal(byName[name].annotations.readOnlyHint, true, `${name} should be readOnlyHint: true`);
    for (const name of WRITING) assert.equal(byName[name].annotations.readOnlyHint, false, `${name} should be readOnlyHint: false`);

    for (const [name, { required, props }] of Object.entries(PARAMS)) {
      const schema = byName[name].inputSchema;
      assert.deepEqual(Object.keys(schema.properties || {}).sort(), [...props].sort(), `${name}'s parameters`);
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
