"""`paddock.wrap_command`: the command and args that run another stdio MCP server under
`paddock wrap` (docs/wrap.md), for any MCP client's stdio parameters.

    from paddock import wrap_command

    line = wrap_command("filesystem",
                        ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/work/notes"],
                        shares={"/home/me/notes": "notes:rw"})
    # {"command": "paddock", "args": ["wrap", "--profile", "filesystem", "--share",
    #  "/home/me/notes=notes:rw", "--", "npx", "-y", ...]}

Nothing is started here: the arguments are checked and written as the flags `paddock wrap`
takes, and paddock itself checks the rest (that a profile exists, that a share's folder does) when
the client starts it. The checks here catch what would otherwise make a silently wrong command
line: a command given as one string, a share without a name, a list given as a bare string.
"""

import os
import re

from .exceptions import ValidationError

# As paddock's own checks: a profile's and a share's name, and an environment variable's.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _strings(value, what):
    """A list of strings from a list, tuple or other iterable; a bare string is refused, as
    iterating it would give its characters."""
    if isinstance(value, (str, bytes)):
        raise ValidationError("%s must be a list of strings, not the string %r (write [%r])"
                              % (what, value, value))
    try:
        items = list(value)
    except TypeError:
        raise ValidationError("%s must be a list of strings, not %s"
                              % (what, type(value).__name__)) from None
    for item in items:
        if not isinstance(item, str) or not item:
            raise ValidationError("%s must hold non-empty strings; %r is not one" % (what, item))
    return items


def _path(value, what):
    try:
        text = os.fspath(value)
    except TypeError:
        raise ValidationError("%s must be a path, not %s" % (what, type(value).__name__)) from None
    if not isinstance(text, str) or not text:
        raise ValidationError("%s must be a non-empty path" % what)
    return text


def _share(host_dir, target, what):
    """One --share value, HOST_DIR=NAME[:rw], from a host folder and "NAME" or "NAME:rw"."""
    host_dir = os.path.expanduser(_path(host_dir, what))
    if not os.path.isabs(host_dir):
        raise ValidationError("%s: the host folder %r must be an absolute path (or start with ~/)"
                              % (what, host_dir))
    if "=" in host_dir:
        raise ValidationError("%s: the host folder %r has a '=', which --share cannot tell from "
                              "its name's" % (what, host_dir))
    if not isinstance(target, str):
        raise ValidationError("%s: the share's name must be a string like \"notes\" or "
                              "\"notes:rw\", not %r" % (what, target))
    name, _, mode = target.partition(":")
    if not _PLAIN_NAME.match(name) or ".." in name:
        raise ValidationError("%s: %r is not a share name (letters, digits, '.', '_' and '-', "
                              "starting with a letter or digit; the server sees it at /work/NAME)"
                              % (what, name))
    if mode not in ("", "rw"):
        raise ValidationError("%s: %r: a share is read-only unless its name ends in ':rw'; "
                              "%r is not a mode" % (what, target, ":" + mode))
    return "%s=%s" % (host_dir.rstrip("/") or "/", target)


def _shares(shares):
    if shares is None:
        return []
    if isinstance(shares, dict):
        return [_share(host, target, "shares[%r]" % (host,)) for host, target in shares.items()]
    out = []
    for index, entry in enumerate(_strings(shares, "shares")):
        host, equals, target = entry.rpartition("=")
        if not equals or not host:
            raise ValidationError("shares[%d]: %r must be HOST_DIR=NAME or HOST_DIR=NAME:rw "
                                  "(or pass shares as {HOST_DIR: \"NAME[:rw]\"})" % (index, entry))
        out.append(_share(host, target, "shares[%d]" % index))
    return out


def _command(command):
    if isinstance(command, (str, bytes)):
        raise ValidationError("command must be a list of strings, the program and its arguments, "
                              "not the string %r (shlex.split() makes one from a shell line)"
                              % (command,))
    if not isinstance(command, (list, tuple)) or not command:
        raise ValidationError("command must be a non-empty list of strings, the program and its "
                              "arguments, e.g. [\"npx\", \"-y\", \"@modelcontextprotocol/"
                              "server-memory\"]; got %r" % (command,))
    for item in command:
        if not isinstance(item, str):
            raise ValidationError("command must hold strings only; %r is a %s"
                                  % (item, type(item).__name__))
    if not command[0]:
        raise ValidationError("command's program (its first item) is empty")
    return list(command)


def wrap_command(profile, command, *, shares=None, allow_hosts=(), deny_tools=(),
                 pass_through_env=(), state_dir=None, audit_log=None, paddock="paddock",
                 name=None, env=None, allow_private=(), audit_values=False):
    """The `{"command": ..., "args": [...]}` that runs `command` under `paddock wrap`.

    profile: a server profile's name (docs/server-profiles.md), or None for none.
    command: the server's program and arguments, e.g. ["npx", "-y", "@scope/server"].
    shares: {host_dir: "NAME" or "NAME:rw"}, or ["HOST_DIR=NAME[:rw]", ...]: seen at /work/NAME.
    allow_hosts, deny_tools, pass_through_env, allow_private: lists of strings, one flag each.
    state_dir, audit_log: paths (state_dir "none": a home for one start).
    paddock: the program the client runs ("paddock" on PATH, or a path to it).
    name: the server's name in audit lines; env: {NAME: value} set in the server's environment;
    audit_values: write argument values to the audit log, masked.
    """
    if profile is not None and (not isinstance(profile, str) or not _PLAIN_NAME.match(profile)
                                or ".." in profile):
        raise ValidationError("profile must be a profile's name (letters, digits, '.', '_' and "
                              "'-', e.g. \"filesystem\") or None; got %r" % (profile,))
    argv = _command(command)
    if not isinstance(paddock, str) or not paddock:
        raise ValidationError("paddock must be the program to run, e.g. \"paddock\" or a path; "
                              "got %r" % (paddock,))
    args = ["wrap"]
    if profile is not None:
        args += ["--profile", profile]
    if name is not None:
        if not isinstance(name, str) or not _PLAIN_NAME.match(name) or ".." in name:
            raise ValidationError("name must be a plain name (letters, digits, '.', '_' and '-'); "
                                  "got %r" % (name,))
        args += ["--name", name]
    if state_dir is not None:
        args += ["--state-dir", _path(state_dir, "state_dir")]
    if audit_log is not None:
        args += ["--audit-log", _path(audit_log, "audit_log")]
    if audit_values:
        args.append("--audit-values")
    for share in _shares(shares):
        args += ["--share", share]
    for host in _strings(allow_hosts, "allow_hosts"):
        args += ["--allow-host", host]
    for cidr in _strings(allow_private, "allow_private"):
        args += ["--allow-private", cidr]
    for tool in _strings(deny_tools, "deny_tools"):
        args += ["--deny-tool", tool]
    for variable in _strings(pass_through_env, "pass_through_env"):
        if not _ENV_NAME.match(variable):
            raise ValidationError("pass_through_env: %r is not a variable's name" % (variable,))
        args += ["--pass-through-env", variable]
    if env is not None:
        if not isinstance(env, dict):
            raise ValidationError("env must be a dict {NAME: value}, not %s" % type(env).__name__)
        for variable, value in env.items():
            if not isinstance(variable, str) or not _ENV_NAME.match(variable):
                raise ValidationError("env: %r is not a variable's name" % (variable,))
            if not isinstance(value, str):
                raise ValidationError("env[%r] must be a string, not %s"
                                      % (variable, type(value).__name__))
            args += ["--env", "%s=%s" % (variable, value)]
    return {"command": paddock, "args": args + ["--"] + argv}
