"""The Spark job against one store of the same logs (Docs/scale.md).

Needs MQA_BIN (an mqa binary) and runs Scripts/spark-fleet.sh, so it is
started by Scripts/test-spark.sh, which sets both up.
"""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'Spark'))
import mqa_spark  # noqa: E402

MQA = os.environ.get('MQA_BIN') or os.path.join(ROOT, '.build', 'debug', 'mqa')
GRID = '{"hysteresis": [0, 0.2], "upDwell": [1, 3], "alphaDown": [0.8, 1]}\n'


def mqa(*args, ok=(0,)):
    r = subprocess.run([MQA, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert r.returncode in ok, r.stderr.decode()
    return r.stdout.decode()


def input_files(logs):
    """What the job reads, in its order: every file, names starting with
    '.' or '_' left out (Hadoop's rule), by path."""
    out = []
    for d, dirs, files in os.walk(logs):
        dirs[:] = [x for x in dirs if not x.startswith(('.', '_'))]
        out += [os.path.join(d, f) for f in files if not f.startswith(('.', '_'))]
    return sorted(out, key=lambda p: 'file:' + p)


@pytest.fixture(scope='module')
def fleet(tmp_path_factory):
    """A simulated fleet plus the awkward files: one holding three meetings'
    lines and lines naming none, a copy of another file, a file of garbage."""
    base = tmp_path_factory.mktemp('fleet')
    logs = base / 'logs'
    mqa('simulate', '--meetings', '12', '--seed', '7', '--out', str(logs))
    meetings = sorted(os.listdir(logs))
    mixed = []
    for m in meetings[:3]:
        first = sorted(os.listdir(logs / m))[0]
        lines = (logs / m / first).read_bytes().split(b'\n')
        mixed.append(lines[:40])
        (logs / m / first).write_bytes(b'\n'.join(lines[40:]))
    body = [b'not json at all', b'']
    for i in range(40):
        for part in mixed:
            if i < len(part) and part[i]:
                body.append(part[i])
        if i % 10 == 0:
            body.append(b'{"ts": 1, "event": "meeting_join"}')  # names no meeting
    (logs / 'mixed.ndjson').write_bytes(b'\n'.join(body) + b'\n')
    some = sorted(os.listdir(logs / meetings[4]))[0]
    (logs / 'copy-of-one.ndjson').write_bytes((logs / meetings[4] / some).read_bytes())
    (logs / 'garbage.ndjson').write_bytes(b'hello\n\n{"x": 1}\n')
    (base / 'grid.json').write_text(GRID)

    one = str(base / 'one.sqlite')
    # The spec's totals (cli.md); the per-format breakdown of dumps is not
    # part of the job's summary.
    totals = ('files', 'skippedFiles', 'lines', 'events', 'reports', 'rejected', 'duplicates', 'ignored')
    summary = json.loads(mqa('ingest', '--db', one, '--format', 'json', *input_files(logs), ok=(0, 3)))
    summary = {k: summary[k] for k in totals}
    return {
        'base': base, 'logs': logs, 'summary': summary,
        'fleet': mqa('report', 'fleet', '--db', one, '--format', 'json'),
        'tune': mqa('tune', '--db', one, '--grid', str(base / 'grid.json'), '--format', 'json'),
        'meetings': len(meetings),
    }


def run_job(fleet, out, shards, env=None, extra=()):
    e = dict(os.environ, MQA_BIN=MQA, **(env or {}))
    r = subprocess.run(['bash', os.path.join(ROOT, 'Scripts', 'spark-fleet.sh'), '--logs', str(fleet['logs']),
                        '--out', str(out), '--shards', str(shards), '--grid', str(fleet['base'] / 'grid.json'),
                        *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, timeout=600)
    assert r.returncode == 0, r.stderr.decode()[-4000:]
    return r


def test_three_shards_with_a_killed_attempt_equal_one_store(fleet):
    out = fleet['base'] / 'out3'
    r = run_job(fleet, out, 3, env={'MQA_SPARK_FAULT': 'kill:1'}, extra=['--keep-stores'])
    assert (out / 'fleet.json').read_text() == fleet['fleet']
    assert (out / 'tune.json').read_text() == fleet['tune']
    # The job's totals are one ingest's, the killed attempt counted nowhere.
    assert json.loads((out / 'ingest.json').read_text()) == fleet['summary']
    # (spark-submit passes the driver's stderr on to stdout too)
    printed = [line for line in r.stdout.decode().splitlines() if line.startswith('{"files"')]
    assert [json.loads(line) for line in printed] == [fleet['summary']]
    assert fleet['summary']['rejected'] > 0 and fleet['summary']['skippedFiles'] == 1
    timings = json.loads((out / 'timings.json').read_text())
    assert [s['attempt'] for s in timings['shards']] == [0, 1, 0]
    # One report per meeting, and an index linking every one.
    html = sorted(n for n in os.listdir(out / 'meetings') if n != 'tracks')
    assert len(html) == fleet['meetings'] + 1 and 'index.html' in html
    index = (out / 'meetings' / 'index.html').read_text()
    assert all(('href="%s"' % name) in index for name in html if name != 'index.html')
    # The track pages the meeting pages link are there too.
    tracks = os.listdir(out / 'meetings' / 'tracks')
    pages = ''.join((out / 'meetings' / m).read_text() for m in html if m != 'index.html')
    assert tracks and all(('href="tracks/%s"' % t) in pages for t in tracks)
    assert any(n.endswith('.parquet') for n in os.listdir(out / 'fleet.parquet'))
    # Only the committed attempts' stores are kept, and together they hold the fleet.
    assert sorted(os.listdir(out / 'stores')) == ['shard-0.sqlite', 'shard-1.sqlite', 'shard-2.sqlite']
    ranked = sum(json.loads(mqa('report', 'fleet', '--db', str(out / 'stores' / s), '--format', 'json'))['meetings']
                 for s in os.listdir(out / 'stores'))
    assert ranked == fleet['meetings']


def test_one_shard_equals_one_store(fleet):
    out = fleet['base'] / 'out1'
    run_job(fleet, out, 1)
    assert (out / 'fleet.json').read_text() == fleet['fleet']
    assert (out / 'tune.json').read_text() == fleet['tune']


def test_read_through_hadoop_equals_one_store(fleet):
    """The cluster way of reading (sc.binaryFiles, as for hdfs: or s3a:)."""
    out = fleet['base'] / 'out2'
    run_job(fleet, out, 2, env={'MQA_SPARK_FAULT': 'raise:0'}, extra=['--hadoop-read'])
    assert (out / 'fleet.json').read_text() == fleet['fleet']
    assert (out / 'tune.json').read_text() == fleet['tune']
    assert json.loads((out / 'ingest.json').read_text()) == fleet['summary']


def test_render_reproduces_mqa_json(fleet):
    for text in (fleet['fleet'], fleet['tune']):
        assert mqa_spark.render(mqa_spark.load_json(text)) + '\n' == text


def test_split_keeps_each_meeting_whole():
    lines = [b'junk', b'{"meeting":"a","x":1}', b'{"meeting":"b"}', b'', b'{"x":2}',
             b'{"meeting":"a","n":{"meeting":"z"}}', b'{"me\\u0065ting":"b"}']
    parts = mqa_spark.split_file('f.ndjson', b'\n'.join(lines) + b'\n', order=3, shards=8)
    assert [p[1] for p in parts] == ['000000003-000-f.ndjson', '000000003-001-f.ndjson']
    a = parts[0][2].split(b'\n')
    assert a[:4] == [b'junk', b'{"meeting":"a","x":1}', b'', b'{"x":2}']
    assert a[4] == b'{"meeting":"a","n":{"meeting":"z"}}'
    assert parts[0][0] == mqa_spark.shard_of_meeting('a', 8)
    assert parts[1][2].split(b'\n')[:2] == [b'{"meeting":"b"}', b'{"me\\u0065ting":"b"}']
    # A file of one meeting, or of none, goes whole under its own name.
    whole = mqa_spark.split_file('g.ndjson', b'{"meeting":"a"}\nx\n', order=1, shards=8)
    assert whole == [(mqa_spark.shard_of_meeting('a', 8), '000000001-000-g.ndjson', b'{"meeting":"a"}\nx\n')]
    assert mqa_spark.split_file('h', b'x\n', 2, 8)[0][0] == mqa_spark.shard_of_name('h', 8)


def test_fleet_ties_rank_by_meeting_id():
    def doc(*entries):
        return {'score': 's', 'meetings': len(entries), 'shown': len(entries),
                'issueCounts': {'low_mos': {'issues': 1, 'meetings': 1}},
                'ranked': [{'rank': 0, 'meeting': m, 'stalledMs': s, 'lowTierMs': 0, 'abnormalDisconnects': d}
                           for m, s, d in entries]}
    merged = mqa_spark.merge_fleet([doc(('b', 30000, 0), ('c', 1, 0)), doc(('a', 0, 1), ('d', 30001, 0))])
    assert [e['meeting'] for e in merged['ranked']] == ['d', 'a', 'b', 'c']
    assert [e['rank'] for e in merged['ranked']] == [1, 2, 3, 4]
    assert merged['issueCounts']['low_mos'] == {'issues': 2, 'meetings': 2}
    with pytest.raises(ValueError):
        mqa_spark.merge_fleet([doc(('a', 1, 0)), doc(('a', 1, 0))])


def test_a_cdn_meeting_without_quality_data_ranks_by_its_stalls():
    cdn = {'meeting': 'cdn', 'stalledMs': 4000, 'lowTierMs': None, 'abnormalDisconnects': 0}
    sfu = {'meeting': 'sfu', 'stalledMs': 1000, 'lowTierMs': 2000, 'abnormalDisconnects': 0}
    assert mqa_spark.fleet_score(cdn) == 4.0
    doc = {'score': 's', 'meetings': 2, 'shown': 2, 'issueCounts': {}, 'ranked': [sfu, cdn]}
    assert [e['meeting'] for e in mqa_spark.merge_fleet([doc])['ranked']] == ['cdn', 'sfu']
