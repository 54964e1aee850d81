import Foundation
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// What every command needs from its surroundings, so tests can run
/// commands in-process with their own environment.
struct CommandContext {
    var environment: [String: String]
    var stdout: OutputSink
    var stderr: OutputSink
    /// The `--out` files a command opened: `CLI.main` closes them (renaming
    /// each into place) only when the command finished without throwing.
    let outputs = OutputRegistry()

    /// `--db PATH`, else `$MQA_DB`, else `./mqa.sqlite`. The store is always
    /// a file path: an empty value or `:memory:` would store nothing while
    /// reporting success, so both are usage errors.
    func databasePath(_ args: ParsedArguments) throws -> String {
        let (path, source) = args.value(Options.db).map { ($0, "--db") }
            ?? environment["MQA_DB"].map { ($0, "MQA_DB") } ?? ("mqa.sqlite", "")
        if path.isEmpty { throw UsageError("\(source) is empty: give the store's file path") }
        // Decoded with U+FFFD in place of bytes that are not UTF-8, the
        // variable would name another file (arguments are checked in main).
        if source == "MQA_DB", path.unicodeScalars.contains("\u{FFFD}"), let raw = getenv("MQA_DB"), String(validatingCString: raw) == nil {
            throw UsageError("MQA_DB ('\(path)') is not UTF-8 text; mqa takes file names as UTF-8: rename the store")
        }
        if path == ":memory:" {
            throw UsageError("\(source) ':memory:' would keep nothing: give the store's file path")
        }
        // cli.md: a file path, no SQLite URIs. Taken as a path, `file:///x`
        // named a folder `file:` and was "no store", or a store was made
        // there; a folder really named so is reached as `./file:…`.
        if path.lowercased().hasPrefix("file:") {
            throw UsageError("\(source) '\(path)' is an SQLite URI; mqa takes the store's file path: '\(Self.pathOfURI(path))'")
        }
        return path
    }

