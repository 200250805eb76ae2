// paddock: a warm node interpreter (runtime/warm_interpreter.h). Written where the call's program
// will be (main.js) and loaded before it with `--require ./main.js` (NODE_OPTIONS, which node
// leaves out of process.execArgv), in a node started exactly as a cold run starts the program,
// with the call's streams as its own from the start (node cannot take descriptors). It requires
// the policy's preload list, says it is ready on fd 3, and waits there for exactly one call, which
// brings its environment; the call's files (main.js among them, over this one) are written by
// then. It closes fd 3, forgets this module, and returns: node then loads main.js, now the call's,
// as its main module, as it does in a cold run, so that its frames, require.main and errors are a
// cold run's. Nothing here binds a global name.
{
  // Run as the program instead (its start without NODE_OPTIONS), it would end the call unrun.
  if (require.main === module) throw new Error('paddock: the warm loader runs only with --require');
  const fs = require('fs');
  for (const name of PADDOCK_PRELOAD) {
    try {
      require(name);
    } catch {
      // not in this root file system: the call requires it itself
    }
  }
  // The CPU time up to here is the start's, not the call's: paddock subtracts it.
  const { user, system } = process.cpuUsage();
  fs.writeSync(3, `ready ${(user + system) * 1000}`);
  const buffer = Buffer.alloc(1 << 20);
  let length = 0;
  for (;;) {
    try {
      length = fs.readSync(3, buffer, 0, buffer.length, null);
      break;
    } catch (error) {
      if (error.code !== 'EAGAIN' && error.code !== 'EINTR') break;
    }
  }
  const data = buffer.subarray(0, length);
  if (data.toString('latin1', 0, 3) !== 'go\0') process.exit(0); // closed without a call
  try {
    fs.writeSync(3, 'took'); // before anything of the call runs: paddock waits for it a while
  } catch {
    // paddock stopped waiting (a stalled machine): the call is this interpreter's all the same
  }
  fs.closeSync(3);
  // The call's environment, in its order, replaces the language's (NODE_OPTIONS with it). PWD
  // stays: the policy's `sh -c` wrapper sets it before it starts node, in a cold run too.
  const { PWD } = process.env;
  for (const name of Object.keys(process.env)) delete process.env[name];
  for (const entry of data.subarray(3).toString().split('\0')) {
    const equals = entry.indexOf('=');
    if (equals > 0) process.env[entry.slice(0, equals)] = entry.slice(equals + 1);
  }
  if (PWD !== undefined) process.env.PWD = PWD;
  delete require.cache[__filename];
}
