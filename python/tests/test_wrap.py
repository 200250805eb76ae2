"""paddock.wrap_command: the config line it writes, its refusals, and the line run for real
(server-everything from the npm registry under `paddock wrap`, through the MCP Python SDK when it
is installed, else through the library's own stdio client)."""

import json
import os

import pytest

from paddock import ValidationError, wrap_command
from paddock._jsonrpc import McpClient

EVERYTHING = ["npx", "-y", "@modelcontextprotocol/server-everything"]


def test_the_line_of_docs_wrap_md():
    line = wrap_command("filesystem",
                        ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/work/notes"],
                        shares={"/home/me/notes": "notes:rw"})
    assert line == {"command": "paddock", "args": [
        "wrap", "--profile", "filesystem", "--share", "/home/me/notes=notes:rw", "--",
        "npx", "-y", "@modelcontextprotocol/server-filesystem", "/work/notes"]}
    assert json.loads(json.dumps(line)) == line


def test_every_option_becomes_its_flag():
    line = wrap_command(
        "everything", ("npx", "-y", "pkg"), shares=["/srv/a=a", "/srv/b/=b:rw"],
        allow_hosts=["example.org", "*.example.org"], deny_tools=("get-sum",),
        pass_through_env=["API_KEY"], state_dir="/tmp/state", audit_log="/tmp/audit.jsonl",
        paddock="/opt/paddock/bin/paddock", name="mine", env={"LEVEL": "debug"},
        allow_private=["203.0.113.80"], audit_values=True)
    assert line["command"] == "/opt/paddock/bin/paddock"
    assert line["args"] == [
        "wrap", "--profile", "everything", "--name", "mine", "--state-dir", "/tmp/state",
        "--audit-log", "/tmp/audit.jsonl", "--audit-values", "--share", "/srv/a=a",
        "--share", "/srv/b=b:rw", "--allow-host", "example.org", "--allow-host", "*.example.org",
        "--allow-private", "203.0.113.80", "--deny-tool", "get-sum",
        "--pass-through-env", "API_KEY", "--env", "LEVEL=debug", "--", "npx", "-y", "pkg"]


def test_no_profile_and_path_objects(tmp_path):
    line = wrap_command(None, ["my-server", "--flag", ""], state_dir=tmp_path,
                        shares={tmp_path / "notes": "notes"})
    assert line["args"] == ["wrap", "--state-dir", str(tmp_path), "--share",
                            "%s=notes" % (tmp_path / "notes"), "--", "my-server", "--flag", ""]


def test_home_relative_shares_are_expanded():
    line = wrap_command("memory", ["x"], shares=["~/notes=notes"])
    assert line["args"][4] == os.path.expanduser("~/notes") + "=notes"


@pytest.mark.parametrize("command, message", [
    ("npx -y pkg", "not the string 'npx -y pkg' (shlex.split()"),
    ([], "must be a non-empty list of strings"),
    (None, "must be a non-empty list of strings"),
    (["npx", 3], "must hold strings only; 3 is a int"),
    (["", "x"], "command's program (its first item) is empty"),
])
def test_a_command_that_is_not_a_list_of_strings_is_refused(command, message):
    with pytest.raises(ValidationError) as refused:
        wrap_command("everything", command)
    assert message in str(refused.value)
    assert isinstance(refused.value, ValueError)


@pytest.mark.parametrize("shares, message", [
    ({"notes": "notes"}, "the host folder 'notes' must be an absolute path"),
    ({"/srv/notes": "my notes"}, "'my notes' is not a share name"),
    ({"/srv/notes": "../up"}, "'../up' is not a share name"),
    ({"/srv/notes": "notes:ro"}, "':ro' is not a mode"),
    ({"/srv/notes": 7}, "the share's name must be a string"),
    ({"/srv/a=b": "notes"}, "has a '='"),
    (["/srv/notes"], "shares[0]: '/srv/notes' must be HOST_DIR=NAME"),
    (["=notes"], "must be HOST_DIR=NAME"),
    ("/srv/notes=notes", "shares must be a list of strings, not the string"),
    ([None], "must hold non-empty strings; None is not one"),
])
def test_bad_shares_are_refused_by_name(shares, message):
    with pytest.raises(ValidationError) as refused:
        wrap_command("filesystem", EVERYTHING, shares=shares)
    assert message in str(refused.value)


