"""Many code runs at once from asyncio, as an agent serving several users would do them:
`python3 examples/async_agent.py`."""

import asyncio

from paddock import AsyncSandboxSession


async def solve(number):
    async with AsyncSandboxSession(lang="python") as session:
        result = await session.run("print(%d ** 2)" % number)
        return result.stdout.strip()


async def main():
    print(" ".join(await asyncio.gather(*[solve(n) for n in range(10)])))


asyncio.run(main())
