// What a model reads of errors and figures, fresh and in live sessions: a live traceback keeps
// the user's frames and the last one, not every library's source; an R error is said once; R
// figures are the size python's are (640x480).
import assert from 'node:assert/strict';
import test from 'node:test';
import { describe, textOf, withServer } from './support/server.mjs';

const LIVE = (process.env.PADDOCK_BACKEND || 'native') === 'native';
const images = (result) => (result.content || []).filter((c) => c.type === 'image');

// Width and height from a PNG's IHDR chunk.
function pngSize(image) {
  const bytes = Buffer.from(image.data, 'base64');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

async function call(server, tool, args) {
  const result = await server.callTool(tool, args, { timeoutMs: 120000 });
  await server.checkOutputSchema(tool, result);
  return result;
}

async function liveSession(server, language) {
  const created = await call(server, 'create_session', { language });
  assert.equal(created.isError, false, describe(created));
  return created.structuredContent.session_id;
}

test('a live python traceback keeps the cell\'s frame and the last one, and folds the library frames between', { timeout: 120000, skip: !LIVE && 'no live sessions on this backend' }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const session_id = await liveSession(server, 'python');
    // json.loads -> JSONDecoder.decode -> JSONDecoder.raw_decode, which raises.
    const failed = await call(server, 'execute_code', { session_id, code: 'import json\nvalue = json.loads("{broken")' });
    assert.equal(failed.isError, true, describe(failed));
    assert.equal(failed.structuredContent.live, true, describe(failed));
    const text = textOf(failed);
    assert.match(text, /In ?\[1\], line 2/, text);
    assert.match(text, /\[\.\.\. 2 library frames left out: json\/__init__\.py:\d+ in loads, json\/decoder\.py:\d+ in JSONDecoder\.decode\]/, text);
    assert.match(text, /json\/decoder\.py:\d+, in JSONDecoder\.raw_decode/, 'the last frame stays');
    assert.doesNotMatch(text, /_default_decoder\.decode/, 'the library source of the middle frames is gone');
  });
});

test('an R error is said once, fresh and live', { timeout: 120000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const fresh = await call(server, 'execute_code', { language: 'r', code: 'f <- function() stop("boom")\nf()' });
    assert.equal(fresh.isError, true, describe(fresh));
    assert.equal(textOf(fresh).match(/boom/g)?.length, 1, textOf(fresh));
    if (!LIVE) return;
    const session_id = await liveSession(server, 'r');
    const failed = await call(server, 'execute_code', { session_id, code: 'f <- function() stop("boom")\nf()' });
    assert.equal(failed.isError, true, describe(failed));
    const text = textOf(failed);
    assert.doesNotMatch(text, /ERROR: Error/, text);
    assert.match(text, /error: Error in f\(\): boom \(r live session/, text);
  });
});

test('R figures are 640x480, as python\'s are, fresh and live', { timeout: 180000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const python = await call(server, 'execute_code', { code: 'import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])' });
    assert.deepEqual(images(python).map(pngSize), [[640, 480]], describe(python));
    const fresh = await call(server, 'execute_code', { language: 'r', code: 'plot(1:10)' });
    assert.equal(fresh.isError, false, describe(fresh));
    assert.deepEqual(images(fresh).map(pngSize), [[640, 480]], describe(fresh));
    if (!LIVE) return;
    const session_id = await liveSession(server, 'r');
    const live = await call(server, 'execute_code', { session_id, code: 'plot(1:10)' });
    assert.equal(live.isError, false, describe(live));
    assert.deepEqual(images(live).map(pngSize), [[640, 480]], describe(live));
  });
});
