"""The Spark job against one store of the same logs (Docs/scale.md).

Needs MQA_BIN (an mqa binary) and runs Scripts/spark-fleet.sh, so it is
started by Scripts/test-spark.sh, which sets both up.
"""
import gzip
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
    totals = ('files', 'skippedFiles', 'failedFiles', 'lines', 'events', 'reports', 'rejected', 'duplicates', 'ignored')
    summary = json.loads(mqa('ingest', '--db', one, '--format', 'json', *input_files(logs), ok=(0, 3)))
    summary = {k: summary[k] for k in totals}
    return {
        'base': base, 'logs': logs, 'summary': summary, 'one': one,
        'fleet': mqa('report', 'fleet', '--db', one, '--format', 'json'),
        'tune': mqa('tune', '--db', one, '--grid', str(base / 'grid.json'), '--format', 'json'),
        'meetings': len(meetings),
        **one_store_cohorts(one),
    }


def one_store_cohorts(db):
    """What one store says of the fleet's cohorts and trends: the job's
    merged reports must say the same, byte for byte."""
    cohorts = {f: mqa('report', 'cohorts', '--db', db, '--by', f, '--format', 'json') for f in mqa_spark.COHORT_FIELDS}
    values = [c['value'] for c in json.loads(cohorts['sdkVersion'])['cohorts'][:2]]
    return {
        'cohorts': cohorts,
        'compareValues': values,
        'compare': mqa('compare', '--db', db, '--by', 'sdkVersion', *values, '--format', 'json'),
        'cohortsMd': mqa('report', 'cohorts', '--db', db, '--by', 'sdkVersion'),
        'trends': mqa('report', 'trends', '--db', db, '--format', 'json'),
        'trendsByNet': mqa('report', 'trends', '--db', db, '--by', 'netType', '--format', 'json'),
    }


def assert_cohorts_equal_one_store(out, fleet):
    for field, text in fleet['cohorts'].items():
        assert (out / 'cohorts' / (field + '.json')).read_text() == text, field
    assert (out / 'cohorts' / 'sdkVersion.md').read_text() == fleet['cohortsMd']
    assert (out / 'trends.json').read_text() == fleet['trends']
    assert (out / 'trends-by-netType.json').read_text() == fleet['trendsByNet']
    # The shards' partials stay, so a release can be gated on the fleet later.
    parts = sorted(str(p) for p in (out / 'cohorts' / 'partials').iterdir())
    assert parts and all(p.endswith('.json') for p in parts)
    assert mqa('compare', '--by', 'sdkVersion', '--merge', *fleet['compareValues'], *parts, '--format', 'json') \
        == fleet['compare']


