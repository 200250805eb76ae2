// execute_code: results, structuredContent against the declared outputSchema, errors, stdin,
// files, plots, every language.
import assert from 'node:assert/strict';
import test from 'node:test';
import { LANGUAGES } from './support/config.mjs';
import { describe, textOf, withServer } from './support/server.mjs';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function notTruncated(sc) {
  const t = sc.truncated;
  return t === false || (t && typeof t === 'object' && Object.values(t).every((v) => v === false));
}

async function run(server, args, options) {
  const result = await server.callTool('execute_code', args, options);
  await server.checkOutputSchema('execute_code', result);
  return result;
}

test('a successful run: text first, structuredContent complete, isError false', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const result = await run(server, { code: 'print("hello from paddock")' });
    assert.equal(result.isError, false, describe(result));
    assert.equal(result.content[0].type, 'text', describe(result));
    assert.match(result.content[0].text, /hello from paddock/);
    const sc = result.structuredContent;
    assert.equal(sc.exit_code, 0);
    assert.equal(sc.stdout, 'hello from paddock\n');
    assert.equal(sc.stderr, '');
    assert.equal(sc.timed_out, false);
    assert.equal(sc.oom_killed, false);
    assert.ok(Number.isFinite(sc.duration_ms) && sc.duration_ms >= 0, `duration_ms ${sc.duration_ms}`);
    assert.ok(notTruncated(sc), `truncated: ${JSON.stringify(sc.truncated)}`);
    assert.deepEqual(sc.artifacts, []);
  });
});

test('language defaults to python', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const result = await run(server, { code: 'import sys; print(sys.version_info[0])' });
    assert.equal(result.structuredContent.stdout, '3\n', describe(result));
  });
});

test('a non-zero exit is isError true with stdout, stderr and the status', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const result = await run(server, { code: 'import sys\nprint("out")\nprint("err-text", file=sys.stderr)\nsys.exit(3)' });
    assert.equal(result.isError, true, describe(result));
    const sc = result.structuredContent;
    assert.equal(sc.exit_code, 3);
    assert.equal(sc.stdout, 'out\n');
    assert.match(sc.stderr, /err-text/);
    const text = textOf(result);
    assert.match(text, /out/);
    assert.match(text, /err-text/);
    assert.match(text, /\b3\b/, 'the text names the exit status');
  });
});

test('an exception is isError true with the traceback', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const result = await run(server, { code: 'raise ValueError("boom-e2e")' });
    assert.equal(result.isError, true, describe(result));
    assert.notEqual(result.structuredContent.exit_code, 0);
    assert.match(result.structuredContent.stderr, /Traceback[\s\S]*ValueError: boom-e2e/);
  });
});

test('timeout: 1 stops a busy loop: timed_out true, isError true', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const started = Date.now();
    const result = await run(server, { code: 'while True:\n    pass', timeout: 1 });
    const took = Date.now() - started;
    assert.equal(result.isError, true, describe(result));
    assert.equal(result.structuredContent.timed_out, true, describe(result));
    assert.ok(took < 10000, `a 1 s timeout took ${took} ms`);
    assert.match(textOf(result), /time/i, 'the text says it timed out');
  });
});

test('stdin reaches the program', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const result = await run(server, { code: 'print(input())', stdin: 'hi' });
    assert.equal(result.isError, false, describe(result));
    assert.equal(result.structuredContent.stdout, 'hi\n');
    const multi = await run(server, { code: 'import sys\nprint(sum(int(x) for x in sys.stdin.read().split()))', stdin: '1 2\n3\n4' });
    assert.equal(multi.structuredContent.stdout, '10\n', describe(multi));
    const none = await run(server, { code: 'import sys\nprint(repr(sys.stdin.read()))' });
    assert.equal(none.structuredContent.stdout, "''\n", `no stdin is empty stdin: ${describe(none)}`);
  });
});

test('files are written into the work dir before the run', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const binary = Buffer.from([0, 1, 2, 253, 254, 255]);
    const code = [
      'import hashlib',
      'print(open("data/in.txt").read())',
      'print(list(open("blob.bin", "rb").read()))',
      'print(open("plain.txt", encoding="utf-8").read())',
    ].join('\n');
    const result = await run(server, {
      code,
      files: [
        { path: 'data/in.txt', content: 'nested file' },
        { path: 'blob.bin', content: binary.toString('base64'), encoding: 'base64' },
        { path: 'plain.txt', content: 'h\u00e9llo \u2603', encoding: 'utf-8' },
      ],
    });
    assert.equal(result.isError, false, describe(result));
    assert.equal(result.structuredContent.stdout, `nested file\n${JSON.stringify([...binary]).replaceAll(',', ', ')}\nh\u00e9llo \u2603\n`);
  });
});

