"""What each session method asks the server, written once for the blocking and the asyncio
classes: every operation is a generator that yields requests (("tool", name, arguments) or
("resource", uri)), receives their raw results, and returns the method's value."""

import base64
import os
import posixpath
import shlex
import tempfile

from ._server import refusal
from .const import DEFAULT_WORKDIR
from .data import ConsoleOutput, ExecutionResult
from .exceptions import (CommandFailedError, FileTransferError, LibraryInstallationNotSupportedError,
                         NotOpenSessionError, SandboxError, ValidationError)

_UMASK = os.umask(0)
os.umask(_UMASK)

# write_file carries base64 in one JSON line of at most 32 MiB.
MAX_WRITE_BYTES = 24 * 1024 * 1024


def structured(tool, result):
    """The structured result of a call the server accepted; its refusal as an exception."""
    if result.get("isError") and not result.get("structuredContent"):
        raise refusal(tool, result)
    return result.get("structuredContent") or {}


# -- paths ---------------------------------------------------------------------------------------

def sandbox_path(path, aliases):
    """A sandbox path as the file tools take it: relative to /work. `/work/x`, and `x` under
    llm-sandbox's `/sandbox` (or the session's `workdir`), are accepted; anything else outside
    /work is refused here, as the server would."""
    text = str(path).strip()
    if not text:
        raise ValidationError("an empty sandbox path")
    if text.startswith("/"):
        normal = posixpath.normpath(text)
        for root in aliases:
            if normal == root:
                return ""
            if normal.startswith(root.rstrip("/") + "/"):
                return normal[len(root.rstrip("/")) + 1:]
        raise ValidationError(
            "%r is outside the sandbox's work directory; files go beneath %s (paths may be "
            "relative to it)" % (text, DEFAULT_WORKDIR))
    return text


# -- commands ------------------------------------------------------------------------------------

def _c_string(data):
    return '"' + "".join("\\%03o" % byte for byte in data) + '"'


def command_program(language, script, live):
    """Code in `language` that runs `script` with /bin/sh and ends with its exit status: a
    session runs one language, and paddock has no separate command tool."""
    data = script.encode("utf-8")
    hexed = data.hex()
    if language == "bash":
        return script
    if language == "python":
        if live:
            # A cell must not exec (that would end the kernel): the status is its value.
            return ("import subprocess as _pd_sp, sys as _pd_sys\n"
                    "_pd_r = _pd_sp.run(['/bin/sh', '-c', bytes.fromhex('%s').decode()], "
                    "stdin=_pd_sp.DEVNULL, capture_output=True)\n"
                    "_pd_sys.stdout.write(_pd_r.stdout.decode('utf-8', 'replace'))\n"
                    "_pd_sys.stderr.write(_pd_r.stderr.decode('utf-8', 'replace'))\n"
                    "_pd_sys.stdout.flush(); _pd_sys.stderr.flush()\n"
                    "_pd_r.returncode" % hexed)
        return ("import os\nos.execv('/bin/sh', ['sh', '-c', bytes.fromhex('%s').decode()])\n"
                % hexed)
    if language == "javascript":
        return ("const r = require('child_process').spawnSync('/bin/sh', ['-c', "
                "Buffer.from('%s', 'hex').toString()], {stdio: 'inherit'});\n"
                "process.exit(r.status === null ? 128 + (require('os').constants.signals"
                "[r.signal] || 9) : r.status);\n" % hexed)
    if language == "ruby":
        return "exec('/bin/sh', '-c', ['%s'].pack('H*').force_encoding('UTF-8'))\n" % hexed
    if language == "r":
        decode = ("rawToChar(as.raw(strtoi(substring(.pd_h, seq(1, nchar(.pd_h), 2), "
                  "seq(2, nchar(.pd_h), 2)), 16L)))")
        if live:
            return (".pd_h <- '%s'\n.pd_o <- tempfile(); .pd_e <- tempfile()\n"
                    ".pd_s <- system2('/bin/sh', c('-c', shQuote(%s)), stdout = .pd_o, "
                    "stderr = .pd_e)\n"
                    "cat(readChar(.pd_o, file.size(.pd_o), useBytes = TRUE))\n"
                    "message(readChar(.pd_e, file.size(.pd_e), useBytes = TRUE), appendLF = FALSE)\n"
                    "invisible(file.remove(.pd_o, .pd_e))\n"
                    "if (.pd_s != 0) stop(sprintf('paddock-command-status=%%d', .pd_s))\n"
                    % (hexed if hexed else "", decode))
        return (".pd_h <- '%s'\n.pd_s <- system2('/bin/sh', c('-c', shQuote(%s)))\n"
                "quit(save = 'no', status = .pd_s)\n" % (hexed, decode))
    if language in ("c", "cpp"):
        return ("#include <stdio.h>\n#include <unistd.h>\nint main(void) {\n"
                "  execl(\"/bin/sh\", \"sh\", \"-c\", %s, (char *)0);\n"
                "  perror(\"/bin/sh\");\n  return 127;\n}\n" % _c_string(data))
    if language == "go":
        literal = '"' + "".join("\\x%02x" % byte for byte in data) + '"'
        return ("package main\n\nimport (\n\t\"os\"\n\t\"os/exec\"\n)\n\nfunc main() {\n"
                "\tc := exec.Command(\"/bin/sh\", \"-c\", %s)\n"
                "\tc.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr\n"
                "\tif err := c.Run(); err != nil {\n"
                "\t\tif e, ok := err.(*exec.ExitError); ok {\n\t\t\tos.Exit(e.ExitCode())\n\t\t}\n"
                "\t\tos.Exit(127)\n\t}\n}\n" % literal)
    if language == "java":
        return ("public class Main {\n  public static void main(String[] a) throws Exception {\n"
                "    String h = \"%s\";\n    byte[] b = new byte[h.length() / 2];\n"
                "    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt("
                "h.substring(2 * i, 2 * i + 2), 16);\n"
                "    Process p = new ProcessBuilder(\"/bin/sh\", \"-c\", new String(b, "
                "java.nio.charset.StandardCharsets.UTF_8)).inheritIO().start();\n"
                "    System.exit(p.waitFor());\n  }\n}\n" % hexed)
    raise SandboxError("execute_command is not available in a %s session: paddock runs commands "
                       "through the session's language, and has no launcher for this one; use a "
                       "bash session" % language)


