"""paddock._jsonrpc, the MCP stdio client, against the real `paddock mcp` (and, for the protocol
corners paddock never shows, a small scripted server)."""

import asyncio
import os
import signal
import sys
import textwrap
import threading
import time

import pytest

from paddock._jsonrpc import ClientClosed, McpClient, RpcError, ServerExited


def server(paddock_bin, *flags):
    return McpClient([paddock_bin, "mcp", "--log-level", "warning", *flags])


def execute(client, code, **arguments):
    arguments["code"] = code
    return client.request("tools/call", {"name": "execute_code", "arguments": arguments})


def test_handshake(paddock_bin):
    with server(paddock_bin) as client:
        result = client.initialize()
        assert result["protocolVersion"] == "2025-11-25"
        assert client.server_info.get("name")
        assert "tools" in client.server_capabilities
        names = {tool["name"] for tool in client.request("tools/list")["tools"]}
        assert {"execute_code", "create_session", "write_file", "read_file"} <= names
    assert client.process.returncode == 0


def test_many_threads_share_one_server(paddock_bin):
    with server(paddock_bin) as client:
        client.initialize()
        results = {}

        def work(number):
            out = execute(client, "print(%d * 3)" % number)
            results[number] = out["structuredContent"]["stdout"]

        threads = [threading.Thread(target=work, args=(n,)) for n in range(24)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert results == {n: "%d\n" % (n * 3) for n in range(24)}


def test_asyncio_requests(paddock_bin):
    async def main():
        with server(paddock_bin) as client:
            await client.ainitialize()
            outs = await asyncio.gather(*[
                client.arequest("tools/call", {"name": "execute_code",
                                               "arguments": {"code": "print(%d)" % n}})
                for n in range(12)])
            return [out["structuredContent"]["stdout"] for out in outs]

    assert asyncio.run(main()) == ["%d\n" % n for n in range(12)]


def test_progress_notifications_reach_their_request(paddock_bin):
    seen = []
    with server(paddock_bin) as client:
        client.initialize()
        code = "import time\nfor i in range(3):\n    print('tick', i, flush=True)\n    time.sleep(0.4)\n"
        out = client.request("tools/call", {"name": "execute_code", "arguments": {"code": code}},
                             progress=seen.append)
    assert out["structuredContent"]["stdout"].count("tick") == 3
    assert seen and all(n["progressToken"] for n in seen)
    assert "tick" in " ".join(str(n.get("message", "")) for n in seen)


def test_error_response_is_an_exception(paddock_bin):
    with server(paddock_bin) as client:
        client.initialize()
        with pytest.raises(RpcError) as raised:
            client.request("no/such/method")
        assert raised.value.code == -32601
        assert client.request("ping") == {}  # and the client goes on


def test_server_death_fails_waiting_and_later_requests(paddock_bin):
    client = server(paddock_bin)
    client.initialize()
    failure = []

    def wait_for_long_call():
        try:
            execute(client, "import time; time.sleep(30)")
        except ServerExited as error:
            failure.append(error)

    waiter = threading.Thread(target=wait_for_long_call)
    waiter.start()
    time.sleep(0.5)
    os.kill(client.pid, signal.SIGKILL)
    waiter.join(10)
    assert not waiter.is_alive()
    assert failure and "was killed by SIGKILL" in str(failure[0])
    assert failure[0].returncode == -signal.SIGKILL
    with pytest.raises(ServerExited, match="SIGKILL"):
        client.request("ping")
    assert not client.alive
    client.close()
    assert client.process.returncode == -signal.SIGKILL  # reaped: no zombie


def test_a_server_that_cannot_start_says_why(paddock_bin):
    client = McpClient([paddock_bin, "mcp", "--memory", "12 parsecs"])
    with pytest.raises(ServerExited) as raised:
        client.initialize()
    client.close()
    assert raised.value.returncode == 2
    assert "parsecs" in str(raised.value) and "exited with status 2" in str(raised.value)


def test_close_ends_the_server_and_fails_waiting_requests(paddock_bin):
    client = server(paddock_bin)
    client.initialize()
    failure = []

    def wait():
        try:
            failure.append(execute(client, "import time; time.sleep(30)"))
        except ServerExited as error:
            failure.append(error)

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.5)
    started = time.monotonic()
    client.close()
    waiter.join(10)
    assert time.monotonic() - started < 5  # end of input is enough; no timeout was needed
    assert client.process.returncode == 0
    # The server, told to stop, kills the sandbox and may still answer the call; either way
    # nothing waits any more.
    assert failure and (isinstance(failure[0], ClientClosed) or failure[0]["isError"])
    with pytest.raises(ClientClosed):
        client.request("ping")
    client.close()  # twice is fine


def test_timeout_cancels_the_request(paddock_bin):
    with server(paddock_bin) as client:
        client.initialize()
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            client.request("tools/call", {"name": "execute_code",
                                          "arguments": {"code": "import time; time.sleep(20)"}},
                           timeout=0.5)
        assert time.monotonic() - started < 15
        assert client.request("ping") == {}


def test_cancelling_a_task_cancels_the_request(paddock_bin):
    async def main(client):
        task = asyncio.ensure_future(client.arequest(
            "tools/call", {"name": "execute_code",
                           "arguments": {"code": "import time; time.sleep(20)"}}))
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return await client.arequest("ping")

    with server(paddock_bin) as client:
        client.initialize()
        assert asyncio.run(main(client)) == {}


def test_an_oversized_request_is_refused_before_sending(paddock_bin):
    with server(paddock_bin) as client:
        client.initialize()
        with pytest.raises(ValueError, match="MiB"):
            execute(client, "#" * (33 << 20))
        assert client.request("ping") == {}


# A scripted server for what paddock never does: a line that is not JSON, a request from the
# server, a notification, and answers out of order.
SCRIPTED = textwrap.dedent("""
    import json, sys
    def send(message):
        sys.stdout.write(json.dumps(message) + "\\n"); sys.stdout.flush()
    held = []
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("method") == "initialize":
            send({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s"}}})
        elif message.get("method") == "hold":
            held.append(message["id"])
        elif message.get("method") == "release":
            sys.stdout.write("this is not JSON\\n")
            send({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "hi"}})
            send({"jsonrpc": "2.0", "id": "s1", "method": "ping"})
            answer = json.loads(sys.stdin.readline())
            for request_id in [message["id"]] + held[::-1]:
                send({"jsonrpc": "2.0", "id": request_id,
                      "result": {"id": request_id, "ping_answer": answer}})
""")


def test_protocol_corners_with_a_scripted_server():
    notes = []
    client = McpClient([sys.executable, "-c", SCRIPTED],
                       on_notification=lambda method, params: notes.append((method, params)))
    client.initialize()
    answers = {}

    def held(name):
        answers[name] = client.request("hold")

    threads = [threading.Thread(target=held, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    time.sleep(0.3)
    released = client.request("release")
    for thread in threads:
        thread.join(5)
    assert released["ping_answer"] == {"jsonrpc": "2.0", "id": "s1", "result": {}}
    # answered in reverse order, each waiting thread got the answer to its own request
    assert len({answer["id"] for answer in answers.values()}) == 3
    assert released["id"] not in {answer["id"] for answer in answers.values()}
    assert notes == [("notifications/message", {"data": "hi"})]
    assert "not JSON" in client.stderr_tail()
    client.close()
    assert client.process.returncode == 0


def test_no_zombie_after_many_clients(paddock_bin):
    pids = []
    for _ in range(5):
        with server(paddock_bin) as client:
            client.initialize()
            pids.append(client.pid)
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # already reaped
