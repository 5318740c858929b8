"""The endpoint bench's floor: a bare aiohttp client sending the bodies mmgauge sends, N in flight.

The bodies file (written by `endpoint.py prepare`, from mmgauge's own encoder) holds each distinct image's
data URL once and, per request, the JSON before and after it; the client joins the three into the body
when it sends the request (a real client holds its images once too: 10,000 bodies of 1 MB images would not
fit in memory). It reads each reply and takes choices[0].message.content. Nothing a real client could skip.

Usage: python bench/bare_client.py URL BODIES CONCURRENCY
"""

from __future__ import annotations

import asyncio
import json
import sys

import aiohttp


async def send_all(url: str, images: list[bytes], parts: list[tuple[bytes, int, bytes]],
                   concurrency: int) -> int:
    answered = 0
    todo = iter(parts)
    connector = aiohttp.TCPConnector(limit=concurrency)
    headers = {"Content-Type": "application/json"}
    async with aiohttp.ClientSession(connector=connector, headers=headers) as session:

        async def worker() -> None:
            nonlocal answered
            for before, image, after in todo:
                async with session.post(url, data=before + images[image] + after) as reply:
                    data = json.loads(await reply.read())
                if reply.status != 200 or not isinstance(data["choices"][0]["message"]["content"], str):
                    raise SystemExit(f"bad reply {reply.status}: {data}")
                answered += 1

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return answered


def main() -> None:
    url, path, concurrency = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(path, "rb") as handle:
        images = [text.encode() for text in json.loads(handle.readline())]
        parts = [(before.encode(), image, after.encode())
                 for before, image, after in (json.loads(line) for line in handle)]
    answered = asyncio.run(send_all(url, images, parts, concurrency))
    if answered != len(parts):
        raise SystemExit(f"{answered} of {len(parts)} answered")


if __name__ == "__main__":
    main()