def command_result(tool_result, language, live):
    output = ConsoleOutput(**ConsoleOutput._fields_from(structured("execute_code", tool_result)))
    if live and output.phase == "run" and not output.timed_out:
        if language == "python" and output.error is None and output.result is not None:
            try:
                output.exit_code = int(output.result)
            except ValueError:
                pass
            output.result = None
        elif language == "r" and output.error:
            text = str(output.error.get("evalue", "")) + " ".join(output.error.get("traceback") or [])
            marker = "paddock-command-status="
            if marker in text:
                digits = text.split(marker, 1)[1][:4]
                digits = "".join(ch for ch in digits if ch.isdigit())
                if digits:
                    output.exit_code = int(digits)
                    output.error = None
    return output


# -- the operations ------------------------------------------------------------------------------

class Operations:
    """Mixed into both session classes; reads their settings and session id."""

    def _open_op(self):
        if self._resume:
            return (yield from self._resume_op())
        arguments = {"language": self.lang, "live": self._live}
        if self._name:
            arguments["name"] = self._name
        if self._libraries:
            arguments["libraries"] = list(self._libraries)
        if self._ttl is not None:
            arguments["ttl_seconds"] = int(self._ttl)
        opened = structured("create_session", (yield ("tool", "create_session", arguments)))
        self.session_id = opened["session_id"]
        self._state.session_id = self.session_id
        self.live = bool(opened.get("live"))
        self.not_live_reason = opened.get("not_live_reason")
        self.interpreter = opened.get("interpreter")
        if self._live and not self.live:
            raise SandboxError("a %s session cannot keep its interpreter here: %s"
                               % (self.lang, self.not_live_reason or "the server said not live"))
        return self

    def _resume_op(self):
        # Any tool given a kept session's id or name reopens it; list_sessions then says its id.
        structured("list_files", (yield ("tool", "list_files", {"session_id": self._resume})))
        listed = structured("list_sessions", (yield ("tool", "list_sessions", {})))
        for session in listed.get("sessions", []):
            if session.get("open") and self._resume in (session.get("session_id"),
                                                        session.get("name")):
                self.session_id = session["session_id"]
                self._state.session_id = self.session_id
                self.live = self._live
                return self
        raise SandboxError("session %r was reopened but is not listed" % self._resume)

    def _kept_op(self, tool, arguments):
        self._require_open(tool)
        arguments = dict(arguments, session_id=self.session_id)
        return structured(tool, (yield ("tool", tool, arguments)))

    def _close_op(self):
        session_id, self.session_id = self.session_id, None
        self._state.session_id = None
        # Unnamed forks end with the session that made them, under its rule: nothing names
        # them, so nothing would ever reopen or remove them (issue 55: they stayed on disk).
        forks, self._forks = self._forks, []
        for closing in ([session_id] if session_id else []) + forks:
            yield from self._close_one_op(closing)

    def _close_one_op(self, session_id):
        # `keep` is listed only by a server that keeps sessions (a state directory): it is sent
        # only when asked for, and a server without kept sessions closes it anyway. A fork its
        # own SandboxSession closed already is an error here, and nothing to do.
        arguments = {"session_id": session_id}
        if self._keep:
            arguments["keep"] = True
        try:
            yield ("tool", "close_session", arguments)
        except SandboxError:
            if not self._keep:
                return
            try:
                yield ("tool", "close_session", {"session_id": session_id})
            except SandboxError:
                pass

    def _run_arguments(self, code, libraries, timeout, language=None):
        arguments = {"code": code, "language": language or self.lang}
        if self.session_id:
            arguments["session_id"] = self.session_id
        if libraries:
            arguments["libraries"] = list(libraries)
        timeout = self._timeout if timeout is None else timeout
        if timeout is not None:
            arguments["timeout"] = timeout
        return arguments

    def _run_op(self, code, libraries=None, timeout=None, on_output=None):
        install_notes = []
        if libraries and self.session_id:
            # In a session, install with install_libraries and then run: paddock's execute_code
            # with both `libraries` and `session_id` gives its installer no package index
            # (the egress allowlist refuses it), while install_libraries does.
            installed = yield ("tool", "install_libraries",
                               {"session_id": self.session_id, "libraries": list(libraries)})
            if installed.get("isError") and not installed.get("structuredContent"):
                text = str(refusal("install_libraries", installed))
                if not text.startswith("installing "):
                    raise refusal("install_libraries", installed)
                return ExecutionResult(exit_code=1, stderr=text + "\n", phase="install")
            done = installed.get("structuredContent") or {}
            output = done.get("output", "") or ""
            if installed.get("isError") or not done.get("installed", False):
                return ExecutionResult(exit_code=1, stderr=output, phase="install", raw=done)
            install_notes = [line for line in output.splitlines()
                             if line.startswith("already there")]
            libraries = None
        request = ("tool", "execute_code", self._run_arguments(code, libraries, timeout))
        if on_output is not None:
            request += (_progress_lines(on_output),)
        result = yield request
        structured("execute_code", result)
        output = ExecutionResult.from_tool_result(result, with_plots=self._with_plots)
        output.notes[:0] = install_notes
        if output.error and output.error.get("traceback"):
            trace = "\n".join(output.error["traceback"])
            if trace and trace not in output.stderr:  # a live cell's exception, as stderr too
                output.stderr += ("" if not output.stderr or output.stderr.endswith("\n")
                                  else "\n") + trace + "\n"
        return output

    def _command_op(self, command, workdir=None, timeout=None):
        if isinstance(command, (list, tuple)):
            command = " ".join(shlex.quote(str(part)) for part in command)
        if not str(command).strip():
            raise ValidationError("an empty command")
        script = str(command)
        if workdir:
            directory = sandbox_path(workdir, self._aliases)
            script = "cd -- %s && %s" % (shlex.quote(directory or "."), script)
        if self.session_id:
            language, live = self.lang, self.live
        else:
            language, live = "bash", False  # a fresh sandbox runs any language
        code = command_program(language, script, live)
        arguments = self._run_arguments(code, None, timeout, language)
        result = yield ("tool", "execute_code", arguments)
        return command_result(result, language, live)

    def _install_op(self, libraries):
        if not libraries:
            return None
        self._require_open("install")
        result = yield ("tool", "install_libraries",
                        {"session_id": self.session_id, "libraries": list(libraries)})
        if result.get("isError") and not result.get("structuredContent"):
            error = refusal("install_libraries", result)
            text = str(error)
            if "package manager" in text or "no installer" in text:
                raise LibraryInstallationNotSupportedError(text)
            if text.startswith("installing "):
                raise CommandFailedError(text, text)
            raise error
        done = result.get("structuredContent") or {}
        output = done.get("output", "")
        if result.get("isError") or not done.get("installed", False):
            tail = "\n".join(output.strip().splitlines()[-5:])
            raise CommandFailedError("installing %s failed%s" % (
                ", ".join(libraries), (":\n" + tail) if tail else ""), output)
        return ConsoleOutput(exit_code=0, stdout=output, raw=done)

    # -- files -------------------------------------------------------------------------------

    def _share_for(self, host_path, writable):
        for share in self._shares:
            if writable and not share.rw:
                continue
            relative = share.relative(host_path)
            if relative is not None:
                return relative
        return None

    def _copy_to_op(self, src, dest):
        self._require_open("copy_to_runtime")
        target = sandbox_path(dest, self._aliases)
        if not os.path.exists(src):
            raise FileTransferError("%s: no such file or directory on the host" % src)
        shared = self._share_for(src, writable=False)
        if shared is not None:
            result = yield ("tool", "upload_file", {
                "session_id": self.session_id, "host_path": shared, "path": target,
                "recursive": os.path.isdir(src)})
            return self._file_done("upload_file", result)
        if os.path.isdir(src):
            for root, dirs, files in os.walk(src):
                dirs.sort()
                for name in sorted(files):
                    path = os.path.join(root, name)
                    relative = os.path.relpath(path, src).replace(os.sep, "/")
                    yield from self._write_one(path, posixpath.join(target, relative))
            return None
        yield from self._write_one(src, target)
        return None

    def _write_one(self, host_path, target):
        size = os.path.getsize(host_path)
        if size > MAX_WRITE_BYTES:
            raise FileTransferError(
                "%s is %d MiB; files over %d MiB cannot go through the pipe: give the session a "
                "share holding it (shares=[folder]) and copy_to_runtime uses upload_file"
                % (host_path, size >> 20, MAX_WRITE_BYTES >> 20))
        with open(host_path, "rb") as stream:
            data = stream.read()
        result = yield ("tool", "write_file", {
            "session_id": self.session_id, "path": target,
            "content": base64.b64encode(data).decode("ascii"), "encoding": "base64"})
        self._file_done("write_file", result)

    def _copy_from_op(self, src, dest):
        self._require_open("copy_from_runtime")
        source = sandbox_path(src, self._aliases)
        shared = self._share_for(dest, writable=True)
        if shared is not None:
            parent = os.path.dirname(os.path.abspath(dest))
            if parent and not os.path.isdir(parent):
                os.makedirs(parent, exist_ok=True)
            result = yield ("tool", "download_file", {
                "session_id": self.session_id, "path": source, "host_path": shared,
                "overwrite": True})
            return self._file_done("download_file", result)
        listing = None
        if source == "" or source.endswith("/"):
            listing = True
        else:
            parent = posixpath.dirname(source)
            result = yield ("tool", "list_files", {"session_id": self.session_id,
                                                   "path": parent, "all": True})
            entries = self._file_done("list_files", result).get("entries") or []
            kinds = {entry.get("name"): entry.get("type") for entry in entries}
            name = posixpath.basename(source)
            if name not in kinds:
                raise FileTransferError("%s: no such file in the sandbox" % src)
            listing = kinds[name] == "directory"
        if listing:
            yield from self._read_tree(source.rstrip("/"), dest)
        else:
            yield from self._read_one(source, dest)
        return None

    def _read_tree(self, source, dest):
        result = yield ("tool", "list_files", {"session_id": self.session_id, "path": source,
                                               "all": True})
        os.makedirs(dest, exist_ok=True)
        for entry in self._file_done("list_files", result).get("entries") or []:
            child = posixpath.join(source, entry["name"]) if source else entry["name"]
            target = os.path.join(dest, entry["name"])
            if entry.get("type") == "directory":
                yield from self._read_tree(child, target)
            elif entry.get("type") == "file":
                yield from self._read_one(child, target)

    def _read_one(self, source, dest):
        result = yield ("tool", "read_file", {"session_id": self.session_id, "path": source})
        self._file_done("read_file", result)
        data = None
        blocks = result.get("content") or []
        # A file too large for one result comes as a part of it and a link to all of it.
        links = [block for block in blocks if block.get("type") == "resource_link"]
        for block in links or blocks:
            kind = block.get("type")
            if kind == "text":
                data = block.get("text", "").encode("utf-8")
            elif kind == "image":
                data = base64.b64decode(block.get("data", ""))
            elif kind == "resource":
                data = _resource_bytes(block.get("resource") or {})
            elif kind == "resource_link":
                uri = block.get("uri")
                read = yield ("resource", uri)
                contents = (read or {}).get("contents") or []
                data = _resource_bytes(contents[0]) if contents else b""
            if data is not None:
                break
        if data is None:
            raise FileTransferError("read_file gave no content for %s" % source)
        _write_host_file(dest, data)

    def _file_done(self, tool, result):
        if result.get("isError"):
            raise FileTransferError(str(refusal(tool, result)))
        return result.get("structuredContent") or {}

    def _require_open(self, what):
        if not self.session_id:
            raise NotOpenSessionError(
                "%s needs an open session: call open() first, or use `with %s(...) as session`"
                % (what, type(self).__name__))


def _progress_lines(callback):
    """The server's progress notifications as output text for `callback`: lines of either
    stream, in order, each ending in a newline (the notifications do not say which stream)."""
    def deliver(params):
        message = params.get("message")
        if message:
            callback(message + "\n")
    return deliver


def _resource_bytes(resource):
    if "blob" in resource:
        return base64.b64decode(resource["blob"])
    return resource.get("text", "").encode("utf-8")


def _write_host_file(dest, data):
    """Write atomically: a partial file never takes the destination's name."""
    dest = os.path.abspath(dest)
    if os.path.isdir(dest):
        raise FileTransferError("%s is a directory on the host" % dest)
    parent = os.path.dirname(dest)
    os.makedirs(parent, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".paddock-", dir=parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temporary, 0o666 & ~_UMASK)
        os.replace(temporary, dest)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