def run_job(fleet, out, shards, env=None, extra=()):
    e = dict(os.environ, MQA_BIN=MQA, **(env or {}))
    r = subprocess.run(['bash', os.path.join(ROOT, 'Scripts', 'spark-fleet.sh'), '--logs', str(fleet['logs']),
                        '--out', str(out), '--shards', str(shards), '--grid', str(fleet['base'] / 'grid.json'),
                        *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, timeout=600)
    # (spark-submit passes the driver's stderr on to stdout: show both)
    # Exit 3, as `mqa ingest`, when lines were rejected (and all else done).
    done = os.path.join(str(out), 'ingest.json')
    rejected = json.loads(open(done, encoding='utf-8').read())['rejected'] if os.path.exists(done) else 0
    assert r.returncode == (3 if rejected else 0), r.stdout.decode()[-3000:] + r.stderr.decode()[-3000:]
    return r


def test_three_shards_with_a_killed_attempt_equal_one_store(fleet):
    out = fleet['base'] / 'out3'
    # The killed attempt cannot clean up after itself: its folder goes in
    # the test's own (--work), not the machine's temp dir.
    r = run_job(fleet, out, 3, env={'MQA_SPARK_FAULT': 'kill:1'},
                extra=['--keep-stores', '--work', str(fleet['base'] / 'work3')])
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
    assert [s['pages'] for s in timings['shards']] == ['moved'] * 3
    # One report per meeting, and an index linking every one.
    html = sorted(n for n in os.listdir(out / 'meetings') if n != 'tracks')
    assert len(html) == fleet['meetings'] + 1 and 'index.html' in html
    index = (out / 'meetings' / 'index.html').read_text()
    assert all(('href="%s"' % name) in index for name in html if name != 'index.html')
    # The track pages the meeting pages link are there too.
    tracks = os.listdir(out / 'meetings' / 'tracks')
    pages = ''.join((out / 'meetings' / m).read_text() for m in html if m != 'index.html')
    assert tracks and all(('href="tracks/%s"' % t) in pages for t in tracks)
    # Written into the driver's folder by the executors, then moved.
    assert_pages_are_one_stores(out, fleet)
    assert any(n.endswith('.parquet') for n in os.listdir(out / 'fleet.parquet'))
    # Cohorts and trends: the shards' partials merge into one store's reports.
    assert_cohorts_equal_one_store(out, fleet)
    # Only the committed attempts' stores are kept, and together they hold the fleet.
    assert sorted(os.listdir(out / 'stores')) == ['shard-0.sqlite', 'shard-1.sqlite', 'shard-2.sqlite']
    ranked = sum(json.loads(mqa('report', 'fleet', '--db', str(out / 'stores' / s), '--format', 'json'))['meetings']
                 for s in os.listdir(out / 'stores'))
    assert ranked == fleet['meetings']


def assert_pages_are_one_stores(out, fleet):
    """The job's meeting and track pages are the ones `mqa report meeting
    --all` writes from one store, byte for byte, and its staging folder is
    gone."""
    one = fleet['base'] / 'one-html'
    if not one.exists():
        mqa('report', 'meeting', '--all', '--db', str(fleet['base'] / 'one.sqlite'), '--format', 'html',
            '--out', str(one))
    got = sorted(str(p.relative_to(out / 'meetings')) for p in (out / 'meetings').rglob('*.html'))
    assert got and 'index.html' in got
    for name in got:
        if name != 'index.html':
            assert (out / 'meetings' / name).read_bytes() == (one / name).read_bytes(), name
    assert not (out / mqa_spark.HTML_STAGE).exists()


def test_one_shard_equals_one_store(fleet):
    """Its one shard acts as an executor apart from the driver's disk: the
    pages travel back compressed with its result."""
    out = fleet['base'] / 'out1'
    run_job(fleet, out, 1, env={'MQA_SPARK_FAULT': 'apart:0'})
    assert [s['pages'] for s in json.loads((out / 'timings.json').read_text())['shards']] == ['sent']
    assert (out / 'fleet.json').read_text() == fleet['fleet']
    assert (out / 'tune.json').read_text() == fleet['tune']
    assert_cohorts_equal_one_store(out, fleet)
    assert_pages_are_one_stores(out, fleet)


def test_the_jobs_config_reaches_the_cohorts(fleet):
    """--config: the fleet and the cohorts are one store's under it (the
    shards' partials carry it to the merge); the reports say so."""
    config = fleet['base'] / 'strict.json'
    config.write_text('{"thresholds": [4.4, 4.2, 4.0, 3.8], "coldStartMs": 8000}')
    out = fleet['base'] / 'out-config'
    run_job(fleet, out, 2, extra=['--config', str(config)])
    one = ['--db', fleet['one'], '--config', str(config), '--format', 'json']
    assert (out / 'fleet.json').read_text() == mqa('report', 'fleet', *one)
    strict = mqa('report', 'cohorts', '--by', 'sdkVersion', *one)
    assert (out / 'cohorts' / 'sdkVersion.json').read_text() == strict
    assert json.loads(strict)['config']['coldStartMs'] == 8000
    assert strict != fleet['cohorts']['sdkVersion']
    assert (out / 'trends.json').read_text() == mqa('report', 'trends', *one)
    # The config is the sweep's base, as for one store's `mqa tune --config`.
    assert (out / 'tune.json').read_text() == mqa('tune', '--grid', str(fleet['base'] / 'grid.json'), *one)


def test_read_through_hadoop_equals_one_store(fleet):
    """The cluster way of reading (sc.binaryFiles, as for hdfs: or s3a:)."""
    out = fleet['base'] / 'out2'
    run_job(fleet, out, 2, env={'MQA_SPARK_FAULT': 'raise:0'}, extra=['--hadoop-read'])
    assert (out / 'fleet.json').read_text() == fleet['fleet']
    assert (out / 'tune.json').read_text() == fleet['tune']
    assert json.loads((out / 'ingest.json').read_text()) == fleet['summary']


@pytest.fixture(scope='module')
def spark():
    """A local Spark session of the test's own, to read what the job wrote."""
    from pyspark.sql import SparkSession
    session = (SparkSession.builder.master('local[1]').appName('mqa-spark-test')
               .config('spark.ui.enabled', 'false').getOrCreate())
    session.sparkContext.setLogLevel('ERROR')
    yield session
    session.stop()


def test_the_tables_read_back_as_the_reports(fleet, spark):
    """fleet.parquet, cohorts.parquet and trends.parquet are Parquet that
    Spark reads, holding the figures of the JSON reports beside them."""
    out = fleet['base'] / 'out3'
    if not (out / 'cohorts.parquet').exists():
        run_job(fleet, out, 3)
    ranked = json.loads(fleet['fleet'])['ranked']
    rows = spark.read.parquet(str(out / 'fleet.parquet')).orderBy('rank').collect()
    assert [r['meeting'] for r in rows] == [e['meeting'] for e in ranked]
    assert [r['platforms'] for r in rows] == [e['platforms'] for e in ranked]

    cohorts = spark.read.parquet(str(out / 'cohorts.parquet'))
    assert sorted({r['by'] for r in cohorts.select('by').collect()}) == sorted(mqa_spark.COHORT_FIELDS)
    sdk = json.loads(fleet['cohorts']['sdkVersion'])
    got = cohorts.where("by = 'sdkVersion'").orderBy('rank').collect()  # nulls (unknown) first
    want = ([sdk['unknown']] if sdk['unknown']['participants'] else []) + sdk['cohorts']
    assert [r['value'] for r in got] == [c['value'] for c in want]
    for r, c in zip(got, want):
        assert r['participants'] == c['participants'] and r['stalledMs'] == c['stalledMs']
        assert r['stallRate'] == c['stallRate'] and r['insufficient'] == c['insufficient']
        assert [r['stallRateLow'], r['stallRateHigh']] == (c['stallRateCI'] or [None, None])
    assert got[1]['rank'] == 1 and got[0]['rank'] is None

    trends = spark.read.parquet(str(out / 'trends.parquet'))
    whole = json.loads(fleet['trends'])['periods']
    rows = trends.where('by IS NULL').orderBy('start').collect()
    assert [(r['period'], r['participants'], r['mosP50']) for r in rows] == \
        [(p['period'], p['participants'], p['mosP50']) for p in whole]
    by_net = json.loads(fleet['trendsByNet'])['periods']
    assert trends.where("by = 'netType'").count() == len(by_net)
    assert {r['every'] for r in trends.select('every').collect()} == {'day'}


def test_render_reproduces_mqa_json(fleet):
    for text in (fleet['fleet'], fleet['tune'], fleet['cohorts']['sdkVersion'], fleet['trends']):
        assert mqa_spark.render(mqa_spark.load_json(text)) + '\n' == text


def test_pages_are_staged_only_where_the_drivers_token_is_read(tmp_path, monkeypatch):
    stage = tmp_path / mqa_spark.HTML_STAGE
    stage.mkdir()
    (stage / 'job').write_text('token-1')
    settings = {'htmlStage': str(stage), 'htmlToken': 'token-1'}
    assert mqa_spark.html_stage(settings, 0, 'a') == str(stage / 'a') and (stage / 'a').is_dir()
    # Another job's token, no token file, no stage: the pages go by value.
    assert mqa_spark.html_stage(dict(settings, htmlToken='token-2'), 0, 'b') is None
    assert mqa_spark.html_stage(dict(settings, htmlStage=str(tmp_path / 'elsewhere')), 0, 'c') is None
    assert mqa_spark.html_stage({}, 0, 'd') is None
    # A folder it cannot make (here: one that is there already) sends too.
    assert mqa_spark.html_stage(settings, 0, 'a') is None
    monkeypatch.setenv('MQA_SPARK_FAULT', 'apart:1')
    assert mqa_spark.html_stage(settings, 1, 'e') is None
    assert mqa_spark.html_stage(settings, 0, 'f') == str(stage / 'f')
    assert not (stage / 'b').exists() and not (stage / 'e').exists()


def test_a_page_that_cannot_be_renamed_is_copied_whole(tmp_path, monkeypatch):
    source, dest = tmp_path / 'staged.html', tmp_path / 'page.html'
    source.write_bytes(b'<html>page</html>')
    real = os.replace

    def refuse_first(a, b):  # as across file systems (EXDEV)
        if str(a) == str(source):
            raise OSError(18, 'Invalid cross-device link')
        return real(a, b)

    monkeypatch.setattr(mqa_spark.os, 'replace', refuse_first)
    mqa_spark.move_page(str(source), str(dest))
    assert dest.read_bytes() == b'<html>page</html>' and not (tmp_path / 'page.html.part').exists()


def _alive(pid):
    """Running (a zombie waiting for a reaper counts as gone)."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except FileNotFoundError:
        return False


def _orphan_after_worker_dies(tmp_path, call, wait):
    """Starts a Python worker whose `call` runs a stand-in mqa (it writes
    its pid, then sleeps), kills the worker with SIGKILL as an executor
    dies, and returns whether the stand-in still runs `wait` seconds later."""
    import signal
    import time
    fake, pidfile = tmp_path / 'fake-mqa', tmp_path / 'child.pid'
    fake.write_text('#!/bin/sh\necho $$ > "$1"\nexec sleep 30\n')
    fake.chmod(0o755)
    if pidfile.exists():
        pidfile.unlink()
    code = ('import subprocess, sys; sys.path.insert(0, %r); import mqa_spark\n' % os.path.join(ROOT, 'Spark')
            + call % {'fake': str(fake), 'pidfile': str(pidfile)})
    worker = subprocess.Popen([sys.executable, '-c', code])

    def started():
        return pidfile.exists() and pidfile.read_text().strip()

    deadline = time.time() + 20
    while not started() and time.time() < deadline:
        time.sleep(0.05)
    if not started():
        worker.kill()
        worker.wait()
        pytest.fail('the stand-in mqa never started (no pid in %s within 20 s)' % pidfile)
    child = int(pidfile.read_text())
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait()
    deadline = time.time() + wait
    while _alive(child) and time.time() < deadline:
        time.sleep(0.05)
    alive = _alive(child)
    if alive:
        os.kill(child, signal.SIGKILL)
    return alive


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='prctl(PR_SET_PDEATHSIG) is Linux only')
def test_a_killed_workers_mqa_dies_with_it(tmp_path):
    assert not _orphan_after_worker_dies(tmp_path, 'mqa_spark.run_mqa(%(fake)r, [%(pidfile)r])', wait=5)
    # The control: started without the hook, the same child outlives its worker.
    assert _orphan_after_worker_dies(tmp_path, 'subprocess.run([%(fake)r, %(pidfile)r])', wait=1)


def test_split_keeps_each_meeting_whole():
    lines = [b'junk', b'{"meeting":"a","x":1}', b'{"meeting":"b"}', b'', b'{"x":2}',
             b'{"meeting":"a","n":{"meeting":"z"}}', b'{"me\\u0065ting":"b"}']
    parts = mqa_spark.split_file('f.ndjson', b'\n'.join(lines) + b'\n', order=3, shards=8)
    assert [p[1] for p in parts] == ['000000003-000/f.ndjson', '000000003-001/f.ndjson']
    a = parts[0][2].split(b'\n')
    assert a[:4] == [b'junk', b'{"meeting":"a","x":1}', b'', b'{"x":2}']
    assert a[4] == b'{"meeting":"a","n":{"meeting":"z"}}'
    assert parts[0][0] == mqa_spark.shard_of_meeting('a', 8)
    assert parts[1][2].split(b'\n')[:2] == [b'{"meeting":"b"}', b'{"me\\u0065ting":"b"}']
    # A file of one meeting, or of none, goes whole under its own name.
    whole = mqa_spark.split_file('g.ndjson', b'{"meeting":"a"}\nx\n', order=1, shards=8)
    assert whole == [(mqa_spark.shard_of_meeting('a', 8), '000000001-000/g.ndjson', b'{"meeting":"a"}\nx\n')]
    # A file naming no meeting (a stats dump, or one mqa rejects) goes to
    # shard 0, so that two dumps of one room meet there.
    assert mqa_spark.split_file('h', b'x\n', 2, 8) == [(0, '000000002-000/h', b'x\n')]


def test_a_whole_local_file_goes_by_reference_and_is_checked_when_copied(tmp_path):
    import pickle
    src = tmp_path / 'g.ndjson'
    src.write_bytes(b'{"meeting":"a"}\nx\n')
    ref = mqa_spark.LocalFile(str(src), mqa_spark.file_digest(str(src)))
    # Whole files carry the reference; a file of several meetings is still cut into bytes.
    whole = mqa_spark.split_file(str(src), src.read_bytes(), order=1, shards=8, whole=ref)
    assert whole == [(mqa_spark.shard_of_meeting('a', 8), '000000001-000/g.ndjson', ref)]
    two = mqa_spark.split_file('m', b'{"meeting":"a"}\n{"meeting":"b"}\n', 2, 8, whole=ref)
    assert [type(p[2]) for p in two] == [bytes, bytes]
    # Through the shuffle (pickled) and copied: the same bytes.
    back = pickle.loads(pickle.dumps(ref))
    assert isinstance(back, mqa_spark.LocalFile) and back == ref
    back.copy_to(str(tmp_path / 'copy'))
    assert (tmp_path / 'copy').read_bytes() == src.read_bytes()
    # Changed after it was listed and routed: the shard refuses it.
    src.write_bytes(b'{"meeting":"b"}\n')
    with pytest.raises(RuntimeError, match='changed while the job ran'):
        back.copy_to(str(tmp_path / 'copy2'))


def test_the_one_meeting_shortcut_routes_as_line_by_line():
    # Random files from the cases that matter: nested and non-string
    # meetings, junk, other keys, spacing, escapes, a second meeting.
    import random
    rng = random.Random(7)
    kinds = [b'{"meeting":"a","x":1}', b'{"meeting" : "a"}', b'{"x":{"meeting":"a"}}', b'{"meeting":"a","n":{"meeting":"a"}}',
             b'junk', b'', b'{"meeting":5}', b'{"title":"meeting"}', b'{"meeting":"b"}', b'{"x":{"meeting":"z"},"meeting":"a"}',
             b'{"me\\u0065ting":"a"}', b'{"meeting":"\xff"}', b'{"meeting":\n"a"}', b'{"meeting":"\xc3\xa9"}',
             b'{"meeting":"\\u00e9","t":"x\\"meeting\\":\\"a"}', b'{"t":"\\"meeting\\":\\"b\\""}', b'{"me\\u0065ting":"b"}',
             b'{"n":{"meeting":"a"},"meeting":5}', b'{"x":"\\u00e9","n":{"meeting":"a"},"meeting":5}',
             b'{"meeting":"a","title":"say \\"hi\\""}', b'{"meeting":"\\u0061"}', b'{"title":"tab\\there","meeting":"a"}',
             b'{"t":"\\\\","n":{"meeting":"b"}}', b'{"meeting":"a"}\r', b'{"t":"x\\"}',
             # UTF-16 that json.loads would decode as such, naming "b" in
             # bytes the regex cannot see: mqa reads it as a bad line.
             '{"meeting":"b","x":"\u656d\u7465\u6e69\u4e67"}'.encode('utf-16-le')]
    shortcut = escaped = 0
    for _ in range(6000):
        pool = rng.sample(kinds, 5)
        text = b'\n'.join(rng.choice(pool) for _ in range(rng.randint(1, 6))) + rng.choice([b'\n', b''])
        only = mqa_spark.only_meeting(text)
        if only is None:
            continue
        shortcut += 1
        escaped += b'\\' in text
        lines = text.split(b'\n')
        if lines[-1] == b'':
            lines.pop()
        assert mqa_spark.group_by_meeting(text) == ({only: lines}, only), text
    assert shortcut > 600 and escaped > 200, (shortcut, escaped)


def test_a_text_of_many_escaped_lines_goes_line_by_line():
    line = b'{"meeting":"a","title":"say \\"hi\\""}'
    few = b'\n'.join([line] * mqa_spark.ESCAPED_LINES_MAX) + b'\n'
    many = b'\n'.join([line] * (mqa_spark.ESCAPED_LINES_MAX + 1)) + b'\n'
    assert mqa_spark.only_meeting(few) == 'a'
    assert mqa_spark.only_meeting(many) is None
    assert mqa_spark.group_by_meeting(many)[1] == 'a'
    plain, esc = mqa_spark.lines_with_backslash(b'{"a":1}\n' + line + b'\n{"b":2}\n' + line)
    assert plain == b'{"a":1}\n{"b":2}\n' and esc == [line, line]


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


# ---------------------------------------------------------------------------
# Compressed logs go by their meeting, not their name (a meeting whose
# clients upload one plain and one .gz log must land in one shard).

SHARED = [b'{"meeting":"m-shared","uid":"u1","ts":1}', b'not json', b'{"meeting":"m-shared","uid":"u1","ts":2}']
OTHER = [b'{"meeting":"m-other","uid":"u9","ts":1}']


def zstd_bytes(data, skippable=False):
    z = subprocess.run(['zstd', '-c', '-q'], input=data, stdout=subprocess.PIPE, check=True).stdout
    if skippable:  # a skippable frame first (magic 0x184D2A53 little-endian, 4-byte size, payload)
        z = b'\x53\x2a\x4d\x18' + (3).to_bytes(4, 'little') + b'abc' + z
    return z


def shard_of_name(path, shards):
    """The shard a route by file name would pick: what the compressed tests
    make sure is not the meeting's, so that such a route would show."""
    return mqa_spark.stable_hash('file:' + path) % shards


def name_routed_elsewhere(name, meeting, shards):
    """A file name whose name-route differs from its meeting's route, so
    that routing a compressed file by its name would fail the test."""
    for i in range(100):
        candidate = '%d-%s' % (i, name)
        if shard_of_name(candidate, shards) != mqa_spark.shard_of_meeting(meeting, shards):
            return candidate
    raise AssertionError('no name found')


def test_compression_is_told_by_the_first_bytes():
    plain = b'\n'.join(SHARED) + b'\n'
    assert mqa_spark.compression_of(plain) is None
    assert mqa_spark.compression_of(gzip.compress(plain)) == 'gzip'
    assert mqa_spark.compression_of(zstd_bytes(plain)) == 'zstd'
    assert mqa_spark.compression_of(zstd_bytes(plain, skippable=True)) == 'zstd'
    assert mqa_spark.compression_of(b'\x1f') is None and mqa_spark.compression_of(b'') is None
    # A plain file named .gz is plain: split as text, routed by its meeting.
    name = name_routed_elsewhere('lies.gz', 'm-shared', 8)
    assert mqa_spark.split_file(name, plain, 1, 8) == [
        (mqa_spark.shard_of_meeting('m-shared', 8), '000000001-000/' + name, plain)]


@pytest.mark.parametrize('kind', ['gzip', 'zstd', 'zstd-skippable'])
def test_a_compressed_file_of_one_meeting_goes_whole_to_its_meeting(kind):
    plain = b'\n'.join(SHARED) + b'\n'
    data = gzip.compress(plain) if kind == 'gzip' else zstd_bytes(plain, skippable=kind == 'zstd-skippable')
    name = name_routed_elsewhere('client.log', 'm-shared', 8)  # no telling extension
    assert mqa_spark.split_file(name, data, 5, 8) == [
        (mqa_spark.shard_of_meeting('m-shared', 8), '000000005-000/' + name, data)]


@pytest.mark.parametrize('kind', ['gzip', 'zstd'])
def test_a_compressed_file_of_several_meetings_is_split_like_a_plain_one(kind):
    plain = b'\n'.join(SHARED[:2] + OTHER + SHARED[2:]) + b'\n'
    data = gzip.compress(plain) if kind == 'gzip' else zstd_bytes(plain)
    ext = '.gz' if kind == 'gzip' else '.zst'
    parts = mqa_spark.split_file('both.ndjson' + ext, data, 2, 8)
    # The same pieces as the plain file's, plain, named without the extension.
    assert parts == mqa_spark.split_file('both.ndjson', plain, 2, 8)
    assert [p[1] for p in parts] == ['000000002-000/both.ndjson', '000000002-001/both.ndjson']
    assert [p[0] for p in parts] == [mqa_spark.shard_of_meeting(m, 8) for m in ('m-shared', 'm-other')]


def test_a_damaged_compressed_file_goes_whole_by_its_first_meeting():
    plain = b'\n'.join((SHARED + OTHER) * 200) + b'\n'
    data = gzip.compress(plain)[:-40]  # truncated: mqa reports it; no piece may hide that
    name = name_routed_elsewhere('cut.gz', 'm-shared', 8)
    assert mqa_spark.split_file(name, data, 3, 8) == [
        (mqa_spark.shard_of_meeting('m-shared', 8), '000000003-000/' + name, data)]


@pytest.fixture(scope='module')
def compressed_fleet(tmp_path_factory):
    """A fleet where one meeting's clients upload one plain, one gzip and
    one zstd log (names that do not say so), and one gzip file holds two
    other meetings' clients."""
    base = tmp_path_factory.mktemp('compressed')
    logs = base / 'logs'
    mqa('simulate', '--meetings', '6', '--seed', '11', '--out', str(logs))
    meetings = sorted(os.listdir(logs))
    shared = next(m for m in meetings if len(os.listdir(logs / m)) >= 3)
    clients = sorted(os.listdir(logs / shared))
    gz, zst = logs / shared / clients[1], logs / shared / clients[2]
    gz.write_bytes(gzip.compress(gz.read_bytes()))
    zst.write_bytes(zstd_bytes(zst.read_bytes()))
    a, b = [m for m in meetings if m != shared][:2]
    two = sorted(os.listdir(logs / a))[0], sorted(os.listdir(logs / b))[0]
    both = (logs / a / two[0]).read_bytes() + (logs / b / two[1]).read_bytes()
    (logs / a / two[0]).unlink()
    (logs / b / two[1]).unlink()
    (logs / 'two-meetings.ndjson').write_bytes(gzip.compress(both))
    (base / 'grid.json').write_text(GRID)
    # Enough shards that routing the gzip and zstd files by name would put
    # one of them away from the plain one.
    shards = next(n for n in range(3, 40)
                  if {shard_of_name('file:' + str(p), n) for p in (gz, zst)}
                  != {mqa_spark.shard_of_meeting(shared, n)})
    one = str(base / 'one.sqlite')
    totals = ('files', 'skippedFiles', 'failedFiles', 'lines', 'events', 'reports', 'rejected', 'duplicates', 'ignored')
    summary = json.loads(mqa('ingest', '--db', one, '--format', 'json', *input_files(logs), ok=(0, 3)))
    return {
        'base': base, 'logs': logs, 'shards': shards, 'shared': shared,
        'summary': {k: summary[k] for k in totals},
        'fleet': mqa('report', 'fleet', '--db', one, '--format', 'json'),
        'tune': mqa('tune', '--db', one, '--grid', str(base / 'grid.json'), '--format', 'json'),
    }


def test_compressed_logs_of_one_meeting_land_in_one_shard(compressed_fleet):
    out = compressed_fleet['base'] / 'out'
    r = run_job(compressed_fleet, out, compressed_fleet['shards'])
    assert b'two shards' not in r.stderr
    assert (out / 'fleet.json').read_text() == compressed_fleet['fleet']
    assert (out / 'tune.json').read_text() == compressed_fleet['tune']
    assert json.loads((out / 'ingest.json').read_text()) == compressed_fleet['summary']
    ranked = json.loads((out / 'fleet.json').read_text())['ranked']
    assert compressed_fleet['shared'] in [e['meeting'] for e in ranked]


def test_a_shard_of_garbage_alone_equals_one_store(tmp_path):
    """A shard that gets nothing but rejected lines stores no meeting; the
    job still counts its lines and reports the others as one store does."""
    logs = tmp_path / 'logs'
    mqa('simulate', '--meetings', '2', '--seed', '3', '--out', str(logs))
    garbage = logs / 'garbage.ndjson'
    garbage.write_bytes(b'hello\n{"x": 1}\n')
    meetings = sorted(p.name for p in logs.iterdir() if p.is_dir())
    # A gzip copy of a log is a repeat for mqa (decompressed content), so
    # for the job too: before, its lines were all counted again.
    first = sorted((logs / meetings[0]).iterdir())[0]
    (logs / 'copy.ndjson.gz').write_bytes(gzip.compress(first.read_bytes()))
    shards = next(n for n in range(2, 40) if 0 not in {mqa_spark.shard_of_meeting(m, n) for m in meetings})
    (tmp_path / 'grid.json').write_text(GRID)
    one = str(tmp_path / 'one.sqlite')
    totals = ('files', 'skippedFiles', 'failedFiles', 'lines', 'events', 'reports', 'rejected', 'duplicates', 'ignored')
    summary = json.loads(mqa('ingest', '--db', one, '--format', 'json', *input_files(logs), ok=(0, 3)))
    case = {'base': tmp_path, 'logs': logs}
    out = tmp_path / 'out'
    # What an earlier run into this folder left: removed, never kept beside this run's.
    out.mkdir()
    (out / 'trends-by-device.json').write_text('{"stale": true}\n')
    run_job(case, out, shards)
    assert not (out / 'trends-by-device.json').exists()
    assert summary['skippedFiles'] == 1
    assert (out / 'fleet.json').read_text() == mqa('report', 'fleet', '--db', one, '--format', 'json')
    assert (out / 'tune.json').read_text() == mqa('tune', '--db', one, '--grid', str(tmp_path / 'grid.json'),
                                                  '--format', 'json')
    assert json.loads((out / 'ingest.json').read_text()) == {k: summary[k] for k in totals}
    assert summary['rejected'] == 2
    # The rejected lines themselves, named by their original file, as one
    # store's `mqa query rejects` lists them.
    rejects = json.loads((out / 'rejects.json').read_text())
    one_rejects = json.loads(mqa('query', 'rejects', '--db', one, '--format', 'json'))['rows']
    assert rejects['rejected'] == 2
    assert [(r['file'], r['line'], r['reason']) for r in rejects['rows']] == \
        [(r['file'], r['line'], r['reason']) for r in one_rejects]


def test_cohort_options_name_known_fields():
    a = mqa_spark.parse_args(['--logs', 'x', '--out', 'y', '--trends-by', ''])
    assert a.cohort_fields == mqa_spark.COHORT_FIELDS and a.trend_fields == []
    a = mqa_spark.parse_args(['--logs', 'x', '--out', 'y', '--cohorts', 'sdkVersion, netType', '--every', 'week'])
    assert a.cohort_fields == ['sdkVersion', 'netType'] and a.trend_fields == ['netType'] and a.every == 'week'
    with pytest.raises(SystemExit):
        mqa_spark.parse_args(['--logs', 'x', '--out', 'y', '--cohorts', 'sdk'])


def test_parquet_rows_flatten_the_cohort_objects():
    figures = {'participants': 3, 'meetings': 2, 'watchedMs': 10, 'stalledMs': 1, 'stallRate': 0.1,
               'stallRateCI': [0.05, None], 'lowTierShare': None, 'lowTierShareCI': None, 'mosP50': 4.2,
               'abnormalDisconnectRate': 0, 'abnormalDisconnectRateCI': [0, 0.5], 'firstFrameP90Ms': None,
               'insufficient': True, 'subscriptions': 4, 'neverRendered': 1, 'neverRenderedShare': 0.25,
               'neverRenderedShareCI': [0.1, 0.4]}
    doc = {'by': 'netType', 'cohorts': [dict(figures, value='wifi')], 'unknown': dict(figures, value=None)}
    rows = mqa_spark.cohort_rows([doc])
    assert [r[:3] for r in rows] == [['netType', 1, 'wifi'], ['netType', None, None]]
    assert rows[0][3:] == [3, 2, 10, 1, 0.1, 0.05, None, None, None, None, 4.2, 0.0, 0.0, 0.5, None, True,
                           4, 1, 0.25, 0.1, 0.4]
    trend = {'every': 'day', 'by': None, 'periods': [dict(figures, period='2026-11-02', start=1)]}
    assert mqa_spark.trend_rows([trend])[0][:5] == ['day', None, '2026-11-02', 1, None]


def test_a_lone_surrogate_in_a_meeting_id_routes_as_mqa_reads_it():
    # mqa reads "m\ud83c" (half an emoji) and "m\udc00" as "m\ufffd": one
    # meeting, in one shard (json.loads kept three ids, and the merge
    # stopped on "meeting 'm…' is in two shards").
    lines = [b'{"ts":1,"event":"meeting_join","meeting":"m\\ud83c","uid":"a","engine":"sfu"}',
             b'{"ts":1,"event":"meeting_join","meeting":"m\\udc00","uid":"b","engine":"sfu"}',
             b'{"ts":1,"event":"meeting_join","meeting":"m\\ufffd","uid":"c","engine":"sfu"}']
    assert {mqa_spark.meeting_of(line) for line in lines} == {'m\ufffd'}
    # A pair stays the one character it is.
    assert mqa_spark.meeting_of(b'{"meeting":"m\\ud83c\\udfa7"}') == 'm\U0001F3A7'
    assert mqa_spark.safe_file_name('m\ufffd', 'html').endswith('.html')


def test_a_dump_line_names_no_meeting_and_a_file_with_them_is_cut_as_mqa_reads_it():
    """mqa tells a dump from an event log by a file's first lines; the first
    piece of a cut file gets every line that names no meeting, so stray dump
    lines could make it vote otherwise than the whole file (a meeting lost,
    or one invented). Such a file is asked of mqa whole."""
    dump = b'["getstats","PC_0",{"meeting":"nested"},1]'
    assert mqa_spark.meeting_of(dump) is None
    assert mqa_spark.meeting_of(b'\xef\xbb\xbf  ' + dump) is None
    events = [b'{"ts":1,"event":"meeting_join","meeting":"a","uid":"u"}',
              b'{"ts":2,"event":"meeting_join","meeting":"b","uid":"v"}'] * 3
    app_log = b'\n'.join(events[:2] + [dump] * 3 + events[2:]) + b'\n'
    assert mqa_spark.sniff_format(MQA, app_log) == 'events'
    asked = []

    def sniff(text):
        asked.append(text)
        return mqa_spark.sniff_format(MQA, text)
    parts = mqa_spark.split_file('app.ndjson', app_log, order=5, shards=8, sniff=sniff)
    assert [p[1] for p in parts] == ['000000005-000-events/app.ndjson', '000000005-001-events/app.ndjson']
    assert mqa_spark.ingest_runs(sorted(['000000004-000/x', '000000005-000-events/app.ndjson',
                                         '000000005-001-events/app.ndjson', '000000006-000/y'])) == [
        (None, ['000000004-000/x']), ('events', ['000000005-000-events/app.ndjson', '000000005-001-events/app.ndjson']),
        (None, ['000000006-000/y'])]
    # A dump whose app also logged two meetings' event lines: mqa reads it
    # as a dump (its event lines rejected), so it goes whole, as dumps go.
    dump_file = b'\n'.join([dump] * 3 + events[:2]) + b'\n'
    assert mqa_spark.sniff_format(MQA, dump_file) == 'rtcstats'
    assert mqa_spark.split_file('d.log', dump_file, 7, 8, sniff=sniff) == [(0, '000000007-000/d.log', dump_file)]
    # A file of event lines only is never asked.
    asked.clear()
    plain = b'\n'.join(events) + b'\n'
    assert len(mqa_spark.split_file('p.ndjson', plain, 8, 8, sniff=sniff)) == 2 and not asked
    assert mqa_spark.place_of('000000005-001-events') == (5, 1)


def test_unreadable_inputs_fail_the_job_as_one_ingest_but_all_else_is_done(tmp_path):
    """An input mqa cannot read (a truncated gzip, a dangling link, a name
    that is not UTF-8) fails it with exit 1 after storing the others; the
    job did not read past it before (each shard failed four times)."""
    logs = tmp_path / 'logs'
    mqa('simulate', '--meetings', '2', '--seed', '5', '--out', str(logs))
    meetings = sorted(p.name for p in logs.iterdir() if p.is_dir())
    first = sorted((logs / meetings[0]).iterdir())[0]
    (logs / 'cut.ndjson.gz').write_bytes(gzip.compress(first.read_bytes())[:-40])
    # A byte copy of a damaged file is read (and fails) again: mqa keeps no
    # complete record of the first to skip it by.
    (logs / 'cut2.ndjson.gz').write_bytes((logs / 'cut.ndjson.gz').read_bytes())
    (logs / 'gone.ndjson').symlink_to(tmp_path / 'nowhere')
    (logs / b'caf\xe9.ndjson'.decode('utf-8', 'surrogateescape')).write_bytes(first.read_bytes())
    readable = [p for p in input_files(logs) if os.path.exists(p) and mqa_spark.is_utf8(p)]
    one = str(tmp_path / 'one.sqlite')
    summary = json.loads(mqa('ingest', '--db', one, '--format', 'json', *readable, ok=(1,)))
    (tmp_path / 'grid.json').write_text(GRID)
    out = tmp_path / 'out'
    e = dict(os.environ, MQA_BIN=MQA)
    r = subprocess.run(['bash', os.path.join(ROOT, 'Scripts', 'spark-fleet.sh'), '--logs', str(logs), '--out', str(out),
                        '--shards', '2'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, timeout=600)
    printed = r.stdout.decode(errors='replace') + r.stderr.decode(errors='replace')
    assert r.returncode == 1, printed[-3000:]
    assert '4 inputs could not be read' in printed
    got = json.loads((out / 'ingest.json').read_text())
    totals = ('skippedFiles', 'lines', 'events', 'reports', 'rejected', 'duplicates', 'ignored')
    assert {k: got[k] for k in totals} == {k: summary[k] for k in totals}
    assert got['files'] == summary['files'] and got['failedFiles'] == summary['failedFiles'] + 2
    assert sorted(os.path.basename(f['file']) for f in got['failed']) == \
        ['caf\udce9.ndjson', 'cut.ndjson.gz', 'cut2.ndjson.gz', 'gone.ndjson']
    assert (out / 'fleet.json').read_text() == mqa('report', 'fleet', '--db', one, '--format', 'json')


def test_a_shard_of_unreadable_inputs_alone_is_counted_not_fatal(tmp_path):
    """When no input of a shard's ingest can be read, mqa makes no store and
    prints no summary: the job counts the inputs as failed and goes on
    (before: the shard failed four times and the job with it)."""
    logs = tmp_path / 'logs'
    mqa('simulate', '--meetings', '3', '--seed', '21', '--out', str(logs))
    meetings = sorted(p.name for p in logs.iterdir() if p.is_dir())
    alone = next(m for m in meetings if {mqa_spark.shard_of_meeting(x, 2) for x in meetings if x != m}
                 == {1 - mqa_spark.shard_of_meeting(m, 2)})
    first = sorted((logs / alone).iterdir())[0]
    data = first.read_bytes()
    for f in (logs / alone).iterdir():
        f.unlink()
    packed = gzip.compress(data)
    (logs / alone / 'cut.ndjson.gz').write_bytes(packed[:len(packed) // 2])
    one = str(tmp_path / 'one.sqlite')
    summary = json.loads(mqa('ingest', '--db', one, '--format', 'json', *input_files(logs), ok=(1,)))
    out = tmp_path / 'out'
    r = subprocess.run(['bash', os.path.join(ROOT, 'Scripts', 'spark-fleet.sh'), '--logs', str(logs), '--out', str(out),
                        '--shards', '2'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, MQA_BIN=MQA), timeout=600)
    assert r.returncode == 1, (r.stdout.decode() + r.stderr.decode())[-3000:]
    got = json.loads((out / 'ingest.json').read_text())
    totals = ('files', 'skippedFiles', 'failedFiles', 'lines', 'events', 'reports', 'rejected', 'duplicates', 'ignored')
    assert {k: got[k] for k in totals} == {k: summary[k] for k in totals}
    assert (out / 'fleet.json').read_text() == mqa('report', 'fleet', '--db', one, '--format', 'json')


def test_a_bad_config_stops_the_job_before_anything_runs(tmp_path):
    """A config, grid or bootstrap option mqa refuses is a usage error
    (64), found on the driver in seconds; an earlier run's outputs stay."""
    logs = tmp_path / 'logs'
    mqa('simulate', '--meetings', '1', '--seed', '5', '--out', str(logs))
    out = tmp_path / 'out'
    out.mkdir()
    (out / 'fleet.json').write_text('{"earlier": true}\n')
    (tmp_path / 'bad.json').write_text('{"alphaUp": 0}')
    e = dict(os.environ, MQA_BIN=MQA)
    for extra, said in [(['--config', str(tmp_path / 'bad.json')], 'bad.json: config key "alphaUp"'),
                        (['--grid', str(tmp_path / 'none.json')], 'none.json: cannot read it'),
                        (['--replicates', '50'], "'--replicates' must be"),
                        (['--top', '0'], '--top must be >= 1'),
                        (['--lead-ms', '5000'], 'they need --grid')]:
        r = subprocess.run(['bash', os.path.join(ROOT, 'Scripts', 'spark-fleet.sh'), '--logs', str(logs),
                            '--out', str(out), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, timeout=600)
        printed = r.stdout.decode() + r.stderr.decode()
        assert r.returncode == 64 and said in printed, printed[-3000:]
        assert 'Traceback' not in printed
    assert (out / 'fleet.json').read_text() == '{"earlier": true}\n'


def test_the_index_links_every_page_when_top_ranks_fewer(tmp_path):
    fleet = {'meetings': 3, 'score': 's', 'ranked': [
        {'rank': 1, 'meeting': 'm1', 'title': None, 'platforms': {}, 'sdkVersions': {}, 'score': 1.0,
         'stalledMs': 0, 'lowTierMs': 0, 'abnormalDisconnects': 0}]}
    written = {mqa_spark.safe_file_name(m, 'html') for m in ('m1', 'm2', 'm3')} | {'tracks/t.html'}
    mqa_spark.write_index(str(tmp_path), fleet, written)
    page = (tmp_path / 'index.html').read_text()
    for m in ('m1', 'm2', 'm3'):
        assert 'href="%s"' % mqa_spark.safe_file_name(m, 'html') in page
    assert 'tracks/t.html' not in page


FIXTURE_DUMP = os.path.join(ROOT, 'Tests', 'MQADomainTests', 'Fixtures', 'rtcstats-single-connection.log')


def dumps_of_two_rooms(folder):
    """Three rtcstats dumps: ann and ben in room Fixture (one meeting,
    rtc-Fixture), cat in room Other. Each differs in its user agent, so no
    two are one content."""
    data = open(FIXTURE_DUMP, 'rb').read()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / 'ann.log').write_bytes(data)
    (folder / 'ben.log.gz').write_bytes(gzip.compress(data.replace(b'Chrome/126', b'Chrome/127')))
    (folder / 'cat.log').write_bytes(data.replace(b'/Fixture', b'/Other').replace(b'Chrome/126', b'Chrome/128'))
    return folder


def test_a_dump_goes_to_the_shard_of_the_meeting_mqa_makes_of_it(tmp_path):
    """Every dump once went to shard 0: a fleet of dumps ran on one core.
    mqa names a dump's meeting (its room, else its file name), so the job
    asks it, and the dump goes where that meeting's events go."""
    folder = dumps_of_two_rooms(tmp_path / 'd')
    data = (folder / 'ann.log').read_bytes()
    assert mqa_spark.dump_meeting(MQA, 'ann.log', data) == 'rtc-Fixture'
    assert mqa_spark.dump_meeting(MQA, 'cat.log', (folder / 'cat.log').read_bytes()) == 'rtc-Other'
    # Compressed as it came: mqa reads it by its bytes, as the shard will.
    assert mqa_spark.dump_meeting(MQA, 'ben.log.gz', (folder / 'ben.log.gz').read_bytes()) == 'rtc-Fixture'
    # Nothing mqa can store: no meeting, shard 0 as before.
    assert mqa_spark.dump_meeting(MQA, 'x.log', b'["getstats"\n') is None
    # Dumps mqa cannot read are no meeting, not an error: the shard fails
    # them as one box does (exit 1, the rest stored).
    for bad in (b'RTCStatsDump\n{"fileFormat":9}\n', b'RTCStatsDump\n', gzip.compress(data)[:200],
                b'{"PeerConnections": {"1-1": ', b'\x00\x01\n[\xff\xfe\n'):
        assert mqa_spark.dump_meeting(MQA, 'bad.log', bad) is None, bad
    # A webrtc-internals document opening with a lone '{' line is one before
    # any 'PeerConnections' key: a sign of a dump, as mqa reads it.
    assert mqa_spark.may_be_dump(b'\xef\xbb\xbf{\r\n"getUserMedia": [\n') and not mqa_spark.may_be_dump(b'{"meeting":"m"}\n')
    # A dump named like the scratch store is read as one box reads it.
    assert mqa_spark.dump_meeting(MQA, 's.sqlite', data) == 'rtc-Fixture'
    # Read in place when a local file of its name holds it.
    assert mqa_spark.dump_meeting(MQA, 'ann.log', b'', str(folder / 'ann.log')) == 'rtc-Fixture'
    # mqa failing for another reason than the input is an error, not "no meeting".
    bad_env = dict(os.environ, MQA_TZ='Mars/Base')
    old_env = os.environ.copy()
    try:
        os.environ.clear()
        os.environ.update(bad_env)
        with pytest.raises(RuntimeError):
            mqa_spark.dump_meeting(MQA, 'ann.log', data)
    finally:
        os.environ.clear()
        os.environ.update(old_env)

    def ask(name, body, path):
        return mqa_spark.dump_meeting(MQA, name, body, path)
    shards = next(n for n in range(2, 40) if mqa_spark.shard_of_meeting('rtc-Fixture', n) != 0)
    assert mqa_spark.split_file('file:/x/ann.log', data, 4, shards, dump_meeting=ask) == \
        [(mqa_spark.shard_of_meeting('rtc-Fixture', shards), '000000004-000/ann.log', data)]
    # A dump that also holds an app's event line of one meeting: mqa reads
    # it as a dump (the line a reject), so it goes by its room, not m-app.
    mixed = data + b'{"ts":1795946400000,"event":"meeting_join","meeting":"m-app","uid":"x","engine":"sfu"}\n'

    def sniff(text):
        return mqa_spark.sniff_format(MQA, text)
    assert mqa_spark.split_file('file:/x/ben.log', mixed, 6, shards, sniff=sniff, dump_meeting=ask) == \
        [(mqa_spark.shard_of_meeting('rtc-Fixture', shards), '000000006-000/ben.log', mixed)]
    # A file with no sign of a dump is not asked (garbage stays in shard 0).
    asked = []
    assert mqa_spark.split_file('g', b'hello\n', 5, shards, dump_meeting=lambda n, b, p: asked.append(n)) == \
        [(0, '000000005-000/g', b'hello\n')]
    assert asked == []


def test_a_fleet_with_dumps_spreads_them_and_equals_one_store(tmp_path):
    logs = tmp_path / 'logs'
    mqa('simulate', '--meetings', '3', '--seed', '5', '--out', str(logs))
    dumps_of_two_rooms(logs / 'browser-dumps')
    shards = next(n for n in range(2, 40)
                  if len({mqa_spark.shard_of_meeting(m, n) for m in ('rtc-Fixture', 'rtc-Other')}) == 2)
    (tmp_path / 'grid.json').write_text(GRID)
    one = str(tmp_path / 'one.sqlite')
    totals = ('files', 'skippedFiles', 'failedFiles', 'lines', 'events', 'reports', 'rejected', 'duplicates', 'ignored')
    summary = json.loads(mqa('ingest', '--db', one, '--format', 'json', *input_files(logs), ok=(0, 3)))
    out = tmp_path / 'out'
    run_job({'base': tmp_path, 'logs': logs}, out, shards, extra=['--keep-stores', '--spread-dumps', 'yes'])
    assert (out / 'fleet.json').read_text() == mqa('report', 'fleet', '--db', one, '--format', 'json')
    assert json.loads((out / 'ingest.json').read_text()) == {k: summary[k] for k in totals}
    # The two rooms' dumps are in two stores, each with its own meeting whole.
    holding = {}
    for store in os.listdir(out / 'stores'):
        listed = json.loads(mqa('meetings', '--db', str(out / 'stores' / store), '--format', 'json', ok=(0, 1)) or '{}')
        for m in listed.get('list', []):
            holding.setdefault(m['meeting'], []).append(store)
    assert len(holding['rtc-Fixture']) == 1 and len(holding['rtc-Other']) == 1
    assert holding['rtc-Fixture'] != holding['rtc-Other']
    # ann and ben are the one meeting's two participants, as on one box.
    assert json.loads(mqa('meetings', '--db', str(out / 'stores' / holding['rtc-Fixture'][0]), '--format', 'json')
                      )['list'][0]['participants'] == 2
    # On two cores (the tests' local[2]) the default leaves them all in shard 0, as one shard's core is as fast.
    out2 = tmp_path / 'out2'
    run_job({'base': tmp_path, 'logs': logs}, out2, shards, extra=['--keep-stores'])
    assert (out2 / 'fleet.json').read_text() == (out / 'fleet.json').read_text()
    listed = json.loads(mqa('meetings', '--db', str(out2 / 'stores' / 'shard-0.sqlite'), '--format', 'json'))
    assert {'rtc-Fixture', 'rtc-Other'} <= {m['meeting'] for m in listed['list']}