@pytest.mark.parametrize("options, message", [
    ({"deny_tools": "get-sum"}, "deny_tools must be a list of strings, not the string 'get-sum'"),
    ({"allow_hosts": 5}, "allow_hosts must be a list of strings, not int"),
    ({"allow_hosts": [""]}, "allow_hosts must hold non-empty strings"),
    ({"pass_through_env": ["NOT-A-NAME"]}, "'NOT-A-NAME' is not a variable's name"),
    ({"env": {"A": 1}}, "env['A'] must be a string, not int"),
    ({"env": ["A=1"]}, "env must be a dict"),
    ({"state_dir": ""}, "state_dir must be a non-empty path"),
    ({"audit_log": 3}, "audit_log must be a path, not int"),
    ({"paddock": ""}, "paddock must be the program to run"),
    ({"name": "a/b"}, "name must be a plain name"),
])
def test_bad_options_are_refused_by_name(options, message):
    with pytest.raises(ValidationError) as refused:
        wrap_command("everything", EVERYTHING, **options)
    assert message in str(refused.value)


@pytest.mark.parametrize("profile", ["", "../etc", "a/b", 3])
def test_a_profile_that_is_not_a_name_is_refused(profile):
    with pytest.raises(ValidationError, match="profile must be a profile's name"):
        wrap_command(profile, EVERYTHING)


def _sdk():
    """The MCP Python SDK's stdio client, or None where it is not installed."""
    try:
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client
    except ImportError:
        return None
    return ClientSession, StdioServerParameters, stdio_client


def _through_sdk(line):
    import anyio
    ClientSession, StdioServerParameters, stdio_client = _sdk()

    async def run():
        params = StdioServerParameters(command=line["command"], args=line["args"])
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                initialized = await session.initialize()
                echoed = await session.call_tool("echo", {"message": "from python"})
                return (initialized.serverInfo.name,
                        [c.text for c in echoed.content if c.type == "text"], None)

    return anyio.run(run)


def _through_pipes(line):
    # The library's own stdio client: JSON-RPC lines over the wrapper's stdin and stdout.
    client = McpClient([line["command"]] + line["args"], start_timeout=240.0)
    try:
        initialized = client.initialize()
        echoed = client.request("tools/call", {"name": "echo",
                                               "arguments": {"message": "from python"}},
                                timeout=60.0)
    finally:
        status = client.close(timeout=10.0)
    return (initialized["serverInfo"]["name"],
            [c["text"] for c in echoed["content"] if c["type"] == "text"], status)


def test_the_line_runs_server_everything_under_paddock_wrap(paddock_bin, tmp_path):
    private = os.environ.get("PADDOCK_ALLOW_PRIVATE")
    audit = tmp_path / "audit.jsonl"
    line = wrap_command("everything", EVERYTHING, state_dir=tmp_path / "state", audit_log=audit,
                        paddock=paddock_bin, allow_private=[private] if private else ())
    server, texts, status = (_through_sdk if _sdk() else _through_pipes)(line)
    assert "everything" in server
    assert texts == ["Echo: from python"]
    if status is not None:
        assert status == 0
    calls = [json.loads(text) for text in audit.read_text().splitlines()]
    assert [(c["server"], c["wrapped_tool"], c["outcome"]) for c in calls] == [
        ("everything", "echo", "ok")]
    # A value's size is that of its JSON text.
    assert calls[0]["arguments"] == {"message": len(json.dumps("from python"))}
