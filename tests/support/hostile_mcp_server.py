#!/usr/bin/env python3
"""A hostile stdio MCP server for tests/integration/wrap_test.cc, run by `paddock wrap`.

Line-delimited JSON-RPC: initialize, tools/list and tools/call. Its tools try what a wrapped
server must not get away with (read or write where it was not let, reach hosts, read the
wrapper's environment, flood, fork, hold descriptors, end mid-message) and answer with what
happened, as a normal tool result: refusals come back as isError results, never as a crash.

Every call is logged to stderr ("hostile: call NAME"), so a test sees what reached the server.
SIGTERM, SIGINT and SIGHUP are trapped: a line on stderr, then exit 7.
Flags: --never-read (never reads stdin; sleeps until killed), --marker WORD (ignored; puts WORD
in the command line, for processes_with).
"""

import json
import os
import signal
import sys
import threading
import time
import urllib.request

TOOLS = ["read_file", "write_file", "env", "http_get", "flood", "fork", "hold_fds",
         "half_exit", "exit", "echo", "secret_tool"]


def log(text):
    sys.stderr.write("hostile: " + text + "\n")
    sys.stderr.flush()


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text_result(text, is_error=False):
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def refused(error):
    return text_result("refused: %s %s" % (type(error).__name__, getattr(error, "errno", "")),
                       True)


def read_file(args):
    try:
        with open(args["path"], "rb") as f:
            return text_result("read: " + f.read(4096).decode("utf-8", "replace"))
    except OSError as e:
        return refused(e)


def write_file(args):
    try:
        with open(args["path"], "w") as f:
            f.write(args.get("content", "x"))
        return text_result("wrote")
    except OSError as e:
        return refused(e)


def env(args):
    if args.get("name") == "*":
        return text_result(json.dumps(dict(os.environ)))
    value = os.environ.get(args["name"])
    return text_result("unset" if value is None else "value: " + value)


def http_get(args):
    try:
        with urllib.request.urlopen(args["url"], timeout=10) as answer:
            return text_result("status: %d" % answer.status)
    except Exception as e:  # the proxy's refusal, or no network at all
        return text_result("refused: %s" % e, True)


def flood(args, ident):
    # Megabytes of valid notifications, one line past the wrapper's bound, then the answer.
    notification = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                               "params": {"level": "info", "data": "f" * 1000}}) + "\n"
    count = int(args.get("megabytes", 8)) * 1024
    out = sys.stdout
    for _ in range(count):
        out.write(notification)
    big = int(args.get("oversized_mib", 17)) << 20
    out.write('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"')
    chunk = "o" * (1 << 20)
    for _ in range(big >> 20):
        out.write(chunk)
    out.write('"}}\n')
    out.flush()
    return text_result("flooded %d" % count)


def fork(args):
    children, error = [], ""
    for _ in range(int(args.get("count", 10000))):
        try:
            pid = os.fork()
        except OSError as e:
            error = "refused: %s" % e
            break
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.kill(pid, signal.SIGKILL)
    for pid in children:
        os.waitpid(pid, 0)
    return text_result("forked %d %s" % (len(children), error), bool(error))


def hold_fds(args):
    held, error = [], ""
    for _ in range(int(args.get("count", 10000))):
        try:
            held.append(os.open("/dev/null", os.O_RDONLY))
        except OSError as e:
            error = "refused: %s" % e
            break
    for fd in held:
        os.close(fd)
    return text_result("held %d %s" % (len(held), error), bool(error))


def half_exit(_args):
    sys.stdout.write('{"jsonrpc":"2.0","id":')
    sys.stdout.flush()
    os._exit(3)


def answer(ident, name, args):
    if name == "read_file":
        return read_file(args)
    if name == "write_file":
        return write_file(args)
    if name == "env":
        return env(args)
    if name == "http_get":
        return http_get(args)
    if name == "flood":
        return flood(args, ident)
    if name == "fork":
        return fork(args)
    if name == "hold_fds":
        return hold_fds(args)
    if name == "half_exit":
        half_exit(args)
    if name == "exit":
        sys.stdout.flush()
        os._exit(int(args.get("code", 0)))
    if name in ("echo", "secret_tool"):
        return text_result("echo: " + json.dumps(args))
    return None


SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}


# Not a handler: Python runs a handler's code only between its own steps, and a signal that
# lands just before the main thread blocks in read() waits for the next line of stdin, which may
# never come (Wrap.SignalsArePassedToTheServer lost 1 signal in 30 that way). The signals are
# blocked instead, and this thread takes them as they come.
def on_signals():
    sig = signal.sigwait(SIGNALS)
    log("got signal %d" % sig)
    os._exit(7)


def main():
    signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    threading.Thread(target=on_signals, daemon=True).start()
    if "--never-read" in sys.argv:
        log("never reading")
        while True:
            time.sleep(60)
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        ident, method = message.get("id"), message.get("method")
        if ident is None:
            continue
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": ident, "result": {
                "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                "serverInfo": {"name": "hostile", "version": "1"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [
                {"name": n, "inputSchema": {"type": "object"}} for n in TOOLS]}})
        elif method == "tools/call":
            params = message.get("params", {})
            log("call " + str(params.get("name")))
            result = answer(ident, params.get("name"), params.get("arguments", {}))
            if result is None:
                send({"jsonrpc": "2.0", "id": ident,
                      "error": {"code": -32602, "message": "no such tool"}})
            else:
                send({"jsonrpc": "2.0", "id": ident, "result": result})
        else:
            send({"jsonrpc": "2.0", "id": ident,
                  "error": {"code": -32601, "message": "no such method"}})
    log("stdin closed")


if __name__ == "__main__":
    main()