test('files outside the work dir are refused', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    for (const path of ['../escape.txt', '/etc/evil', 'a/../../escape.txt']) {
      const result = await server.callTool('execute_code', { code: 'print(1)', files: [{ path, content: 'x' }] });
      assert.equal(result.isError, true, `file path ${path}: ${describe(result)}`);
    }
  });
});

test('two matplotlib figures shown with plt.show() come back as two PNG images', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const code = [
      'import matplotlib.pyplot as plt',
      'plt.figure(); plt.plot([1, 2, 3], [1, 4, 9])',
      'plt.figure(); plt.plot([3, 2, 1])',
      'plt.show()',
      'print("plotted")',
    ].join('\n');
    const result = await run(server, { code });
    assert.equal(result.isError, false, describe(result));
    assert.equal(result.content[0].type, 'text');
    const images = result.content.filter((c) => c.type === 'image');
    assert.equal(images.length, 2, `image blocks: ${describe(result)}`);
    for (const image of images) {
      assert.equal(image.mimeType, 'image/png');
      const bytes = Buffer.from(image.data, 'base64');
      assert.ok(bytes.subarray(0, 8).equals(PNG_MAGIC), 'PNG magic');
      assert.ok(bytes.length > 1000, `a real plot is more than ${bytes.length} bytes`);
    }
    const artifacts = result.structuredContent.artifacts;
    assert.equal(artifacts.length, 2, JSON.stringify(artifacts));
    for (const [i, a] of artifacts.entries()) {
      assert.equal(a.mime_type, 'image/png');
      assert.equal(typeof a.name, 'string');
      assert.equal(a.size, Buffer.from(images[i].data, 'base64').length, `artifact ${a.name}'s size`);
    }
  });
});

test('a C++ compile error is isError true with the compiler message', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const result = await run(server, { language: 'cpp', code: 'int main() { return 0 }\n' });
    assert.equal(result.isError, true, describe(result));
    assert.notEqual(result.structuredContent?.exit_code, 0, describe(result));
    assert.match(textOf(result), /error/i, 'the compiler output is in the text');
  });
});

test('output that is not UTF-8 and output that looks like JSON-RPC stay inside the result', { timeout: 30000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const code = [
      'import sys',
      'sys.stdout.buffer.write(b"bad bytes: \\xff\\xfe\\xc3\\x28\\n")',
      'sys.stdout.flush()',
      'print(\'{"jsonrpc":"2.0","id":1,"result":{}}\')',
      'print("\\u2028 line separator, \\x00 nul, \\x1b[31m escape")',
    ].join('\n');
    const result = await run(server, { code });
    assert.equal(result.isError, false, describe(result));
    assert.match(result.structuredContent.stdout, /bad bytes/);
    assert.match(result.structuredContent.stdout, /"jsonrpc":"2.0"/);
    assert.match(result.structuredContent.stdout, /nul/);
  });
});

test('a 5 MB output is truncated and every line stays under 8 MiB', { timeout: 60000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    const result = await run(server, { code: 'import sys\nfor i in range(5 * 1024):\n    sys.stdout.write("x" * 1023 + "\\n")' });
    assert.equal(result.isError, false, describe(result));
    assert.ok(!notTruncated(result.structuredContent), `truncated should say so: ${JSON.stringify(result.structuredContent.truncated)}`);
    assert.ok(result.structuredContent.stdout.length < 5 * 1024 * 1024);
  });
});

const HELLO = {
  python: 'print("hello from python")',
  javascript: 'console.log("hello from javascript")',
  java: 'public class Main {\n  public static void main(String[] args) {\n    System.out.println("hello from java");\n  }\n}\n',
  cpp: '#include <iostream>\nint main() { std::cout << "hello from cpp" << std::endl; }\n',
  c: '#include <stdio.h>\nint main(void) { puts("hello from c"); return 0; }\n',
  go: 'package main\nimport "fmt"\nfunc main() { fmt.Println("hello from go") }\n',
  r: 'cat("hello from r\\n")',
  ruby: 'puts "hello from ruby"',
  bash: 'echo "hello from bash"',
};

test('every language runs hello world', { timeout: 180000 }, async (t) => {
  await withServer(t, async (server) => {
    await server.initialize();
    assert.deepEqual(Object.keys(HELLO).sort(), [...LANGUAGES].sort());
    const results = await Promise.all(LANGUAGES.map(async (language) => [language,
      await run(server, { language, code: HELLO[language] }, { timeoutMs: 150000 })]));
    const failures = [];
    for (const [language, result] of results) {
      if (result.isError !== false || result.structuredContent?.stdout !== `hello from ${language}\n`) {
        failures.push(`${language}: ${describe(result)}`);
      }
    }
    assert.deepEqual(failures, []);
  });
});
