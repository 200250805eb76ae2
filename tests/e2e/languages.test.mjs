// get_supported_languages, get_language_details and the sandbox://languages resource.
import assert from 'node:assert/strict';
import test from 'node:test';
import { LANGUAGES } from './support/config.mjs';
import { describe, textOf, withServer } from './support/server.mjs';

test('get_supported_languages names every language', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const result = await server.callTool('get_supported_languages', {});
    await server.checkOutputSchema('get_supported_languages', result);
    assert.equal(result.isError, false, describe(result));
    const names = result.structuredContent?.languages;
    assert.ok(Array.isArray(names), describe(result));
    for (const lang of LANGUAGES) assert.ok(names.includes(lang), `${lang} missing from ${JSON.stringify(names)}`);
    assert.ok(textOf(result).length > 0, 'a text block for clients without structuredContent');
  });
});

test('get_language_details describes each language', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    for (const language of LANGUAGES) {
      const result = await server.callTool('get_language_details', { language });
      await server.checkOutputSchema('get_language_details', result);
      assert.equal(result.isError, false, `${language}: ${describe(result)}`);
      const d = result.structuredContent;
      assert.equal(d.name, language);
      assert.equal(typeof d.version, 'string', `${language}.version`);
      assert.ok(d.version.length > 0, `${language}.version is empty`);
      assert.equal(typeof d.file_extension, 'string', `${language}.file_extension`);
      assert.ok('package_manager' in d, `${language}.package_manager`);
      assert.equal(typeof d.example, 'string', `${language}.example`);
      assert.ok(d.example.length > 0);
      assert.equal(typeof d.limits, 'object', `${language}.limits`);
    }
  });
});

test("each language's example runs", { timeout: 180000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const failures = [];
    await Promise.all(LANGUAGES.map(async (language) => {
      const details = await server.callTool('get_language_details', { language });
      const run = await server.callTool('execute_code', { language, code: details.structuredContent.example }, { timeoutMs: 150000 });
      if (run.isError !== false) failures.push(`${language}: ${describe(run)}`);
    }));
    assert.deepEqual(failures, []);
  });
});

test('get_language_details of an unknown language is isError true', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const result = await server.callTool('get_language_details', { language: 'cobol' });
    assert.equal(result.isError, true, describe(result));
    assert.match(textOf(result), /cobol/);
  });
});

test('sandbox://languages is listed and reads as JSON', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const { resources } = await server.call('resources/list', {});
    const entry = resources.find((r) => r.uri === 'sandbox://languages');
    assert.ok(entry, `resources/list: ${describe(resources)}`);
    assert.equal(entry.mimeType, 'application/json');
    const read = await server.call('resources/read', { uri: 'sandbox://languages' });
    assert.equal(read.contents.length, 1);
    const [content] = read.contents;
    assert.equal(content.uri, 'sandbox://languages');
    assert.equal(content.mimeType, 'application/json');
    const parsed = JSON.parse(content.text);
    const text = JSON.stringify(parsed);
    for (const lang of LANGUAGES) assert.ok(text.includes(`"${lang}"`), `${lang} is in sandbox://languages`);
    const missing = await server.request('resources/read', { uri: 'sandbox://no-such-thing' });
    assert.ok(missing.error, `an unknown resource is an error: ${describe(missing)}`);
    assert.ok([-32002, -32602].includes(missing.error.code), `resource not found code: ${describe(missing)}`);
  });
});
