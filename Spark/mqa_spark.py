"""mqa on Apache Spark: one fleet of logs, many shard stores, one exact answer.

    spark-submit [--master ...] Spark/mqa_spark.py --logs URI --out DIR
        [--shards N] [--grid FILE] [--target TIER] [--lead-ms N] [--config FILE]
        [--top N] [--keep-stores] [--mqa PATH] [--work DIR]
        [--cohorts FIELDS] [--trends-by FIELDS] [--every day|week] [--seed N] [--replicates N] [--no-cohorts]
        [--spread-dumps auto|yes|no]

What it does (Docs/scale.md has the why):

1. Lists every file under --logs (recursively; Hadoop's rule skips names
   starting with '_' or '.') and fingerprints them: a file whose content
   (decompressed) equals an earlier file's (in path order) is skipped, as
   one `mqa ingest` skips content it has already stored.
2. Assigns each file to a shard by its meeting, read decompressed from a
   gzip or zstd file (told by its first bytes). A file holding several
   meetings is split line by line; a line naming no meeting stays with the
   file's first meeting. A stats dump names its meeting only as mqa reads
   it (the room of its page, else its file name): with more than 2 cores
   (--spread-dumps), mqa is asked, by an ingest of the dump alone, and the
   dump goes to that meeting's shard; else, or when mqa stores nothing of
   it, to shard 0. So every event of a meeting
   lands in one shard, in the order one ingest would read it. A file mqa
   would read as a stats dump (it tells by the first lines) is never cut.
3. On each executor, per shard: `mqa ingest` into a store on local disk named
   after the task attempt, then `mqa report fleet --format json`, `mqa report
   meeting --all --format html` and `mqa tune --partials`.
4. The driver merges what the committed attempts returned: fleet.json (ranked
   exactly as one store ranks), tune.json (`mqa tune --merge`), meetings/*.html
   and index.html, fleet.parquet/, ingest.json, and with --keep-stores the
   committed stores under stores/.

Exits 0 when all is done, 3 when all is done but lines were rejected
(rejects.json lists them, as `mqa ingest` exits 3), 1 on a failure (an
input that could not be read: every other one is stored and reported, and
ingest.json counts it in failedFiles), 64 on bad arguments, a bad --config
or --grid (checked before anything runs).
"""

import argparse
import atexit
import concurrent.futures
import contextlib
import ctypes
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unicodedata
import zlib

# ---------------------------------------------------------------------------
# Pure helpers (no Spark): imported by the tests too.

MEETING_FAST = re.compile(rb'"meeting"\s*:\s*"([^"]*)"')
# The same over a whole text: a match never crosses a line end.
MEETING_IN_TEXT = re.compile(rb'"meeting"[^\S\n]*:[^\S\n]*"([^"\n]*)"')


def meeting_of(line):
    """The top-level "meeting" string of one log line, or None.

    A line with no backslash and one occurrence of the key is read with a
    regex (the key can only be the top-level one or a nested one, and a line
    whose only "meeting" is nested has no meeting for mqa either: it is
    rejected wherever it goes). A line that opens as an array is a stats
    dump's: a "meeting" in it never names the line's meeting. Anything else
    is parsed as JSON.
    """
    if b'meeting' not in line and b'\\' not in line:
        return None  # (an escaped key such as "me\u0065ting" has a backslash)
    if line.lstrip(b' \t\r\xef\xbb\xbf')[:1] == b'[':
        return None  # a stats dump's line: a "meeting" in it is nested
    if b'\\' not in line and line.count(b'"meeting"') == 1:
        m = MEETING_FAST.search(line)
        if m:
            try:
                return m.group(1).decode('utf-8')
            except UnicodeDecodeError:
                return None
    try:
        # As UTF-8, as mqa reads it: json.loads of bytes would guess UTF-16
        # for a line whose second byte is NUL and find a meeting mqa never
        # sees there (the line is rejected wherever it goes).
        # A byte order mark opening the file is skipped, as mqa skips it.
        obj = json.loads(line.decode('utf-8-sig'))
    except (ValueError, RecursionError):  # UnicodeDecodeError included
        return None
    if isinstance(obj, dict):
        value = obj.get('meeting')
        if isinstance(value, str):
            return LONE_SURROGATE.sub('\ufffd', value)
    return None


# json.loads keeps an unpaired surrogate escape ("\ud83c", half an emoji)
# as a lone surrogate (a pair it joins); mqa reads it as U+FFFD, so that
# "m\ud83c" and "m\ufffd" are one meeting, which must be routed as one.
LONE_SURROGATE = re.compile('[\ud800-\udfff]')


def stable_hash(text):
    return int.from_bytes(hashlib.sha1(text.encode('utf-8', 'surrogatepass')).digest()[:8], 'big')


def shard_of_meeting(meeting, shards):
    # By the id's NFC form: mqa keeps "é" and "e\u0301" as two meetings,
    # but its merge of cohort partials takes them for one (Swift compares
    # strings by canonical equivalence), so they must share a shard.
    return stable_hash('meeting:' + unicodedata.normalize('NFC', meeting)) % shards


def piece_marker(order, piece):
    """A line of blanks that makes a piece's bytes unique (mqa fingerprints
    files by content and skips repeats; a piece must never be taken for an
    earlier file). mqa skips blank lines and counts them in no total."""
    n = order * 4096 + piece
    bits = bin(n)[2:]
    return (' ' + ''.join(' ' if b == '0' else '\t' for b in bits) + ' ').encode()


# A file's compression, told by its first bytes as mqa tells it (the name
# may lie: a gzip dump saved as .ndjson is still gzip).
GZIP_MAGIC = b'\x1f\x8b'
ZSTD_MAGIC = b'\x28\xb5\x2f\xfd'
ZSTD_SKIPPABLE_TAIL = b'\x2a\x4d\x18'  # skippable frames: 5X 2A 4D 18


def compression_of(data):
    """'gzip', 'zstd' or None (plain) for a file's bytes."""
    if data[:2] == GZIP_MAGIC:
        return 'gzip'
    if data[:4] == ZSTD_MAGIC or (len(data) >= 4 and data[0] & 0xF0 == 0x50 and data[1:4] == ZSTD_SKIPPABLE_TAIL):
        return 'zstd'
    return None


def gunzip(data):
    """(text, complete) of gzip bytes, every member. A damaged or truncated
    stream gives what decoded before the damage, and complete False."""
    try:
        text = gzip.decompress(data)
        # Python passes zero padding after the last member over; mqa
        # (zlib) calls the file damaged. Complete only when every byte
        # belongs to a member, as mqa reads it.
        if not data.endswith(b'\0') or gzip_members_end(data) == len(data):
            return text, True
    except (OSError, EOFError, zlib.error):
        pass
    # Member by member, in small steps, so that what decoded before the
    # damage is kept: it names the file's first meeting.
    out, rest = [], data
    while rest:
        d = zlib.decompressobj(zlib.MAX_WBITS | 16)
        step = 1 << 16
        try:
            for i in range(0, len(rest), step):
                out.append(d.decompress(rest[i:i + step]))
                if d.eof:
                    break
        except zlib.error:
            break
        if not d.eof:
            break
        rest = d.unused_data + rest[i + step:]  # the next member
    return b''.join(out), False


def gzip_members_end(data):
    """Where the last whole gzip member of `data` ends."""
    end, rest = 0, data
    while rest[:2] == GZIP_MAGIC:
        d = zlib.decompressobj(zlib.MAX_WBITS | 16)
        try:
            d.decompress(rest)
        except zlib.error:
            break
        if not d.eof:
            break
        end += len(rest) - len(d.unused_data)
        rest = d.unused_data
    return end