    /// The file path an SQLite `file:` URI names, for the message that
    /// refuses it: without the scheme, an empty or local authority and
    /// the `?` parameters.
    static func pathOfURI(_ uri: String) -> String {
        var rest = Substring(uri.dropFirst("file:".count))
        if let q = rest.firstIndex(of: "?") { rest = rest[..<q] }
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? ""
        }
        return rest.removingPercentEncoding ?? String(rest)
    }

    /// Where results go: `--out FILE`, else (or with `--out -`) stdout. The
    /// file appears only when the command succeeds (see `OutputSink`), and
    /// it may not be the store itself: writing over it would destroy the data.
    func output(_ args: ParsedArguments) throws -> OutputSink {
        guard let path = args.value(Options.out), path != "-" else { return stdout }
        try refuseStore(asOutput: path, args)
        if let fallback = args.outFormatFallback {
            // Exit 0 all the same (cli.md: the extension picks a format it
            // names); but a .pdf of Markdown should not go unremarked.
            stderr.write("note: '.\(TerminalText.escaped(fallback.ext))' names no format mqa writes: \(TerminalText.escaped(path)) gets \(fallback.format), "
                         + "the default (give --format to choose)\n")
        }
        let sink = try OutputSink(path: path)
        outputs.sinks.append(sink)
        return sink
    }

    /// A usage error when `path` is the store or one of its `-wal`/`-shm`
    /// files: the same file (device and inode) or, before they exist, the
    /// same absolute path.
    func refuseStore(asOutput path: String, _ args: ParsedArguments) throws {
        // No usable store path, no store to destroy: a command that needs
        // one says so when it opens it, and `tune --merge` reads none.
        guard let db = try? databasePath(args) else { return }
        for suffix in EventStore.fileSuffixes where FilePaths.same(path, db + suffix) {
            throw UsageError("--out '\(path)' is the store\(suffix.isEmpty ? "" : " (its \(suffix.dropFirst()) file)"); writing there would destroy it")
        }
    }

    /// A usage error when `path` is an existing file the command reads (a
    /// log to ingest, standard input, a grid, a config), or lies in a folder
    /// it reads: `ingest client.log -o client.log` replaced the log with its
    /// summary. Only path arguments count (options whose value is a FILE,
    /// PATH or DIR, and FILE positionals), by device and inode: a meeting id
    /// or a query name that an earlier run's output happens to bear is none.
    func refuseInput(asOutput path: String, _ args: ParsedArguments, spec: CommandSpec) throws {
        var words = spec.arguments.contains { $0.0.hasPrefix("FILE") } ? args.positionals : []
        for (name, values) in args.given where name != Options.out.spec.primary && name != Options.db.spec.primary {
            guard let kind = args.declared[name]?.valueName, ["FILE", "PATH", "DIR"].contains(kind) else { continue }
            words += values.compactMap { $0 as? String }
        }
        func resolved(_ p: String) -> String? {
            guard let r = realpath(p, nil) else { return nil }
            defer { free(r) }
            return String(cString: r)
        }
        // The output's place, resolved through its folder, whether or not
        // it exists yet: a first run must be refused as its rerun is.
        let outPlace = FilePaths.absolute(path)
        var out = stat()
        let outExists = stat(path, &out) == 0 && (out.st_mode & S_IFMT) == S_IFREG
        for word in words {
            var st = stat()
            guard word == "-" ? fstat(0, &st) == 0 : stat(word, &st) == 0 else { continue }
            if outExists && st.st_dev == out.st_dev && st.st_ino == out.st_ino {
                let what = word == path ? "" : word == "-" ? " (standard input)" : " ('\(word)')"
                throw UsageError("--out '\(path)' is a file this command reads\(what); writing there would destroy it")
            }
            if word != "-", (st.st_mode & S_IFMT) == S_IFDIR, let folder = resolved(word),
               outPlace.hasPrefix(folder == "/" ? "/" : folder + "/") {
                throw UsageError("--out '\(path)' is inside '\(word)', a folder this command reads; give a place outside it")
            }
        }
    }

    /// An existing store: reading commands must not create an empty one.
    /// With `requireMeetings`, a store without meetings is an error too:
    /// a fleet ranking or a tuning sweep of nothing would look like an
    /// answer (every config at F1 0).
    func openStore(_ args: ParsedArguments, requireMeetings: Bool = false) throws -> EventStore {
        let path = try databasePath(args)
        let store = try EventStore.openExisting(path: path)
        if requireMeetings, try store.isEmpty() { throw StoreError.emptyStore(path, files: try store.ingestedFileCount()) }
        return store
    }

    /// A small input file given by an option (a config, a grid, partials),
    /// whole; a usage error that says why it cannot be read.
    /// Read with the system's calls, so that a pipe (`--config <(…)`) is
    /// read like a file, and a failure says the system's reason.
    static func readFile(_ path: String, what: String) throws -> Data {
        func failure(_ code: Int32) -> UsageError {
            let reason = code == ENOENT ? "no such file" : code == EISDIR ? "it is a directory" : String(cString: strerror(code))
            return UsageError("cannot read \(what) '\(path)': \(reason)")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(errno) }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(errno)
            }
            if n == 0 { return data }
            // A grid or a config is a few KB, partials a few MB; a device
            // that never ends is no file to read.
            if data.count + n > 1 << 30 { throw UsageError("cannot read \(what) '\(path)': larger than 1 GiB") }
            data.append(contentsOf: buffer[0..<n])
        }
    }

    /// `--config FILE` parsed over the defaults; a bad file is a usage error
    /// (exit 64) naming the key.
    func tierConfig(_ args: ParsedArguments) throws -> TierConfig {
        guard let path = args.value(Options.config) else { return TierConfig() }
        let data = try CommandContext.readFile(path, what: "config file")
        do {
            return try TierConfig.parse(data)
        } catch {
            // The file named: a job passing several configs must see which.
            throw UsageError("\(path): \(error)")
        }
    }

    /// `--since`/`--until` as a half-open window [since, until) of meeting
    /// start times, ms; nil ends are open. The start is the one every
    /// listing shows (`MeetingHeader.start`: the first event of any
    /// participant). A time of day (`14:05`) is taken on today's date in
    /// the zone (`--tz`), as a meeting-free command has no other date.
    func timeWindow(_ args: ParsedArguments) throws -> (since: Int64?, until: Int64?) {
        let window = (since: try time(Options.since, args), until: try time(Options.until, args))
        // An empty or swapped window selects nothing by construction: a
        // mistake, never a request for an empty report (or an empty site).
        if let since = window.since, let until = window.until, since >= until {
            throw UsageError("'--since' (\(Time.iso(since))) must be before '--until' (\(Time.iso(until)))")
        }
        return window
    }

    /// The instant an option's time means (nil when not given), read in
    /// the command's zone and against its clock; a time of day falls on
    /// the span `near` when given (a meeting), else on today.
    func time(_ option: Option<TimeInput>, _ args: ParsedArguments, near span: (start: Int64, end: Int64)? = nil) throws -> Int64? {
        guard let input = args.value(option) else { return nil }
        return input.resolve(zone: try zone(args), now: try now(), near: span)
    }

    /// The zone times are shown and read in: `--tz`, else `$MQA_TZ`, else
    /// UTC. A name the tz database does not know is a usage error, from
    /// the variable as from the option.
    func zone(_ args: ParsedArguments) throws -> ClockZone {
        if args.declared[Options.tz.spec.primary] != nil, let zone = args.value(Options.tz) { return zone }
        guard let name = environment["MQA_TZ"], !name.isEmpty else { return .utc }
        guard let zone = ClockZone(name) else {
            throw UsageError("MQA_TZ '\(name)' \(Options.zoneProblem)")
        }
        return zone
    }

    /// The time now, ms: `$MQA_NOW` (RFC 3339) when set, so that relative
    /// times (`-2h`, `yesterday`) can be pinned by scripts and tests; else
    /// the system clock.
    func now() throws -> Int64 {
        if let text = environment["MQA_NOW"], !text.isEmpty {
            guard let ms = Time.parse(text) else { throw UsageError("MQA_NOW '\(text)' must be an RFC 3339 time (2026-11-29T14:05:00Z)") }
            return ms
        }
        return Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    static func inWindow(_ start: Int64?, _ window: (since: Int64?, until: Int64?)) -> Bool {
        if window.since == nil && window.until == nil { return true }
        guard let start else { return false }
        if let since = window.since, start < since { return false }
        if let until = window.until, start >= until { return false }
        return true
    }
}

