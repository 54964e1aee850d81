#!/usr/bin/env python3
"""Writes a synthetic chrome://webrtc-internals dump of about SIZE MB.

Shaped like the page's own dumps: per connection, every report property is a
series of up to 1000 values stored as a JSON string, with derived `-[…]`
series beside them; most properties are ones the importer does not read.
Usage: gen_internals_dump.py OUT SIZE_MB
"""
import json, random, sys

out, size_mb = sys.argv[1], float(sys.argv[2])
rng = random.Random(7)
T0 = 1795946400000.0
SAMPLES = 1000

def series(values):
    return json.dumps(values, separators=(",", ":"))

def entry(stats_type, values):
    return {"startTime": "2026-11-29T10:00:00.000Z", "endTime": "2026-11-29T10:16:40.000Z",
            "statsType": stats_type, "values": series(values)}

def connection(k):
    stats = {}
    times = [round(T0 + i * 1000 + rng.random(), 3) for i in range(SAMPLES)]
    def report(rid, rtype, props):
        stats[f"{rid}-timestamp"] = entry(rtype, times)
        for name, values in props.items():
            stats[f"{rid}-{name}"] = entry(rtype, values)
    for m, kind in enumerate(["audio", "video", "video"]):
        recv, lost, byt, frames = 0, 0, 0, 0
        rv, lv, bv, fv, jv = [], [], [], [], []
        for i in range(SAMPLES):
            n = rng.randint(40, 120); recv += n; lost += rng.choice([0, 0, 0, 1, 2])
            byt += n * rng.randint(100, 1100); frames += rng.choice([0, 24, 25, 30])
            rv.append(recv); lv.append(lost); bv.append(byt); fv.append(frames); jv.append(round(rng.random() * 0.03, 6))
        props = {"ssrc": [1000 + m] * SAMPLES, "kind": [kind] * SAMPLES, "packetsReceived": rv, "packetsLost": lv,
                 "bytesReceived": bv, "jitter": jv, "trackIdentifier": [f"track-{k}-{m}"] * SAMPLES}
        if kind == "video":
            props["framesDecoded"] = fv
            for extra in ["framesReceived", "framesDropped", "keyFramesDecoded", "totalDecodeTime", "frameWidth",
                          "frameHeight", "framesPerSecond", "nackCount", "pliCount", "firCount", "qpSum"]:
                props[extra] = [rng.randint(0, 5000) for _ in range(SAMPLES)]
        else:
            for extra in ["totalSamplesReceived", "concealedSamples", "audioLevel", "totalAudioEnergy",
                          "jitterBufferDelay", "jitterBufferEmittedCount", "fecPacketsReceived"]:
                props[extra] = [round(rng.random() * 1000, 4) for _ in range(SAMPLES)]
        report(f"IT{k}{kind[0]}{m}", "inbound-rtp", props)
        stats[f"IT{k}{kind[0]}{m}-[bytesReceived_in_bits/s]"] = entry("inbound-rtp", [rng.random() * 1e6 for _ in range(SAMPLES)])
    report(f"CP{k}", "candidate-pair", {
        "currentRoundTripTime": [round(0.02 + rng.random() * 0.05, 3) for _ in range(SAMPLES)],
        "bytesSent": list(range(0, SAMPLES * 1000, 1000)), "bytesReceived": list(range(0, SAMPLES * 2000, 2000)),
        "state": ["succeeded"] * SAMPLES, "nominated": [True] * SAMPLES,
        "availableOutgoingBitrate": [rng.randint(100000, 3000000) for _ in range(SAMPLES)]})
    report(f"T{k}", "transport", {"selectedCandidatePairId": [f"CP{k}"] * SAMPLES,
                                  "bytesSent": list(range(SAMPLES)), "bytesReceived": list(range(SAMPLES))})
    return {"pid": 1, "rtcConfiguration": "{}", "url": "https://example.test/", "updateLog": [], "stats": stats}

with open(out, "w") as f:
    f.write('{"getUserMedia":[],"PeerConnections":{')
    written, k = 0, 0
    while written < size_mb * 1e6:
        text = json.dumps(connection(k), separators=(",", ":"))
        f.write(("," if k else "") + json.dumps(f"{k}-1") + ":" + text)
        written += len(text); k += 1
    f.write('},"UserAgent":"synthetic"}')
print(k, "connections", file=sys.stderr)