def unzstd(path, data):
    """(text, complete) of zstd bytes, as gunzip, by the zstd command
    (Scripts/deps.sh installs it; it reads every frame, skippable ones
    too), so that the job needs no Python package beyond pyspark."""
    if shutil.which('zstd') is None:
        # Routing such a file by its name could put its meeting in two
        # shards; stop with the fix instead.
        raise RuntimeError('%s is zstd-compressed and this node has no zstd command to read its meeting: '
                           'install zstd (Scripts/deps.sh)' % path)
    r = subprocess.run(['zstd', '-dc', '-q'], input=data, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return r.stdout, r.returncode == 0


def only_meeting(text):
    """The one meeting every line of `text` names, when a scan of the whole
    text shows it, else None (then `group_by_meeting` decides).

    In a line without a backslash, the top-level meeting string is one of
    the regex's matches, and `meeting_of` returns a match or None: so when
    those lines hold one id, and the first of them that matches names it,
    each of them goes to that id (lines naming none follow the first),
    exactly as line by line. Most client logs take this path: a C-speed
    scan instead of a Python call per line (0.40 s against 1.56 s on 199 MB
    of the benchmark corpus).

    Lines with a backslash (an escaped quote in a title, an escaped id or
    key) are read one by one with `meeting_of`, and must name the same id
    or none. A log has few: on the Spark benchmark's fleet, 825 lines in
    673 of 2,199 files, which sent those whole files (724,481 lines) line
    by line. A text with more than `ESCAPED_LINES_MAX` of them goes line by
    line at once: when every line is escaped, reading them here would only
    double `group_by_meeting`'s work."""
    plain, escaped = lines_with_backslash(text)
    if escaped is None:
        return None
    found = set(MEETING_IN_TEXT.findall(plain))
    if len(found) > 1:
        return None
    try:
        ids = {m.decode('utf-8') for m in found}
    except UnicodeDecodeError:
        return None
    named = False  # an escaped line names the id itself
    for line in escaped:
        m = meeting_of(line)
        if m is not None:
            ids.add(m)
            named = True
            if len(ids) > 1:
                return None
    if len(ids) != 1:
        return None
    only = ids.pop()
    if named:
        return only
    # A match may be nested in a line whose own meeting is not a string:
    # the first matching line must name it.
    hit = MEETING_IN_TEXT.search(plain)
    start = plain.rfind(b'\n', 0, hit.start()) + 1
    end = plain.find(b'\n', hit.end())
    if meeting_of(plain[start:end if end >= 0 else len(plain)]) != only:
        return None
    return only


ESCAPED_LINES_MAX = 256
ROUTING_TASKS_PER_CORE = 2


def lines_with_backslash(text):
    """(plain, escaped): the lines of `text` without a backslash, still
    whole lines one after another, and the list of those with one; escaped
    is None when there are more than ESCAPED_LINES_MAX."""
    i = text.find(b'\\')
    if i < 0:
        return text, []
    parts, escaped, pos = [], [], 0
    while i >= 0:
        if len(escaped) == ESCAPED_LINES_MAX:
            return text, None
        start = text.rfind(b'\n', 0, i) + 1
        end = text.find(b'\n', i)
        if end < 0:
            end = len(text)
        parts.append(text[pos:start])
        escaped.append(text[start:end])
        pos = end + 1
        i = text.find(b'\\', pos)
    parts.append(text[pos:])
    return b''.join(parts), escaped


def group_by_meeting(text):
    """(groups, first): the file's lines grouped by meeting, in file order
    ({meeting: [line]}), and its first meeting (None when no line names
    one). Lines naming no meeting go with the file's first meeting."""
    lines = text.split(b'\n')
    if lines and lines[-1] == b'':
        lines.pop()
    groups = {}      # meeting -> list of lines
    first = None
    pending = []     # unnamed lines before the first meeting
    for line in lines:
        m = meeting_of(line)
        if m is None:
            if first is None:
                pending.append(line)
            else:
                groups[first].append(line)
            continue
        if first is None:
            first = m
            groups[m] = pending
            pending = None
        groups.setdefault(m, []).append(line)
    return groups, first


# A line that opens as a JSON array (after a byte order mark and blanks):
# what makes mqa's content sniff vote for a stats dump.
ARRAY_LINE = re.compile(rb'(?m)^(?:\xef\xbb\xbf)?[ \t\r]*\[')
# How much of a text mqa's sniff may read (its wider look: the longest
# line, 1 MiB, and as much again).
SNIFF_BYTES = 4 << 20
# A piece's folder ends so when it must be read as an event log.
EVENTS_PIECE = '-events'


def sniff_format(binary, text, prefix='mqa-', base=None):
    """The format mqa reads `text` as ('events', 'rtcstats',
    'webrtc-internals'), asked of mqa itself: an ingest of the text's
    first SNIFF_BYTES into a store of its own. None when that ingest reads
    nothing: an event log's head always gives a summary (bad lines are
    rejects), so the file is a dump mqa fails on, or one longer than the
    head (a webrtc-internals document): either way not an event log."""
    if base:
        os.makedirs(base, exist_ok=True)
    work = tempfile.mkdtemp(prefix=prefix + 'sniff-', dir=base)
    try:
        head = os.path.join(work, 'head')
        with open(head, 'wb') as f:
            f.write(text[:SNIFF_BYTES])
        _, out, _ = run_mqa_status(binary, ['ingest', '--db', os.path.join(work, 's.sqlite'), '--format', 'json', head])
        try:
            return next(iter(json.loads(out)['formats']), 'events')
        except (ValueError, KeyError, TypeError, AttributeError):
            return None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def dump_meeting(binary, name, data, path=None, prefix='mqa-', base=None):
    """The meeting mqa makes of a stats dump read alone: its room, else its
    file name, asked of mqa itself (an ingest of the dump, under its own
    file `name`, into a store of its own). A dump is one participant of one
    meeting, whatever else a fleet holds, so its shard can be that
    meeting's. `path`, a local file of that name holding `data`, is read
    in place; else the bytes are written to a scratch file. None when mqa
    stores nothing of it (a dump it fails on, or whose connections all
    carry no media): such a file goes to shard 0, where the shard's mqa
    says the same. Any other failure of mqa (a crash, a full disk, a bad
    environment) is raised, not taken for a dump of nothing."""
    if base:
        os.makedirs(base, exist_ok=True)
    work = tempfile.mkdtemp(prefix=prefix + 'dump-', dir=base)
    try:
        if path is None or os.path.basename(path) != name:
            # In a folder of its own: a dump named s.sqlite meets no store.
            os.mkdir(os.path.join(work, 'in'))
            path = os.path.join(work, 'in', name)
            with open(path, 'wb') as f:
                f.write(data)
        db = os.path.join(work, 's.sqlite')
        code, out, err = run_mqa_status(binary, ['ingest', '--db', db, '--format', 'json', path])
        try:
            summary = json.loads(out)
        except ValueError:
            summary = None
        # Exit 1 is the input's failure (a dump mqa cannot read: it prints
        # no summary when nothing could be read), which the shard's ingest
        # meets and reports in shard 0, or the scratch store's (a full
        # disk), which says nothing of the dump. A crash, a usage error or
        # a bad environment is no answer either.
        store_failed = 'cannot create the store' in err or 'disk is full' in err
        if code not in (0, 1, 3) or (code != 1 and summary is None) or (code == 1 and store_failed):
            raise RuntimeError('mqa ingest of %s (to learn its meeting) exited %d: %s' % (name, code, err.strip()))
        code, out, err = run_mqa_status(binary, ['meetings', '--db', db, '--format', 'json'])
        if code != 0:
            if 'holds no meetings' in err or not os.path.exists(db):
                return None
            raise RuntimeError('mqa meetings on the store of %s exited %d: %s' % (name, code, err.strip()))
        ids = [m['meeting'] for m in json.loads(out)['list']]
        return ids[0] if len(ids) == 1 else None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def may_be_dump(text):
    """Whether mqa could read `text`, or a piece of it, as a stats dump:
    array lines, Chrome's format 3 header, rtcstats-server's object lines,
    a webrtc-internals document (mqa's sniff, Docs/import.md)."""
    head = text.lstrip(b'\xef\xbb\xbf \t\r\n')
    # A lone `{` first line: how a webrtc-internals document opens, which
    # mqa takes for one before any `PeerConnections` key is seen.
    return (ARRAY_LINE.search(text) is not None or b'statsSessionId' in text or b'PeerConnections' in text
            or head.startswith(b'RTCStatsDump') or re.match(rb'\{[ \t\r]*\n', head) is not None)


def split_file(path, data, order, shards, whole=None, sniff=None, dump_meeting=None):
    """[(shard, name, bytes)] for one input file; a file that goes whole
    carries `whole` instead of its bytes when one is given (a reference the
    shard reads the file by, `LocalFile`). `dump_meeting` (the file's name,
    its bytes and its local path or None -> the meeting mqa makes of it, or
    None) places a stats dump with its meeting; without it, or when it
    gives none, a dump goes to shard 0.

    mqa tells a stats dump from an event log by a file's first lines, and
    the first piece of a cut file holds every line that names no meeting:
    stray dump lines among an app's events could make that piece vote for
    a dump (its events lost), or a dump's event lines make another piece an
    event log (a meeting invented). So a file with any sign of a dump
    (`may_be_dump`) is asked of mqa whole (`sniff`, the text -> its format): a dump goes whole,
    as dumps go; an event log's pieces are read as an event log.

    Compressed files (gzip or zstd, told by their first bytes) are read
    decompressed, so they go by meeting like plain ones. A file of one
    meeting (or none) goes whole, under its own name (a compressed file
    stays compressed, and mqa reads it exactly as on one box). A file of
    several meetings is cut into one plain piece per meeting, lines in file
    order; lines naming no meeting stay with the file's first meeting. A
    damaged compressed file goes whole, by the first meeting that decoded:
    mqa then reports its damage as one ingest would.
    """
    base = os.path.basename(path)
    kind = compression_of(data)
    text, complete = data, True
    if kind == 'gzip':
        text, complete = gunzip(data)
    elif kind == 'zstd':
        text, complete = unzstd(path, data)
    body = data if whole is None else whole
    # Each file (or piece) keeps its own name, in a folder that gives its
    # place in the global order: mqa names a stats dump's participant, and
    # its meeting when the dump names no room, after the file name, and a
    # prefix on the name could push it past the 255-byte limit.
    whole_name = '%09d-000/%s' % (order, base)

    def as_dump():
        # The meeting mqa makes of the dump decides its shard, so that it
        # meets the other dumps of its room there, and any event log of
        # that meeting. A file with no sign of a dump is none: not asked.
        local = whole[0] if isinstance(whole, LocalFile) else None
        meeting = dump_meeting(base, data, local) if dump_meeting is not None and may_be_dump(text) else None
        return [(shard_of_meeting(meeting, shards) if meeting is not None else 0, whole_name, body)]

    def read_as_dump():
        # A file with signs of a dump whose event lines name one meeting:
        # mqa may read it as a dump (its room, the event lines rejected),
        # and then that meeting's shard is the wrong one. mqa tells by the
        # file's head, so only the head's signs count: most files are of
        # one meeting, and this runs on each.
        return sniff is not None and may_be_dump(text[:SNIFF_BYTES]) and sniff(text) != 'events'

    only = only_meeting(text)
    if only is not None:
        return as_dump() if read_as_dump() else [(shard_of_meeting(only, shards), whole_name, body)]
    groups, first = group_by_meeting(text)
    if first is None:
        # No line names a meeting: a stats dump (whose meeting is its room,
        # which only mqa reads) or a file mqa rejects.
        return as_dump()
    if len(groups) == 1 or not complete:
        return as_dump() if complete and read_as_dump() else [(shard_of_meeting(first, shards), whole_name, body)]
    mark = ''
    if sniff is not None and may_be_dump(text):
        if sniff(text) != 'events':
            return as_dump()
        mark = EVENTS_PIECE
    stem = base
    if kind is not None:  # the pieces are plain: no name that says otherwise
        stem = re.sub(r'\.(gz|gzip|zst|zstd)$', '', base) or base
    out = []
    for piece, (m, group) in enumerate(groups.items()):
        body = b'\n'.join(group) + b'\n' + piece_marker(order, piece) + b'\n'
        out.append((shard_of_meeting(m, shards), '%09d-%03d%s/%s' % (order, piece, mark, stem), body))
    return out


class LocalFile(tuple):
    """A whole input by reference: (path, SHA-256 hex of the content that
    was routed). In local mode the shard copies the file itself, so its
    bytes do not cross the shuffle (pickled, to the JVM, to disk and back):
    that trip was the largest cost of the shard stage beyond mqa. The copy
    must hash to the digest of pass 1, or the file changed during the job."""

    def __new__(cls, path, digest):
        return super().__new__(cls, (path, digest))

    def __getnewargs__(self):  # pickled into the shuffle: rebuilt from both
        return tuple(self)

    def copy_to(self, dest):
        """Copies the file to `dest`, hashing the bytes as they go by (one
        read of the file, none of the copy)."""
        path, digest = self
        h = hashlib.sha256()
        with open(path, 'rb') as src, open(dest, 'wb') as out:
            for block in iter(lambda: src.read(1 << 20), b''):
                h.update(block)
                out.write(block)
        if h.hexdigest() != digest:
            raise RuntimeError('%s changed while the job ran: it no longer holds the content that was routed '
                               '(run the job again on files that stay as they are)' % path)


def safe_file_name(meeting, ext):
    """SafeFileName.make of Sources/MQABase/SafeFileName.swift: the name `mqa
    report meeting --all` gives a meeting's file (sparkMirrorsTheSafeFileName
    in Tests/MQAReportsTests/SafetyTests.swift compares the two on hard ids)."""
    stem = ''.join(c if (c.isascii() and (c.isalnum() or c in '._-')) else '_' for c in meeting)
    while '..' in stem:
        stem = stem.replace('..', '_.')
    if stem.startswith('.'):
        stem = '_' + stem[1:]
    stem = stem[:64]
    if not stem:
        stem = 'meeting'
    h = 0xcbf29ce484222325
    for byte in meeting.encode('utf-8'):
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    folded = (h ^ (h >> 32)) & 0xFFFFFFFF
    return '%s-%08x.%s' % (stem, folded, ext)


# mqa's JSON text: pretty-printed with two spaces, keys in the order given,
# numbers as mqa wrote them (floats keep their original text), strings
# escaped as JSON.quote does.

class Number(str):
    """A JSON number kept as the text mqa printed."""


def load_json(text):
    return json.loads(text, parse_float=Number)


def quote(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == '\\':
            out.append('\\\\')
        elif ch == '\n':
            out.append('\\n')
        elif ch == '\r':
            out.append('\\r')
        elif ch == '\t':
            out.append('\\t')
        elif o < 0x20:
            out.append('\\u%04x' % o)
        else:
            out.append(ch)
    out.append('"')
    return ''.join(out)


def render(value, indent=0):
    pad = '  ' * (indent + 1)
    if value is None:
        return 'null'
    if value is True:
        return 'true'
    if value is False:
        return 'false'
    if isinstance(value, Number):
        return str.__str__(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        raise ValueError('floats must be kept as Number')
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, list):
        if not value:
            return '[]'
        return '[' + ','.join('\n' + pad + render(v, indent + 1) for v in value) + '\n' + '  ' * indent + ']'
    if isinstance(value, dict):
        if not value:
            return '{}'
        return '{' + ','.join('\n' + pad + quote(k) + ': ' + render(v, indent + 1) for k, v in value.items()) \
            + '\n' + '  ' * indent + '}'
    raise TypeError(type(value))


def fleet_score(entry):
    """FleetEntry.score, operation for operation in IEEE doubles. A CDN
    meeting's lowTierMs is null (no quality data) and counts as 0, as in
    FleetEntry."""
    return (float(entry['stalledMs']) / 1000 + float(entry['lowTierMs'] or 0) / 1000) \
        + 30.0 * float(entry['abnormalDisconnects'])


def merge_fleet(parts, top=None):
    """One fleet report from per-shard `mqa report fleet --format json`
    outputs of disjoint meetings, equal to the single store's.

    The ranking key is the exact score, which the JSON shows only rounded;
    it is recomputed from the integer fields it is made of, with the same
    double operations. Ties go by meeting id as FleetReport orders them
    (Swift compares strings by their NFC form), then by the id's UTF-8
    bytes, the store's order. Each meeting's entry travels whole, every key
    as its shard wrote it (platforms, sdkVersions, issues, ...): only rank
    is renumbered.
    """
    import unicodedata
    entries = []
    totals = None
    meetings = 0
    score_text = None
    # The report's header strings (schema, which figure ranks, the
    # normalized view's rule), as every shard's mqa wrote them.
    head = {}
    for part in parts:
        doc = load_json(part) if isinstance(part, str) else part
        score_text = doc['score']
        head = {k: doc[k] for k in ('schema', 'config', 'rankedBy', 'scorePerParticipantHour') if k in doc}
        meetings += doc['meetings']
        if doc['shown'] != doc['meetings']:
            raise ValueError('a shard fleet report must show every meeting (no --top)')
        if totals is None:
            totals = {k: {'issues': 0, 'meetings': 0} for k in doc['issueCounts']}
        for code, t in doc['issueCounts'].items():
            totals[code]['issues'] += t['issues']
            totals[code]['meetings'] += t['meetings']
        entries.extend(doc['ranked'])
    seen = set()
    for e in entries:
        if e['meeting'] in seen:
            raise ValueError('meeting %r is in two shards' % e['meeting'])
        seen.add(e['meeting'])
    entries.sort(key=lambda e: (-fleet_score(e), unicodedata.normalize('NFC', e['meeting']),
                                e['meeting'].encode('utf-8', 'surrogatepass')))
    if top is not None:
        entries = entries[:top]
    for i, e in enumerate(entries):
        e['rank'] = i + 1
    result = {}
    # In mqa's order: the config (under --config only) after the schema.
    for k in ('schema', 'config'):
        if k in head:
            result[k] = head[k]
    result['score'] = score_text
    for k in ('rankedBy', 'scorePerParticipantHour'):
        if k in head:
            result[k] = head[k]
    return {
        **result,
        'meetings': meetings,
        'shown': len(entries),
        'issueCounts': totals or {},
        'ranked': entries,
    }


SUMMARY_KEYS = ['lines', 'events', 'reports', 'rejected', 'duplicates', 'ignored']

# The cohort fields of `mqa report cohorts --by` (shared/spec/cli.md).
COHORT_FIELDS = ['platform', 'osVersion', 'sdkVersion', 'appVersion', 'device', 'netType', 'engine']

# The figures of one cohort object (`mqa.cohorts/1`, a trends row too), in
# the columns of cohorts.parquet and trends.parquet: an interval [lo, hi]
# becomes two columns, NAMELow and NAMEHigh.
COHORT_COLUMNS = [
    ('participants', 'int'), ('meetings', 'int'), ('watchedMs', 'long'), ('stalledMs', 'long'),
    ('stallRate', 'double'), ('stallRateCI', 'interval'), ('lowTierShare', 'double'), ('lowTierShareCI', 'interval'),
    ('mosP50', 'double'), ('abnormalDisconnectRate', 'double'), ('abnormalDisconnectRateCI', 'interval'),
    ('firstFrameP90Ms', 'long'), ('insufficient', 'bool'),
    ('subscriptions', 'long'), ('neverRendered', 'long'), ('neverRenderedShare', 'double'),
    ('neverRenderedShareCI', 'interval'),
]


def cohort_values(obj):
    """A cohort object's figures as a flat row (COHORT_COLUMNS' order, an
    interval as its two ends; None where mqa wrote null)."""
    row = []
    for key, kind in COHORT_COLUMNS:
        v = obj.get(key)
        if kind == 'interval':
            lo, hi = v if isinstance(v, list) else (None, None)
            row += [None if lo is None else float(lo), None if hi is None else float(hi)]
        elif kind == 'double':
            row.append(None if v is None else float(v))
        elif kind == 'bool':
            row.append(bool(v))
        else:
            row.append(None if v is None else int(v))
    return row


def cohort_rows(reports):
    """cohorts.parquet's rows from merged `mqa.cohorts/1` reports: one per
    (field, value) with its rank (1 = the worst with enough data), and the
    participants without a value (value and rank null)."""
    rows = []
    for doc in reports:
        for i, c in enumerate(doc['cohorts']):
            rows.append([doc['by'], i + 1, c['value']] + cohort_values(c))
        if doc['unknown']['participants'] > 0:
            rows.append([doc['by'], None, None] + cohort_values(doc['unknown']))
    return rows


def trend_rows(reports):
    """trends.parquet's rows from merged `mqa.trends/1` reports: one per
    (by, period, value); by is null for the whole fleet's rows, value null
    for those rows and for participants without a value."""
    rows = []
    for doc in reports:
        for r in doc['periods']:
            rows.append([doc['every'], doc['by'], r['period'], int(r['start']), r.get('value')] + cohort_values(r))
    return rows


def figure_fields(T):
    out = []
    for key, kind in COHORT_COLUMNS:
        if kind == 'interval':
            base = key[:-2]
            out += [T.StructField(base + 'Low', T.DoubleType(), True), T.StructField(base + 'High', T.DoubleType(), True)]
        else:
            t = {'int': T.IntegerType(), 'long': T.LongType(), 'double': T.DoubleType(), 'bool': T.BooleanType()}[kind]
            out.append(T.StructField(key, t, kind == 'double' or key == 'firstFrameP90Ms'))
    return out


def parse_fields(text, flag):
    """A comma list of cohort fields ('' for none)."""
    fields = [f for f in (x.strip() for x in text.split(',')) if f]
    for f in fields:
        if f not in COHORT_FIELDS:
            raise ValueError('%s: unknown field %r (fields: %s)' % (flag, f, ', '.join(COHORT_FIELDS)))
    return fields


# ---------------------------------------------------------------------------
# Executor side

def find_mqa(given):
    """The mqa binary on this node: an existing path, a file shipped with
    --files (SparkFiles), or a path inside an unpacked --archives folder."""
    candidates = [given]
    try:
        from pyspark import SparkFiles
        candidates.append(SparkFiles.get(os.path.basename(given)))
    except Exception:
        pass
    candidates.append(os.path.join(os.getcwd(), given))
    for c in candidates:
        if c and os.path.isfile(c):
            if not os.access(c, os.X_OK):
                os.chmod(c, 0o755)
            return os.path.abspath(c)
    raise FileNotFoundError('mqa binary not found: %s' % given)


def mqa_env(binary):
    env = dict(os.environ)
    d = os.path.dirname(binary)
    libs = [d, os.path.join(d, 'lib'), os.path.join(os.path.dirname(d), 'lib')]
    env['LD_LIBRARY_PATH'] = ':'.join(libs + [env.get('LD_LIBRARY_PATH', '')])
    env.pop('MQA_DB', None)
    return env


PR_SET_PDEATHSIG = 1


def dies_with_parent():
    """A preexec_fn: the child gets SIGKILL when the thread that started it
    dies. A Python worker killed mid-task otherwise left its mqa running,
    still writing pages into its attempt's folder after the driver had
    swept the stage. None on a system without prctl. (Looked up on each
    call: a ctypes function kept in a global cannot be pickled, and Spark
    pickles this module's globals with the functions it ships.)"""
    if not sys.platform.startswith('linux'):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def arm():
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the line above
            os._exit(137)
    return arm


def run_mqa(binary, args, ok=(0,)):
    status, out, err = run_mqa_status(binary, args)
    if status not in ok:
        raise RuntimeError('mqa %s failed (%d): %s' % (' '.join(args[:2]), status, err[-2000:]))
    return out


def run_mqa_status(binary, args):
    """(exit status, stdout, stderr) of one mqa run."""
    r = subprocess.run([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=mqa_env(binary),
                       preexec_fn=dies_with_parent())
    return r.returncode, r.stdout.decode('utf-8'), r.stderr.decode('utf-8', 'replace')


def maybe_fault(shard, attempt, stage):
    """Fault injection for the tests: MQA_SPARK_FAULT=kill:SHARD or
    raise:SHARD fails the first attempt of that shard after its ingest
    (apart:SHARD, read by html_stage, makes that shard act as if it did not
    see the driver's disk)."""
    spec = os.environ.get('MQA_SPARK_FAULT', '')
    if not spec or attempt != 0 or stage != 'after-ingest':
        return
    kind, _, which = spec.partition(':')
    if which != str(shard):
        return
    if kind == 'kill':
        os.kill(os.getpid(), signal.SIGKILL)  # as if the executor died
    if kind == 'raise':
        raise RuntimeError('injected fault in shard %d, attempt %d' % (shard, attempt))


HTML_STAGE = '_html-attempts'


def html_stage(settings, shard, name):
    """A new folder `name` in the driver's staging folder for meeting pages
    (OUT/_html-attempts), when this process shares the driver's disk and
    may write there: the driver leaves a file in the stage holding the
    job's token, and an executor that reads the same token and can make
    its folder beside it writes its pages there (local mode, or --out on a
    shared mount). Else None, and the pages travel back zlib-compressed
    with the result: on 300 meetings (190 MB of HTML) compressing them took
    1.8 s of each shard's 5.8 s HTML stage on 2 shards, and the driver then
    decompressed and wrote them."""
    stage, token = settings.get('htmlStage'), settings.get('htmlToken')
    if not stage or not token or os.environ.get('MQA_SPARK_FAULT') == 'apart:%d' % shard:
        return None
    try:
        with open(os.path.join(stage, 'job'), 'r', encoding='ascii') as f:
            if f.read() != token:
                return None
        folder = os.path.join(stage, name)
        os.makedirs(folder)  # another user, a read-only mount: sent instead
        return folder
    except OSError:
        return None


def move_page(source, dest):
    """Moves a staged page into place; where it cannot be renamed (another
    file system, a folder the driver may not change), copies it whole."""
    try:
        os.replace(source, dest)
    except OSError:
        shutil.copyfile(source, dest + '.part')
        os.replace(dest + '.part', dest)


def place_of(folder):
    """(order, piece) of an input's folder name, NNNNNNNNN-PPP[-events]."""
    order, piece = folder.split('-')[:2]
    return int(order), int(piece)


def shard_rejects(binary, store, inputs):
    """[(order, piece, line, reason, raw)] of a shard store's rejected
    lines: its input names (NNNNNNNNN-PPP/NAME) give each one's place in the
    listing and its piece, for the driver to name the original file."""
    rows = json.loads(run_mqa(binary, ['query', 'rejects', '--db', store, '--format', 'json']))['rows']
    out = []
    for r in rows:
        rel = os.path.relpath(r['file'], inputs)
        order, piece = place_of(rel.split(os.sep)[0])
        out.append((order, piece, r['line'], r['reason'], r['raw']))
    return out


def tune_args(store, grid, config, settings):
    """The `mqa tune --partials` of a store: the job's config (`config`,
    its `--config` arguments) is the sweep's base, as for `mqa tune
    --config`; --target and --lead-ms as given."""
    args = ['tune', '--db', store, '--grid', grid, '--partials'] + config
    if settings.get('target'):
        args += ['--target', settings['target']]
    if settings.get('leadMs') is not None:
        args += ['--lead-ms', str(settings['leadMs'])]
    return args


def bootstrap_args(args):
    """The cohort intervals' --seed and --replicates, where given."""
    return ((['--seed', str(args.seed)] if args.seed is not None else [])
            + (['--replicates', str(args.replicates)] if args.replicates is not None else []))


def work_prefix(settings):
    """The start of this job's scratch folders' names."""
    return 'mqa-%s-' % settings['htmlToken'][:12]


def ingest_runs(names):
    """The shard's sorted input names as runs for one `mqa ingest` each:
    (forced input format or None, names), at most 1,000 names a run (to
    keep command lines short), in order, so that the runs store what one
    ingest of them all would."""
    runs = []
    for n in names:
        forced = 'events' if n.split('/', 1)[0].endswith(EVENTS_PIECE) else None
        if not runs or runs[-1][0] != forced or len(runs[-1][1]) == 1000:
            runs.append((forced, []))
        runs[-1][1].append(n)
    return runs


def failed_inputs(err, inputs, batch):
    """[(order, piece, reason)] of the inputs of `batch` (names under
    `inputs`) an ingest could not read, from its `Error: PATH: reason`
    lines (a name may hold ': ' itself)."""
    out = []
    prefix = 'Error: ' + inputs + os.sep
    for line in err.splitlines():
        if not line.startswith(prefix):
            continue
        rest = line[len(prefix):]
        # The longest that fits: of `a` and `a: b`, the line may name either.
        name = max((n for n in batch if rest.startswith(n + ': ')), key=len, default=None)
        if name is not None:
            order, piece = place_of(name.split('/', 1)[0])
            out.append((order, piece, rest[len(name) + 2:]))
    return out


def run_shard(shard, records, settings):
    """Everything one shard does on its executor; returns one result dict."""
    from pyspark import TaskContext
    ctx = TaskContext.get()
    attempt = ctx.attemptNumber() if ctx else 0
    attempt_id = ctx.taskAttemptId() if ctx else 0
    binary = find_mqa(settings['mqa'])
    base = settings.get('work') or None
    if base:
        os.makedirs(base, exist_ok=True)
    # Named after the job and the attempt: a retry never reuses a failed
    # attempt's store, and the driver finds what a killed one left.
    work = tempfile.mkdtemp(prefix=work_prefix(settings) + 'shard%d-attempt%d-%d-' % (shard, attempt, attempt_id), dir=base)
    timings = {}
    staged = None
    try:
        inputs = os.path.join(work, 'inputs')
        os.makedirs(inputs)
        t = time.time()
        names = []
        for name, body in records:
            os.makedirs(os.path.dirname(os.path.join(inputs, name)), exist_ok=True)
            if isinstance(body, LocalFile):
                body.copy_to(os.path.join(inputs, name))
            else:
                with open(os.path.join(inputs, name), 'wb') as f:
                    f.write(body)
            names.append(name)
        names.sort()  # global path order, then piece order: one ingest's order
        timings['write'] = time.time() - t
        result = {'shard': shard, 'attempt': attempt, 'attemptId': attempt_id, 'files': len(names), 'rejects': [], 'failed': [],
                  'summary': {k: 0 for k in SUMMARY_KEYS + ['failedFiles', 'uncounted']}, 'fleet': None, 'partials': None, 'cohorts': None, 'html': [],
                  'store': None, 'timings': timings}
        if not names:
            return result
        store = os.path.join(work, 'shard-%d-attempt-%d-%d.sqlite' % (shard, attempt, attempt_id))
        t = time.time()
        for forced, batch in ingest_runs(names):
            args = ['ingest', '--db', store, '--format', 'json'] + (['--input-format', forced] if forced else [])
            status, text, err = run_mqa_status(binary, args + [os.path.join(inputs, n) for n in batch])
            try:
                summary = json.loads(text) if status in (0, 1, 3) else None
            except ValueError:
                summary = None
            failed = failed_inputs(err, inputs, batch) if status == 1 else []
            if summary is None and status == 1 and failed and len(failed) == len(batch):
                # No input of the run could be read (mqa then makes no
                # store and prints no summary): as one ingest counts them.
                summary = {'files': 0, 'failedFiles': len(failed)}
            # Exit 1 where every failure is an input's, named: the others
            # are stored, as on one box. Anything else (the store's own
            # failure, a full disk, counts every input as failed and names
            # none) is the shard's, and Spark retries it.
            if summary is None or (status == 1 and (not failed or len(failed) != summary.get('failedFiles'))):
                raise RuntimeError('mqa ingest failed (%d): %s' % (status, err[-2000:]))
            for k in SUMMARY_KEYS + ['failedFiles']:
                result['summary'][k] += summary.get(k, 0)
            # Inputs mqa left out of `files` (a damaged file whose
            # checkpoints stored part of it counts in both).
            result['summary']['uncounted'] += len(batch) - summary['files']
            result['failed'] += failed
        timings['ingest'] = time.time() - t
        if result['summary']['rejected']:
            result['rejects'] = shard_rejects(binary, store, inputs)
        shutil.rmtree(inputs)
        maybe_fault(shard, attempt, 'after-ingest')
        if result['summary']['events'] + result['summary']['reports'] == 0:
            # Only rejected or ignored lines: no meeting to report on (mqa
            # says "holds no meetings"); the totals still count them.
            return result

        config = []
        if settings.get('config'):
            path = os.path.join(work, 'config.json')
            with open(path, 'wb') as f:
                f.write(settings['config'])
            config = ['--config', path]
        t = time.time()
        result['fleet'] = run_mqa(binary, ['report', 'fleet', '--db', store, '--format', 'json'] + config)
        timings['fleet'] = time.time() - t
        if not settings.get('noCohorts'):
            # Per meeting and client profile, the sums the cohort and trend
            # figures are made of: the driver merges them exactly. Under the
            # job's config, as the fleet: the partials carry it to the merge.
            t = time.time()
            text = run_mqa(binary, ['report', 'cohorts', '--db', store, '--partials'] + config)
            result['cohorts'] = zlib.compress(text.encode('utf-8'), 6)
            timings['cohorts'] = time.time() - t
        t = time.time()
        # Where the driver's folder is this executor's too, the pages are
        # written into it, under the attempt's name, and only their names
        # travel back; otherwise their bytes do (see html_stage).
        staged = html_stage(settings, shard, 'shard-%d-attempt-%d-%d' % (shard, attempt, attempt_id))
        html = staged or os.path.join(work, 'html')
        if settings.get('noHtml'):
            os.makedirs(html, exist_ok=True)
        else:
            run_mqa(binary, ['report', 'meeting', '--all', '--db', store, '--format', 'html', '--out', html] + config)
        # The meeting pages, and the track pages they link in tracks/.
        # A shard's fleet-wide pages (participants, cohorts, trends) see only
        # that shard: they are left out rather than shown as the fleet's.
        fleet_wide = ('participants.html', 'cohorts.html', 'trends.html')
        names = [n for n in sorted(os.listdir(html)) if not n.startswith('index.') and n != 'tracks' and n not in fleet_wide]
        if os.path.isdir(os.path.join(html, 'tracks')):
            names += ['tracks/' + n for n in sorted(os.listdir(os.path.join(html, 'tracks')))]
        result['pages'] = 'moved' if staged else 'sent'
        if staged:
            result['htmlDir'] = html
            result['html'] = names
        else:
            for name in names:
                with open(os.path.join(html, name), 'rb') as f:
                    result['html'].append((name, zlib.compress(f.read(), 6)))
        timings['html'] = time.time() - t
        if settings.get('grid') is not None:
            t = time.time()
            grid = os.path.join(work, 'grid.json')
            with open(grid, 'wb') as f:
                f.write(settings['grid'])
            result['partials'] = run_mqa(binary, tune_args(store, grid, config, settings))
            timings['tune'] = time.time() - t
        if settings.get('keepStores'):
            # Copied under the attempt's name; the driver keeps only the
            # committed attempt's copy.
            dest = os.path.join(settings['out'], 'stores', '_attempts')
            os.makedirs(dest, exist_ok=True)
            final = os.path.join(dest, os.path.basename(store))
            shutil.copyfile(store, final + '.part')
            os.replace(final + '.part', final)
            result['store'] = final
        return result
    except BaseException:
        # A failed attempt's staged pages are nobody's: the driver would
        # only sweep them at the end of the job.
        if staged:
            shutil.rmtree(staged, ignore_errors=True)
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------------------
# Driver

def check_options(binary, settings, args):
    """Checks --config, --grid, --target, --lead-ms, --seed and --replicates
    with mqa itself, on a store of one simulated meeting, before anything
    runs or an earlier output is removed: a bad value is a usage error in a
    second, not every shard's failure (retried) after the fleet's ingest."""
    work = tempfile.mkdtemp(prefix=work_prefix(settings) + 'check-')
    try:
        logs, store = os.path.join(work, 'logs'), os.path.join(work, 'check.sqlite')
        run_mqa(binary, ['simulate', '--meetings', '1', '--seed', '1', '--out', logs])
        run_mqa(binary, ['ingest', '--db', store, '--format', 'json', '-r', logs], ok=(0, 3))
        config = []
        if settings['config'] is not None:
            config = ['--config', os.path.join(work, 'config.json')]
            with open(config[1], 'wb') as f:
                f.write(settings['config'])
        checks = [('report fleet', ['report', 'fleet', '--db', store, '--format', 'json'] + config)]
        # Messages name the user's files, not the copies checked here.
        names = {}
        if config:
            names[config[1]] = args.config
        if settings['grid'] is not None:
            grid = os.path.join(work, 'grid.json')
            with open(grid, 'wb') as f:
                f.write(settings['grid'])
            checks.append(('tune', tune_args(store, grid, config, settings)))
            names[grid] = args.grid
        if not args.no_cohorts:
            checks.append(('report cohorts', ['report', 'cohorts', '--db', store, '--by', 'platform', '--format', 'json']
                           + bootstrap_args(args)))
        for label, check in checks:
            status, _, err = run_mqa_status(binary, check)
            for copy, given in names.items():
                err = err.replace(copy, given)
            if status == 64:
                first = err.strip().splitlines()[0] if err.strip() else 'usage error'
                if first.startswith('Error: '):
                    first = first[len('Error: '):]
                usage_error('%s (as mqa %s would run it on the shards)' % (first, label))
            if status != 0:
                raise RuntimeError('mqa %s failed (%d) on a one-meeting store: %s' % (label, status, err[-2000:]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def sweep_scratch(settings):
    """Removes what this job's attempts left in the scratch folder the
    driver sees (--work, else the temp dir: local mode, or a shared one): a
    killed attempt cannot clean up after itself. On a cluster, an executor's
    own temp dir goes with its container."""
    base = settings.get('work') or tempfile.gettempdir()
    prefix = work_prefix(settings)
    try:
        names = [n for n in os.listdir(base) if n.startswith(prefix)]
    except OSError:
        return
    for name in names:
        shutil.rmtree(os.path.join(base, name), ignore_errors=True)


class Usage(argparse.ArgumentParser):
    """argparse, with mqa's exit status for a usage error (64, not 2)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(64, '%s: error: %s\n' % (self.prog, message))


def usage_error(message):
    """Stops the job as a usage error (exit 64), saying why."""
    log('error: %s' % message)
    raise SystemExit(64)


def parse_args(argv):
    p = Usage(prog='mqa_spark.py', description='mqa over a fleet of logs, on Spark: one store per shard, merged into '
              'what one store would report (Docs/scale.md).',
              epilog='exit status: 0 done; 3 done, but lines were rejected (rejects.json); 1 failed, or an input '
                     'could not be read (everything else is done; ingest.json lists it); 64 bad arguments, --config '
                     'or --grid (checked with mqa before anything runs).')
    p.add_argument('--logs', required=True, help='folder or URI of logs (file:, hdfs:, s3a:, ...)')
    p.add_argument('--out', required=True, help='output folder (local or shared by the driver)')
    p.add_argument('--shards', type=int, default=2,
                   help='stores to split the fleet into, by meeting (default 2; one task each)')
    p.add_argument('--grid', help='tuning grid JSON: also writes tune.json')
    p.add_argument('--target', help='tune: the tier an alarm is raised at (mqa tune --target; default mqa\'s)')
    p.add_argument('--lead-ms', type=int, help='tune: how long before a stall an alarm counts (mqa tune --lead-ms)')
    p.add_argument('--config', help='tier config JSON for the reports (and the values of the keys --grid leaves out)')
    p.add_argument('--top', type=int, help='fleet.json: only the N worst (default: every meeting)')
    p.add_argument('--keep-stores', action='store_true', help='keep the shard stores under OUT/stores/')
    p.add_argument('--mqa', default='mqa', help='the mqa binary (a path, or the name of a file shipped with --files)')
    p.add_argument('--work', help='executor scratch folder for shard stores (default: the temp dir)')
    p.add_argument('--no-html', action='store_true',
                   help='skip meetings/*.html (every report travels through the driver: ~240 KB a meeting)')
    p.add_argument('--cohorts', default=','.join(COHORT_FIELDS),
                   help='fields for cohorts/FIELD.{json,md} and cohorts.parquet (comma list; default: all seven)')
    p.add_argument('--trends-by', default='netType',
                   help='fields for trends-by-FIELD.{json,md} besides the whole fleet\'s trends (comma list; default netType)')
    p.add_argument('--every', choices=['day', 'week'], default='day', help='the trends\' period')
    p.add_argument('--seed', type=int, help='seed of the cohort intervals\' bootstrap (mqa\'s default)')
    p.add_argument('--replicates', type=int, help='bootstrap resamples (mqa\'s default)')
    p.add_argument('--no-cohorts', action='store_true', help='skip the cohort and trend reports')
    p.add_argument('--spread-dumps', choices=['auto', 'yes', 'no'], default='auto',
                   help='place each stats dump in its meeting\'s shard, asking mqa (which reads the dump once more) '
                        'its meeting; else every dump goes to shard 0. auto: when the job has more than 2 cores')
    p.add_argument('--hadoop-read', action='store_true',
                   help='read a local folder through Spark (binaryFiles) as a cluster URI is read')
    a = p.parse_args(argv)
    if a.shards < 1:
        p.error('--shards must be >= 1')
    if a.top is not None and a.top < 1:
        p.error('--top must be >= 1')
    if a.grid is None and (a.target is not None or a.lead_ms is not None):
        p.error('--target and --lead-ms tune: they need --grid')
    if a.no_cohorts and (a.seed is not None or a.replicates is not None):
        p.error('--seed and --replicates are the cohort intervals\' bootstrap: not with --no-cohorts')
    try:
        a.cohort_fields = parse_fields(a.cohorts, '--cohorts')
        a.trend_fields = parse_fields(a.trends_by, '--trends-by')
    except ValueError as e:
        p.error(str(e))
    return a


def local_dir(logs):
    """The local folder of --logs, or None for a cluster URI (hdfs:, s3a:, ...)."""
    if logs.startswith('file://'):
        return logs[len('file://'):]
    if logs.startswith('file:'):
        return logs[len('file:'):]
    return None if '://' in logs else logs


def list_local(root, left_out=None):
    """Every file under root, recursively, leaving out names that start with
    '.' or '_' as Hadoop's listing does (so both ways read the same files);
    those are appended to `left_out`, for the job to say so. Symbolic links
    are followed, as `mqa ingest -r` follows them, each folder once."""
    out, seen = [], set()
    for d, dirs, names in os.walk(root, followlinks=True):
        st = os.stat(d)
        if (st.st_dev, st.st_ino) in seen:
            dirs[:] = []
            continue
        seen.add((st.st_dev, st.st_ino))
        hidden = [x for x in dirs + names if x.startswith(('.', '_'))]
        if left_out is not None:
            left_out += [os.path.join(d, x) for x in hidden]
        dirs[:] = sorted(x for x in dirs if not x.startswith(('.', '_')))
        out += [os.path.join(d, n) for n in names if not n.startswith(('.', '_'))]
    return sorted(out)


def is_utf8(path):
    """Whether a listed path (undecodable bytes kept as surrogates) is UTF-8."""
    try:
        path.encode('utf-8')
        return True
    except UnicodeEncodeError:
        return False


def file_digest(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.hexdigest()


def content_key(path, data):
    """SHA-256 hex of what mqa reads of a file: the decompressed content of
    a whole gzip or zstd file, else its bytes; None for a damaged gzip or
    zstd file, which mqa never takes for a repeat (its record of the first
    copy is not complete: a byte copy is read, and fails, again)."""
    kind = compression_of(data)
    if kind is not None:
        text, complete = gunzip(data) if kind == 'gzip' else unzstd(path, data)
        return hashlib.sha256(text).hexdigest() if complete else None
    return hashlib.sha256(data).hexdigest()


def is_compressed(path):
    """Whether a local file starts as gzip or zstd does."""
    with open(path, 'rb') as f:
        return compression_of(f.read(4)) is not None


def read_local(uri):
    with open(uri[len('file:'):], 'rb') as f:
        return f.read()


def log(msg):
    sys.stderr.write('mqa-spark: %s\n' % msg)
    sys.stderr.flush()


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    started = time.time()
    from pyspark.sql import SparkSession
    from pyspark.sql import types as T

    out = os.path.abspath(args.out) if '://' not in args.out else args.out
    logs = args.logs if '://' in args.logs else os.path.abspath(args.logs)
    shards = args.shards
    driver_mqa = find_mqa(args.mqa)

    def read_opt(path, flag):
        if path is None:
            return None
        try:
            with open(path, 'rb') as f:
                return f.read()
        except OSError as e:
            usage_error('%s %s: cannot read it (%s)' % (flag, path, e.strerror or e))

    grid, config = read_opt(args.grid, '--grid'), read_opt(args.config, '--config')
    token = os.urandom(16).hex()
    settings = {
        'htmlToken': token,
        'mqa': args.mqa, 'work': args.work, 'out': out, 'keepStores': args.keep_stores, 'noHtml': args.no_html,
        'noCohorts': args.no_cohorts, 'grid': grid, 'config': config,
        'target': args.target, 'leadMs': args.lead_ms,
    }
    check_options(driver_mqa, settings, args)
    os.makedirs(out, exist_ok=True)
    clear_earlier_outputs(out)
    # However the job ends: what its attempts left where the driver sees.
    atexit.register(sweep_scratch, settings)
    spark = SparkSession.builder.appName('mqa-fleet').getOrCreate()
    sc = spark.sparkContext
    sc.setLogLevel('WARN')
    sc._jsc.hadoopConfiguration().set('mapreduce.input.fileinputformat.input.dir.recursive', 'true')

    # Meeting pages are written here by executors that see this folder
    # (html_stage); a folder left by a job that died is cleared first.
    stage = os.path.join(out, HTML_STAGE)
    shutil.rmtree(stage, ignore_errors=True)
    os.makedirs(stage)
    # Gone however the driver ends (a failed job included), not only after
    # the pages are moved.
    atexit.register(shutil.rmtree, stage, True)
    with open(os.path.join(stage, 'job'), 'w', encoding='ascii') as f:
        f.write(token)
    settings['htmlStage'] = stage

    # Pass 1: every file's fingerprint, for path order and repeated content.
    t = time.time()
    unreadable = []  # (path, reason): inputs that could not be read
    parallelism = max(sc.defaultParallelism, shards)
    local = None if args.hadoop_read else local_dir(logs)
    if local is not None:
        # A folder the driver sees (local mode, or a shared mount): listed and
        # fingerprinted here, and each task reads its files itself, which
        # spares the bytes a trip through the JVM (binaryFiles).
        # Two reading tasks a core: each task costs ~0.1 s before its
        # first file, and one per 64 files (34 on 2,199 files) made the
        # routing stage 3.5-3.9 s where 2 tasks take 0.7 s.
        left_out = []
        fingerprints = []
        for path in list_local(local, left_out):
            if not is_utf8(path):
                unreadable.append((path, 'cannot read it (its name is not UTF-8, which mqa cannot open; rename it); '
                                         'what it holds is not ingested'))
                continue
            try:
                fingerprints.append(('file:' + path, file_digest(path)))
            except OSError as e:
                # As `mqa ingest` says of an input it cannot read (a
                # dangling link, no permission): the others go on.
                unreadable.append((path, 'cannot read it (%s); what it holds is not ingested' % (e.strerror or e)))
        # Compressed files are hashed decompressed: ~2 ms a zstd file (the
        # zstd command). A few here; many by tasks, in parallel, which costs
        # ~1 s of Spark before the first.
        contents = dict(fingerprints)
        compressed = [p for p, _ in fingerprints if is_compressed(p[len('file:'):])]
        if len(compressed) <= 500:
            contents.update((p, content_key(p, read_local(p))) for p in compressed)
        else:
            tasks = max(1, min(len(compressed), ROUTING_TASKS_PER_CORE * parallelism))
            contents.update(sc.parallelize(compressed, tasks).map(lambda p: (p, content_key(p, read_local(p)))).collect())
        if left_out:
            log('left out %d name%s starting with . or _ (Hadoop\'s hidden names; mqa ingest -r reads those starting '
                'with _): %s%s' % (len(left_out), '' if len(left_out) == 1 else 's', ', '.join(sorted(left_out)[:5]),
                                   ', ...' if len(left_out) > 5 else ''))
        reading_tasks = max(1, min(len(fingerprints), ROUTING_TASKS_PER_CORE * parallelism))
        files = (sc.parallelize([p for p, _ in fingerprints], reading_tasks)
                 .map(lambda p: (p, read_local(p))))
    else:
        files = sc.binaryFiles(logs, minPartitions=parallelism)
        keys = files.map(lambda pb: (pb[0], hashlib.sha256(pb[1]).hexdigest(), content_key(pb[0], pb[1]))).collect()
        fingerprints = [(p, d) for p, d, _ in keys]
        contents = {p: c for p, _, c in keys}
    fingerprints.sort()
    order, skipped, seen = {}, set(), set()
    for i, (path, _) in enumerate(fingerprints):
        order[path] = i
        # By decompressed content, as mqa skips a file: a .gz copy of a
        # plain log is a repeat too (and would count all its lines again).
        if contents[path] is None:
            continue  # damaged: read (and failed) each time, as by mqa
        if contents[path] in seen:
            skipped.add(path)
        seen.add(contents[path])
    if not order:
        for path, reason in unreadable:
            log('%s: %s' % (path, reason))
        raise SystemExit('no files under %s' % logs if not unreadable else 'no file under %s could be read' % logs)
    log('%d files (%d with content seen before) listed in %.1f s' % (len(order), len(skipped), time.time() - t))
    order_b = sc.broadcast(order)
    skipped_b = sc.broadcast(skipped)
    # Local files go whole by reference (LocalFile): the digest of pass 1
    # lets the shard check that what it copies is what was routed.
    digests_b = sc.broadcast(dict(fingerprints) if local is not None else None)

    # Pass 2: split by meeting, shuffle to shards, run mqa per shard.
    t = time.time()
    # Asking mqa for a dump's meeting reads the dump once more (its shard
    # reads it again), so it pays when more than two cores share the dumps:
    # on two, one shard's core reading them all is as fast.
    spread = args.spread_dumps == 'yes' or (args.spread_dumps == 'auto' and sc.defaultParallelism > 2)

    def pieces(pb):
        path, data = pb
        if path in skipped_b.value:
            return []
        digests = digests_b.value
        whole = LocalFile(path[len('file:'):], digests[path]) if digests is not None else None
        return [(s, (name, body))
                for s, name, body in split_file(path, data, order_b.value[path], shards, whole, sniff=sniff,
                                                dump_meeting=meeting_of_dump if spread else None)]

    def sniff(text):
        return sniff_format(find_mqa(settings['mqa']), text, work_prefix(settings), settings.get('work'))

    def meeting_of_dump(name, data, path):
        return dump_meeting(find_mqa(settings['mqa']), name, data, path, work_prefix(settings), settings.get('work'))

    shard_results = (files.flatMap(pieces)
                     .partitionBy(shards, lambda k: k)
                     .mapPartitionsWithIndex(lambda i, it: [run_shard(i, (v for _, v in it), settings)])
                     .collect())
    # collect() returns one result per partition: the committed attempt's.
    shard_results.sort(key=lambda r: r['shard'])
    log('shards ran in %.1f s' % (time.time() - t))

    # Merge.
    t = time.time()
    path_of = {i: p for p, i in order.items()}
    failed = unreadable + [(plain_path(path_of[o]), reason) for r in shard_results for o, _, reason in r['failed']]
    # As one ingest counts: `files` are those read (skipped ones included),
    # `failedFiles` those that could not be.
    summary = {'files': len(order) - sum(r['summary']['uncounted'] for r in shard_results),
               'skippedFiles': len(skipped), 'failedFiles': len(failed)}
    for k in SUMMARY_KEYS:
        summary[k] = sum(r['summary'][k] for r in shard_results)
    if failed:
        summary['failed'] = [{'file': p, 'reason': reason} for p, reason in failed]
        for p, reason in failed:
            log('%s: %s' % (p, reason))
    fleet_parts = [r['fleet'] for r in shard_results if r['fleet'] is not None]
    if not fleet_parts:
        # Only rejected or ignored lines: the totals say what was read, and
        # the job fails as one store's `report fleet` does ("holds no meetings").
        write_whole(os.path.join(out, 'ingest.json'), json.dumps(summary) + '\n')
        write_rejects(out, shard_results, order)
        print(json.dumps(summary))
        spark.stop()
        raise SystemExit('no meeting in the logs under %s: %d lines, %d rejected, %d ignored, %d files not read (%s)'
                         % (logs, summary['lines'], summary['rejected'], summary['ignored'], len(failed),
                            os.path.join(out, 'ingest.json')))
    fleet = merge_fleet(fleet_parts, top=args.top)
    write_whole(os.path.join(out, 'fleet.json'), render(fleet) + '\n')

    if args.grid:
        parts_dir = tempfile.mkdtemp(prefix='mqa-partials-')
        try:
            paths = []
            for r in shard_results:
                if r['partials'] is not None:
                    p = os.path.join(parts_dir, 'shard-%d.json' % r['shard'])
                    with open(p, 'w', encoding='utf-8') as f:
                        f.write(r['partials'])
                    paths.append(p)
            run_mqa(driver_mqa, ['tune', '--merge'] + paths + ['--format', 'json', '--out', os.path.join(out, 'tune.json')])
        finally:
            shutil.rmtree(parts_dir, ignore_errors=True)

    if not args.no_cohorts:
        write_cohorts(spark, driver_mqa, shard_results, out, args)

    meetings_dir = os.path.join(out, 'meetings')
    shutil.rmtree(meetings_dir, ignore_errors=True)
    os.makedirs(os.path.join(meetings_dir, 'tracks'))
    written = set()
    for r in shard_results:
        if r.get('htmlDir'):
            # Written by the executor into the stage: moved, not copied.
            for name in r['html']:
                move_page(os.path.join(r['htmlDir'], name), os.path.join(meetings_dir, name))
                written.add(name)
            continue
        for name, blob in r['html']:
            write_whole(os.path.join(meetings_dir, name), zlib.decompress(blob))
            written.add(name)
    # Other attempts' pages, and what a shard left out, go with the stage.
    shutil.rmtree(stage, ignore_errors=True)
    write_index(meetings_dir, fleet, written)

    schema = T.StructType([
        T.StructField('rank', T.IntegerType(), False),
        T.StructField('meeting', T.StringType(), False),
        T.StructField('title', T.StringType(), True),
        T.StructField('engine', T.StringType(), True),
        T.StructField('start', T.LongType(), True),
        T.StructField('durationMs', T.LongType(), True),
        T.StructField('participants', T.IntegerType(), False),
        # Participants per platform and per SDK version, where their joins name them.
        T.StructField('platforms', T.MapType(T.StringType(), T.IntegerType()), False),
        T.StructField('sdkVersions', T.MapType(T.StringType(), T.IntegerType()), False),
        T.StructField('score', T.DoubleType(), False),
        T.StructField('stalledMs', T.LongType(), False),
        T.StructField('lowTierMs', T.LongType(), True),  # null: a CDN meeting, no quality data
        T.StructField('abnormalDisconnects', T.IntegerType(), False),
        T.StructField('issues', T.MapType(T.StringType(), T.IntegerType()), False),
    ])
    rows = [(e['rank'], e['meeting'], e['title'], e['engine'], e['start'], e['durationMs'], e['participants'],
             dict(e['platforms']), dict(e['sdkVersions']), float(e['score']), e['stalledMs'], e['lowTierMs'],
             e['abnormalDisconnects'], dict(e['issues']))
            for e in fleet['ranked']]
    spark.createDataFrame(rows, schema).coalesce(1).write.mode('overwrite').parquet(os.path.join(out, 'fleet.parquet'))

    stores_dir = os.path.join(out, 'stores')
    if args.keep_stores:
        committed = {r['store'] for r in shard_results if r['store']}
        for r in shard_results:
            if r['store']:
                os.replace(r['store'], os.path.join(stores_dir, 'shard-%d.sqlite' % r['shard']))
        attempts = os.path.join(stores_dir, '_attempts')
        for name in os.listdir(attempts) if os.path.isdir(attempts) else []:
            if os.path.join(attempts, name) not in committed:
                log('dropped the store of an attempt that did not commit: %s' % name)
        shutil.rmtree(attempts, ignore_errors=True)

    timing = {'totalS': round(time.time() - started, 2), 'mergeS': round(time.time() - t, 2),
              'shards': [{'shard': r['shard'], 'attempt': r['attempt'], 'files': r['files'], 'pages': r.get('pages'),
                          **{k: round(v, 2) for k, v in r['timings'].items()}} for r in shard_results]}
    write_whole(os.path.join(out, 'ingest.json'), json.dumps(summary) + '\n')
    write_rejects(out, shard_results, order)
    write_whole(os.path.join(out, 'timings.json'), json.dumps(timing, indent=2) + '\n')
    print(json.dumps(summary))
    log('%d meetings in %d shards; wrote %s in %.1f s' % (fleet['meetings'], shards, out, time.time() - started))
    spark.stop()
    if failed:
        # As `mqa ingest`: everything else is stored and reported, but an
        # input was not read; a batch pipeline must see it.
        raise SystemExit('%d input%s could not be read (listed above and in %s); everything else is done'
                         % (len(failed), '' if len(failed) == 1 else 's', os.path.join(out, 'ingest.json')))
    if summary['rejected']:
        # As `mqa ingest` (cli.md): every valid line is stored and every
        # report written, but lines were rejected; a batch pipeline must see it.
        log('%d lines rejected: listed in %s' % (summary['rejected'], os.path.join(out, 'rejects.json')))
        raise SystemExit(3)


def write_cohorts(spark, driver_mqa, shard_results, out, args):
    """The cohort and trend reports of the whole fleet, from the shards'
    partials (`mqa report cohorts --merge`, `mqa report trends --merge`:
    equal to one store's), and their Parquet tables."""
    from pyspark.sql import types as T
    started = time.time()
    # Kept: `mqa compare --merge A B OUT/cohorts/partials/*.json` gates a
    # release on the whole fleet later, as on one store.
    parts_dir = os.path.join(out, 'cohorts', 'partials')
    shutil.rmtree(parts_dir, ignore_errors=True)
    os.makedirs(parts_dir)
    paths = []
    for r in shard_results:
        if r['cohorts'] is not None:
            p = os.path.join(parts_dir, 'shard-%d.json' % r['shard'])
            # Whole or not at all: a later `compare --merge` reads these.
            write_whole(p, zlib.decompress(r['cohorts']))
            paths.append(p)
    if not paths:
        return
    bootstrap = bootstrap_args(args)

    def run(command, extra, path, fmt):
        run_mqa(driver_mqa, ['report', command, '--merge'] + paths + extra + bootstrap
                + ['--format', fmt, '--out', path + '.' + fmt])

    # Every report in json and md: separate mqa runs, one per core at a
    # time (one after another they took 1.5 s of the driver's 300-meeting
    # merge). map keeps their order and raises the first failure.
    jobs = [('cohorts', ['--by', field], os.path.join(out, 'cohorts', field)) for field in args.cohort_fields]
    jobs += [('trends', ['--every', args.every], os.path.join(out, 'trends'))]
    jobs += [('trends', ['--every', args.every, '--by', field], os.path.join(out, 'trends-by-' + field))
             for field in args.trend_fields]
    for _, _, path in jobs:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    # As many as the driver may use, at most 4: each run holds every
    # shard's partials.
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(len(os.sched_getaffinity(0)), 4)) as pool:
        list(pool.map(lambda job: run(*job), [(c, e, p, fmt) for c, e, p in jobs for fmt in ('json', 'md')]))

    def parsed(path):
        with open(path + '.json', encoding='utf-8') as f:
            return json.load(f)

    cohorts = [parsed(path) for command, _, path in jobs if command == 'cohorts']
    trends = [parsed(path) for command, _, path in jobs if command == 'trends']
    merged = time.time()
    log('%d cohort and %d trend reports merged in %.1f s' % (len(cohorts), len(trends), merged - started))

    figures = figure_fields(T)
    cohort_schema = T.StructType([
        T.StructField('by', T.StringType(), False),
        T.StructField('rank', T.IntegerType(), True),  # null: the participants without a value
        T.StructField('value', T.StringType(), True),
    ] + figures)
    trend_schema = T.StructType([
        T.StructField('every', T.StringType(), False),
        T.StructField('by', T.StringType(), True),  # null: the whole fleet
        T.StructField('period', T.StringType(), False),
        T.StructField('start', T.LongType(), False),
        T.StructField('value', T.StringType(), True),
    ] + figures)
    for name, schema, rows in (('cohorts.parquet', cohort_schema, cohort_rows(cohorts)),
                               ('trends.parquet', trend_schema, trend_rows(trends))):
        spark.createDataFrame(rows, schema).coalesce(1).write.mode('overwrite').parquet(os.path.join(out, name))
    log('cohorts.parquet and trends.parquet written in %.1f s' % (time.time() - merged))


def write_whole(path, content):
    """Writes `content` (text as UTF-8, or bytes) to `path` whole or not at
    all: a temporary file beside it, flushed to disk, then renamed."""
    data = content.encode('utf-8', 'surrogateescape') if isinstance(content, str) else content
    part = path + '.part'
    try:
        with open(part, 'wb') as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(part, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(part)
        raise


def plain_path(uri):
    """A listed file's path as the user gave it: a local one without `file:`."""
    return uri[len('file:'):] if uri.startswith('file:') else uri


def write_rejects(out, shard_results, order):
    """rejects.json: every rejected line of every shard, by its original
    file (in path order), as `mqa query rejects` lists them on one store.
    A file cut into one piece per meeting has `piece` > 0 or pieces beside
    it, and its line numbers are the piece's (Docs/scale.md)."""
    path_of = {i: p for p, i in order.items()}
    rows = sorted(r for result in shard_results for r in result.get('rejects', []))
    listing = [{'file': plain_path(path_of[o]),
                'piece': piece, 'line': line, 'reason': reason, 'raw': raw}
               for o, piece, line, reason, raw in rows]
    write_whole(os.path.join(out, 'rejects.json'),
                json.dumps({'schema': 'mqa.spark-rejects/1', 'rejected': len(listing), 'rows': listing},
                           ensure_ascii=False, indent=1) + '\n')


# What a run writes into --out (the trends files by prefix): a run into a
# folder of an earlier one removes them first, so that no file of other
# logs (a tune.json of a run with --grid) is left beside this run's.
OUTPUTS = ['fleet.json', 'tune.json', 'ingest.json', 'rejects.json', 'timings.json', 'meetings', 'stores', 'cohorts',
           'fleet.parquet', 'cohorts.parquet', 'trends.parquet']


def clear_earlier_outputs(out):
    for name in OUTPUTS:
        path = os.path.join(out, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.remove(path)
    for name in os.listdir(out):
        if name.startswith('trends') and name.endswith(('.json', '.md')):
            os.remove(os.path.join(out, name))


def mix_text(counts):
    """`ios ×3, android ×2` from a fleet entry's {value: participants}, as
    mqa's own fleet table shows it (in mqa's order); '—' when none is known."""
    return ', '.join('%s ×%d' % (v, n) for v, n in (counts or {}).items()) or '—'


def write_index(directory, fleet, written):
    """index.html: every meeting, worst first, linked to its report (with
    --top, the worst N ranked, then links to the other meetings' pages)."""
    import html as h
    rows = []
    ranked = set()
    for e in fleet['ranked']:
        name = safe_file_name(e['meeting'], 'html')
        ranked.add(name)
        cell = h.escape(e['meeting'])
        if name in written:
            cell = '<a href="%s">%s</a>' % (h.escape(name), cell)
        rows.append('<tr><td class="n">%d</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class="n">%s</td><td class="n">%d</td>'
                    '<td class="n">%s</td><td class="n">%d</td></tr>'
                    % (e['rank'], cell, h.escape(e['title'] or '—'), h.escape(mix_text(e.get('platforms'))),
                       h.escape(mix_text(e.get('sdkVersions'))), h.escape(str(e['score'])),
                       e['stalledMs'], 'no quality data' if e['lowTierMs'] is None else e['lowTierMs'],
                       e['abnormalDisconnects']))
    rest = sorted(n for n in written if n not in ranked and not n.startswith('tracks/'))
    others = ''
    if rest:
        others = ('<p>The %d worst are ranked above (--top); the other meetings\' reports:</p>\n<ul>\n%s\n</ul>\n'
                  % (len(fleet['ranked']), '\n'.join('<li><a href="%s">%s</a></li>' % (h.escape(n), h.escape(n[:-len('.html')]))
                                                     for n in rest)))
    page = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>mqa fleet</title>\n'
            '<style>body{font-family:system-ui,sans-serif;margin:2em}table{border-collapse:collapse}'
            'td,th{padding:.2em .6em;border-bottom:1px solid #ddd}.n{text-align:right}</style></head><body>\n'
            '<h1>Fleet: %d meetings, worst first</h1>\n<p>Score = %s.</p>\n<table>\n'
            '<tr><th>#</th><th>meeting</th><th>title</th><th>platforms</th><th>SDK</th><th>score</th><th>stalled ms</th><th>poor/bad ms</th>'
            '<th>abnormal disc.</th></tr>\n%s\n</table>\n%s</body></html>\n'
            % (fleet['meetings'], h.escape(fleet['score']), '\n'.join(rows), others))
    write_whole(os.path.join(directory, 'index.html'), page)


if __name__ == '__main__':
    main()