/// The options many commands share, declared once (the commands that take
/// them list them in their `CommandSpec`).
enum Options {
    /// An id or a prefix of one: never empty (ids have 1 to 256 characters,
    /// and an empty prefix would match them all).
    static let nonEmptyId: @Sendable (String) -> String? = { $0.isEmpty ? "must not be empty (an id has 1 to 256 characters)" : nil }
    static let db = Option<String>.path(
        "--db", value: "PATH", help: "The store.", defaultText: "$MQA_DB, else ./mqa.sqlite")
    static let out = Option<String>.path(
        "-o", "--out", value: "FILE", help: "Write to FILE instead of standard output (- is standard output).")
    static let config = Option<String>.path(
        "--config", value: "FILE", help: "Tier config JSON (any subset of keys; see Docs/tiers.md).",
        defaultText: "the spec's defaults")
    static let since = Option<TimeInput>.time(
        "--since", help: "Only meetings that started at or after TIME (\(TimeInput.forms)).")
    static let until = Option<TimeInput>.time("--until", help: "Only meetings that started before TIME.")
    static let tz = Option<ClockZone>.zone(
        "--tz", help: "Show local times in ZONE beside UTC, and read typed times there (an IANA name: Europe/Berlin).",
        defaultText: "$MQA_TZ, else UTC")
    /// `--tz` where a command shows no times: it only reads typed ones.
    static let tzForTypedTimes = Option<ClockZone>.zone(
        "--tz", help: "Read typed times (--since, --until) in ZONE (an IANA name: Europe/Berlin).",
        defaultText: "$MQA_TZ, else UTC")
    /// `--tz` of `report trends`: its days and weeks are the zone's.
    static let tzForPeriods = Option<ClockZone>.zone(
        "--tz", help: "Days and weeks of ZONE's calendar, and typed times read there (an IANA name: Europe/Berlin).",
        defaultText: "$MQA_TZ, else UTC")
    /// Why a zone name was refused.
    static let zoneProblem = "is not a time zone of the tz database: give an IANA name such as Europe/Berlin or America/New_York (or UTC)"

    /// `-f, --format`, among `words`: told by the extension of `--out` when absent.
    static func format(_ words: [String], default value: String = "md", help: String = "The output format.") -> Option<String> {
        Option<String>.choice("-f", "--format", help: help, words, default: value, followsOut: true)
    }
}

extension Option where Value == TimeInput {
    /// A time in any of `TimeInput`'s forms, checked for its form here and
    /// resolved (zone, clock, meeting date) by `CommandContext.time`.
    static func time(_ names: String..., value: String = "TIME", help: String) -> Option {
        let spec = OptionSpec(names: names, valueName: value, help: help) { text in
            guard let input = TimeInput.parse(text) else { throw InvalidValue(reason: "must be a time: \(TimeInput.forms)") }
            return input
        }
        return Option(spec: spec, read: { $0.last as! TimeInput })
    }
}

extension Option where Value == ClockZone {
    /// An IANA time zone name.
    static func zone(_ names: String..., value: String = "ZONE", help: String, defaultText: String) -> Option {
        var spec = OptionSpec(names: names, valueName: value, help: help) { text in
            guard let zone = ClockZone(text) else { throw InvalidValue(reason: Options.zoneProblem) }
            return zone
        }
        spec.defaultText = defaultText
        return Option(spec: spec, read: { $0.last as! ClockZone })
    }
}

/// The file sinks a command opened, closed by `CLI.main` on success.
final class OutputRegistry {
    var sinks: [OutputSink] = []
}
