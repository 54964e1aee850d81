-- The mqa store, schema version 3 (PRAGMA user_version; older stores are
-- upgraded in place by the first mqa that may write them). Open any store with the sqlite3 shell:
--   sqlite3 mqa.sqlite '.read Queries/rejects.sql'
-- Quality reports live in compressed column chunks (report_chunks.data, see
-- Docs/store.md); every chunk row also carries count, time range and
-- min/max/sum per metric, so summaries need no decoding. All other events
-- live in compressed blocks too (event_chunks).

CREATE TABLE IF NOT EXISTS meetings (
    id      INTEGER PRIMARY KEY,
    meeting TEXT NOT NULL UNIQUE,
    -- not 0 when data arrived since the summaries below were computed: 1,
    -- or the stamp of the commit that brought it (summaries computed on
    -- another connection are stored only while the stamp is unchanged)
    stale   INTEGER NOT NULL DEFAULT 1
);

-- One row per client (local user) of a meeting: the (meeting, uid) pair.
CREATE TABLE IF NOT EXISTS clients (
    id         INTEGER PRIMARY KEY,
    meeting_id INTEGER NOT NULL REFERENCES meetings(id),
    uid        TEXT NOT NULL,
    UNIQUE (meeting_id, uid)
);

-- Quality reports of one client, a time-ordered block each. Chunks of a
-- client never overlap in time (ingest merges and re-chunks), so reading a
-- client's series is reading its chunks in first_ts order.
CREATE TABLE IF NOT EXISTS report_chunks (
    id          INTEGER PRIMARY KEY,
    client_id   INTEGER NOT NULL REFERENCES clients(id),
    first_ts    INTEGER NOT NULL,
    last_ts     INTEGER NOT NULL,
    count       INTEGER NOT NULL,
    loss_min    REAL, loss_max    REAL, loss_sum    REAL,
    rtt_min     REAL, rtt_max     REAL, rtt_sum     REAL,
    jitter_min  REAL, jitter_max  REAL, jitter_sum  REAL,
    bitrate_min REAL, bitrate_max REAL, bitrate_sum REAL,
    -- over the reports whose MOS is in [1, 5] (0 and null are placeholders)
    mos_count   INTEGER NOT NULL, mos_min REAL, mos_max REAL, mos_sum REAL,
    data        BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS report_chunks_by_client ON report_chunks (client_id, first_ts);

-- Every other known event of a client, compressed like the reports: a
-- time-ordered block per row (ts, kind, canonical payload JSON; see
-- Docs/store.md). Blocks of a client never overlap, and an event is stored
-- once: ingest merges a client's new events with the blocks they overlap and
-- drops repeats (same ts, event and payload), across files and runs.
CREATE TABLE IF NOT EXISTS event_chunks (
    id        INTEGER PRIMARY KEY,
    client_id INTEGER NOT NULL REFERENCES clients(id),
    first_ts  INTEGER NOT NULL,
    last_ts   INTEGER NOT NULL,
    count     INTEGER NOT NULL,
    kinds     INTEGER NOT NULL,  -- bit (1 << kind) set for each event kind present
    data      BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS event_chunks_by_client ON event_chunks (client_id, first_ts);

CREATE TABLE IF NOT EXISTS event_kinds (
    kind INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
INSERT OR IGNORE INTO event_kinds (kind, name) VALUES
    (1, 'meeting_join'), (2, 'meeting_leave'), (3, 'disconnect'), (4, 'reconnect'),
    (5, 'quality_report'), (6, 'connection_quality_change'), (7, 'active_speakers_change'),
    (8, 'stream_subscribe'), (9, 'stream_unsubscribe'), (10, 'receive_stream_status'),
    (11, 'user_enter'), (12, 'user_leave'), (13, 'member_media_state'),
    (14, 'room_title_change'), (15, 'room_share_start'), (16, 'room_share_stop'),
    (17, 'audio_route_change'), (18, 'audio_interruption'), (19, 'device_change'),
    (20, 'sub_meeting_move'), (21, 'user_handup'), (22, 'share_broadcast_start'),
    (23, 'share_broadcast_stop'), (24, 'network_change');

-- Ingested inputs. hash is the SHA-256 of the content actually parsed
-- (decompressed), its 32 bytes as a BLOB (lower(hex(hash)) in the shell), set when
-- the input was read to its end; stores made before schema version 2 keep
-- their 32-hex fingerprints as TEXT. path_key is a 32-bit FNV-1a hash of
-- path's UTF-8, the index's key: lookups give both, path_key = ? AND path = ?
-- (an index over whole paths was a third of the table's bytes).
-- status: 'partial' = a kill interrupted it, lines_done is the resume point
-- and prefix_hash the SHA-256 of the content through that line (32 bytes; checked
-- before resuming; NULL once the input is finished); 'done' = read whole;
-- 'changed' = read whole, but the
-- file changed while it was read (what was read is stored; ingesting the
-- complete file later stores the rest); 'superseded' = a partial ingest
-- whose file no longer starts with what was stored (ingested anew since).
-- The counters are the file's share of the ingest summary.
CREATE TABLE IF NOT EXISTS files (
    id          INTEGER PRIMARY KEY,
    hash        BLOB UNIQUE,
    path        TEXT NOT NULL,
    path_key    INTEGER NOT NULL,
    -- Compared one by one: an IN list built a temporary table on every
    -- INSERT and UPDATE of a row (two B-trees per input, 4 % of the writer).
    status      TEXT NOT NULL CHECK (status = 'partial' OR status = 'done' OR status = 'changed' OR status = 'superseded'),
    lines_done  INTEGER NOT NULL DEFAULT 0,
    prefix_hash BLOB,
    lines       INTEGER NOT NULL DEFAULT 0,
    events      INTEGER NOT NULL DEFAULT 0,
    reports     INTEGER NOT NULL DEFAULT 0,
    rejected    INTEGER NOT NULL DEFAULT 0,
    duplicates  INTEGER NOT NULL DEFAULT 0,
    ignored     INTEGER NOT NULL DEFAULT 0,
    ingested_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS files_by_path ON files (path_key);

-- Each distinct rejected text once: the reason and the raw bytes of the line
-- (its first 4 KiB, as a BLOB: invalid UTF-8 is kept as it was), keyed by
-- the SHA-256 of both. raw is NULL once an input has stored 16 MiB of
-- distinct raw text (size still says how long the line was); such a row
-- stands for every line of its reason and size, and is keyed by those: a
-- log of bad lines cannot blow up the store.
CREATE TABLE IF NOT EXISTS reject_texts (
    id     INTEGER PRIMARY KEY,
    hash   BLOB NOT NULL UNIQUE,
    reason TEXT NOT NULL,
    size   INTEGER NOT NULL,
    raw    BLOB
);

-- Every rejected line, never silently dropped: its file, its line number
-- and its text.
CREATE TABLE IF NOT EXISTS rejects (
    file_id INTEGER NOT NULL REFERENCES files(id),
    line    INTEGER NOT NULL,
    text_id INTEGER NOT NULL REFERENCES reject_texts(id),
    PRIMARY KEY (file_id, line)
) WITHOUT ROWID;

-- Which rules computed the summaries below (EventStore.summaryRevision,
-- one row): the first mqa that may write a store whose summaries an older
-- mqa computed marks every meeting stale, and they are computed anew.
CREATE TABLE IF NOT EXISTS summary_revision (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    revision INTEGER NOT NULL
);

-- Summaries: the tier engine's results under the default config, one row
-- per meeting, participant and subscription, so that the named
-- queries (and anyone with the sqlite3 shell) can rank and filter without
-- decoding chunks. Ingest recomputes the meetings it touched before it
-- finishes; `mqa report` and `mqa tiers` always recompute from the chunks,
-- under any --config.
CREATE TABLE IF NOT EXISTS meeting_summary (
    meeting_id       INTEGER PRIMARY KEY REFERENCES meetings(id),
    title            TEXT,
    engine           TEXT,            -- 'sfu', 'cdn', 'p2p', or NULL without a join
    start_ts         INTEGER,
    end_ts           INTEGER,
    participants     INTEGER NOT NULL,
    warm_reports     INTEGER NOT NULL,
    stalls           INTEGER NOT NULL,
    stalled_ms       INTEGER NOT NULL,
    low_tier_ms      INTEGER NOT NULL, -- warm time in poor or bad
    abnormal_disconnects INTEGER NOT NULL,
    issues           TEXT NOT NULL    -- JSON array of issue codes, one per issue
);

CREATE TABLE IF NOT EXISTS participant_summary (
    meeting_id   INTEGER NOT NULL REFERENCES meetings(id),
    uid          TEXT NOT NULL,
    connections  INTEGER NOT NULL,
    warm_reports INTEGER NOT NULL,
    cold_reports INTEGER NOT NULL,
    mos_mean REAL, mos_p5 REAL, mos_p50 REAL, mos_p95 REAL,
    loss_mean REAL, loss_p95 REAL, rtt_mean REAL, rtt_p95 REAL,
    jitter_mean REAL, jitter_p95 REAL, bitrate_mean REAL, bitrate_p5 REAL,
    excellent_ms INTEGER, good_ms INTEGER, fair_ms INTEGER, poor_ms INTEGER, bad_ms INTEGER, unknown_ms INTEGER,
    tier_changes INTEGER NOT NULL,
    flaps        INTEGER NOT NULL,
    sdk_agreement REAL,
    disconnects  INTEGER NOT NULL,
    PRIMARY KEY (meeting_id, uid)
);

-- One row per subscription (subscriber x published track). Stalls are
-- counted here rather than listed, to keep the store small: `mqa report
-- meeting` lists each stall with its tier.
CREATE TABLE IF NOT EXISTS track_summary (
    meeting_id      INTEGER NOT NULL REFERENCES meetings(id),
    subscriber      TEXT NOT NULL,
    publisher       TEXT NOT NULL,
    track           TEXT NOT NULL,
    kind            TEXT,
    subscribe_ts    INTEGER NOT NULL,
    end_ts          INTEGER NOT NULL,
    first_frame_ts  INTEGER,          -- NULL: never rendered
    stall_count     INTEGER NOT NULL,
    stalled_ms      INTEGER NOT NULL,
    stall_ratio     REAL NOT NULL,
    stalls_under_good_tier INTEGER NOT NULL,  -- began under excellent or good
    open_stalls     INTEGER NOT NULL          -- still stalled at the subscription's end
);
-- A meeting's rows are replaced whenever it is summarized again: without
-- this, each replacement scanned the whole table (quadratic in meetings;
-- a quarter of the summary time of a 265-meeting ingest).
CREATE INDEX IF NOT EXISTS track_summary_by_meeting ON track_summary (meeting_id);

PRAGMA user_version = 3;

-- What a stats dump's standard WebRTC stats say about a connection beyond
-- the quality feed (Docs/import.md, "Context"): never used for the
-- normative figures, shown beside them. One row per imported connection.
CREATE TABLE IF NOT EXISTS connection_context (
    client_id    INTEGER NOT NULL REFERENCES clients(id),
    connection   TEXT NOT NULL,     -- the dump's peer connection id
    paths        TEXT NOT NULL,     -- local candidate type/protocol in use, in order, ' > ' between
    cpu_ms       INTEGER NOT NULL,  -- outgoing video limited by the CPU
    bandwidth_ms INTEGER NOT NULL,  -- ... by the bandwidth
    other_ms     INTEGER NOT NULL,  -- ... by something else
    concealment  REAL,              -- concealed / received audio samples, 0-1
    PRIMARY KEY (client_id, connection)
);

-- The names an imported connection's sent media goes by in the other
-- participants' dumps (Docs/import.md, "One call, several dumps"): a track
-- whose publisher is one of a meeting's names is read as that name's
-- participant. One row per name; replaced with the connection's context.
CREATE TABLE IF NOT EXISTS connection_names (
    client_id  INTEGER NOT NULL REFERENCES clients(id),
    connection TEXT NOT NULL,
    name       TEXT NOT NULL,   -- a stream id, remote-<ssrc>, an endpoint id
    PRIMARY KEY (client_id, connection, name)
) WITHOUT ROWID;

-- The sender's own id of each video track an imported connection received
-- (Docs/import.md, "One call, several dumps"): browsers name a received
-- track anew, the description they received names the sender's track on
-- its SSRC. A meeting is read with each track by its sender's id, so that
-- two viewers' dumps of one camera show one track.
CREATE TABLE IF NOT EXISTS connection_tracks (
    client_id    INTEGER NOT NULL REFERENCES clients(id),
    connection   TEXT NOT NULL,
    track        TEXT NOT NULL,   -- the id the dump gives the track
    sender_track TEXT NOT NULL,   -- the sender's id for it
    PRIMARY KEY (client_id, connection, track)
) WITHOUT ROWID;

-- Another name of the publisher of each video track an imported connection
-- received (Docs/import.md, "One call, several dumps"): for remote-<ssrc>
-- (Firefox's stats name no track) the stream the received description's
-- msid names; for a stream id, the remote-<ssrc> of the SSRC it came on.
CREATE TABLE IF NOT EXISTS connection_publishers (
    client_id        INTEGER NOT NULL REFERENCES clients(id),
    connection       TEXT NOT NULL,
    publisher        TEXT NOT NULL,   -- the name the events give it
    sender_publisher TEXT NOT NULL,   -- its other name
    PRIMARY KEY (client_id, connection, publisher)
) WITHOUT ROWID;

-- What an imported connection received and when it lost packets or had
-- a long round trip (Docs/incidents.md, "Mesh calls: whose loss"): on a
-- mesh call, loss on one connection while the viewer's others were
-- clean, and on the other viewers' connections from the same sender, is
-- that sender's uplink; RTT the same way is the sender's side. Replaced
-- with the connection's context.
CREATE TABLE IF NOT EXISTS connection_received (
    client_id  INTEGER NOT NULL REFERENCES clients(id),
    connection TEXT NOT NULL,
    -- JSON: {"peers": [publishers as the dump names them], "spans": [[first, last]
    -- sample that received RTP, ms], "lossRuns": [[start, end, peak %]: samples above 5 %],
    -- and, when there are any, "rttRuns": [[start, end, peak ms]: samples above 400 ms]}
    received   TEXT NOT NULL,
    PRIMARY KEY (client_id, connection)
) WITHOUT ROWID;
