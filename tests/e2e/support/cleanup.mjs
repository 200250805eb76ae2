// A test's clean-up, last registered first, as t.after is not: node:test runs after hooks in
// the order they were added and skips the rest once one throws. A folder made before the server
// that writes into it would go first, fail while the server still writes (a kernel it makes
// ready a few seconds after start), and leave that server running with the test file waiting
// for it until CI's limit. Here each step runs whatever the ones before it did, and the first
// failure is reported once all have run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const steps = new WeakMap();

export function cleanup(t, step) {
  let stack = steps.get(t);
  if (stack === undefined) {
    stack = [];
    steps.set(t, stack);
    t.after(async () => {
      let first;
      while (stack.length > 0) {
        try {
          await stack.pop()();
        } catch (error) {
          first ??= error;
        }
      }
      if (first !== undefined) throw first;
    });
  }
  stack.push(step);
}

// A fresh folder under the system's temporary one, removed with the test's other clean-up.
export function temporaryFolder(t, prefix) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  cleanup(t, () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}
