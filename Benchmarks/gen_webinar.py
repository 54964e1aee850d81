#!/usr/bin/env python3
"""Writes the logs of one large webinar: a host whose camera every viewer
subscribes to, and VIEWERS viewers reporting quality every ~2 s for
MINUTES minutes, one file per client.

The host's camera freezes STALLS times; every viewer sees each freeze
within 0.8 s of the others (a sender-side stall that every viewer shares,
so each stall lines up with all the others'). Loss, RTT and jitter are
noisy (many short runs above the issue lines and the viewers' baselines),
which is what makes the incident finder work hard.

Usage: gen_webinar.py OUT VIEWERS MINUTES [STALLS]   (STALLS default 3)
"""
import json
import os
import random
import sys

out, viewers, minutes = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
stall_count = int(sys.argv[4]) if len(sys.argv) > 4 else 3
rng = random.Random(5)
T0 = 1795000000000
MEETING = "m-webinar"
duration = int(minutes * 60000)
os.makedirs(out, exist_ok=True)


def line(ts, event, uid, **fields):
    record = {"ts": ts, "event": event, "meeting": MEETING, "uid": uid}
    record.update(fields)
    return json.dumps(record, separators=(",", ":")) + "\n"


freezes = sorted(rng.randrange(60000, duration - 60000) for _ in range(stall_count))
for v in range(viewers + 1):
    uid = "host" if v == 0 else f"viewer-{v:05d}"
    with open(os.path.join(out, f"{uid}.ndjson"), "w") as f:
        t = T0 + rng.randrange(0, 5000)
        f.write(line(t, "meeting_join", uid, engine="sfu", title="All hands", platform="web", sdkVersion="5.3.1"))
        if v:
            f.write(line(t + 10, "user_enter", uid, target="host"))
            f.write(line(t + 20, "stream_subscribe", uid, publisher="host", track="host-cam", kind="camera"))
            f.write(line(t + 30, "receive_stream_status", uid, publisher="host", track="host-cam", timedOut=False))
        stalls = [T0 + s + rng.randrange(0, 800) for s in freezes] if v else []
        ts, k = t + 2000, 0
        while ts < T0 + duration:
            while k < len(stalls) and stalls[k] <= ts:
                f.write(line(stalls[k], "receive_stream_status", uid, publisher="host", track="host-cam", timedOut=True))
                f.write(line(stalls[k] + 4000, "receive_stream_status", uid, publisher="host", track="host-cam", timedOut=False))
                k += 1
            f.write(line(ts, "quality_report", uid, loss=round(max(0, rng.gauss(1, 2)), 1), rtt=rng.randrange(20, 200),
                         jitter=rng.randrange(1, 40), bitrate=rng.randrange(300, 2500), mos=round(rng.uniform(3.0, 4.5), 2)))
            ts += 2000 + rng.randrange(-100, 100)
        f.write(line(T0 + duration + 100, "meeting_leave", uid, reason="user"))
