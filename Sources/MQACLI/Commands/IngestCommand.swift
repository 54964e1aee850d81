import Foundation
import MQAReports
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore
import MQAIngest

/// `mqa ingest FILE...`
enum IngestCommand {
    static let spec = CommandSpec(
        name: "ingest",
        abstract: "Ingest event logs or WebRTC stats dumps (plain, gzip or zstd; - for stdin) into the store.",
        discussion: """
            Every line is validated against the event-log contract (Docs/event-log.md).
            Good lines are stored, bad lines are recorded with file, line and reason
            (the first 20 are printed; `mqa query rejects` lists all), unknown events
            are counted as ignored and repeated events as duplicates. Re-ingesting a
            file with identical content is a no-op; a killed ingest resumes where its
            last commit ended when run again.

            Each file's format is told by its content: the event log, an rtcstats dump
            (one JSON array per line) or a chrome://webrtc-internals dump (one JSON
            object with PeerConnections), each plain, gzip or zstd (by magic bytes, not
            by name). Dumps are converted to event-log events (Docs/import.md) and
            stored like logged ones; the summary counts connections, samples and events
            per format and lists the connections that gave no events, with the reason.
            A dump that is not valid in its format fails that file only.

            Exit status: 0 done, 3 done but some lines were rejected, 1 failed, 64 usage.
            """,
        arguments: [("FILE...", "Event logs or stats dumps: plain, gzip or zstd compressed, or - for standard input; with -r, folders too.")],
        minPositionals: 1, maxPositionals: nil,
        options: [Options.db, format, inputFormat, meeting, recursive, Options.out],
        examples: [
            ("Ingest a folder of logs (plain, .gz or .zst) into ./mqa.sqlite", "mqa ingest -r logs/"),
            ("Ingest Chrome's webrtc-internals download as one person of a named meeting", "mqa ingest --db calls.sqlite --meeting standup-0412 webrtc_internals_dump.txt"),
            ("The summary as JSON, for a script", "mqa ingest --db calls.sqlite -f json day-12.ndjson.gz"),
        ])

    static let format = Options.format(["text", "json", "md", "csv"], default: "text", help: "Summary format (md is the same as text; csv: the counts as one row).")
    static let inputFormat = Option<String>.choice(
        "--input-format", help: "Content format of every FILE (auto: told by content).",
        ["auto"] + InputFormat.allCases.map(\.rawValue), default: "auto")
    static let meeting = Option<String>.string(
        "--meeting", value: "ID", help: "Meeting id for events converted from dumps.", defaultText: "rtc-<the room the dump names>, else rtc-<file name>",
        validate: { $0.isEmpty || $0.count > 256 ? "must be 1 to 256 characters" : nil })

    static let recursive = Option<Bool>.flag(
        "-r", "--recursive",
        help: "Ingest every file under each FILE that is a folder, in path order (names starting with '.' left out).")

    static let command = Subcommand(spec: spec, run: run)

    /// The inputs: FILE arguments as given, each folder (with -r) replaced
    /// by the regular files under it, sorted by path so that a rerun reads
    /// them in the same order; and the folders under them that could not
    /// be read, with why (their files are missing: the run must fail).
    ///
    /// The store (`store`, with its `-wal`, `-shm` and `-journal` files)
    /// is no input: named as one it is refused, found in a folder it is
    /// left out (a store kept beside its logs failed every run after the
    /// first as "binary"). A pipe can be read once: the same one under two
    /// names (`-` and `/dev/stdin`, a FIFO given twice) is refused, as
    /// two readers would each get part of its lines.
    static func inputs(_ arguments: [String], recursive: Bool, store: String) throws
        -> (paths: [String], unreadable: [(String, String)])
    {
        if arguments.filter({ $0 == "-" }).count > 1 {
            throw UsageError("'-' (standard input) given twice: it can be read only once")
        }
        let storeNames = EventStore.fileSuffixes.map { store + $0 }
        let storeFiles = Set(storeNames.compactMap { FileIdentity(path: $0) })
        /// Whether `path` (`id`: what it is, nil when it is not there) is one
        /// of the store's files; by name where it is not there yet (the
        /// store is made first).
        func isStore(_ path: String, _ id: FileIdentity?) -> Bool {
            if let id { return storeFiles.contains(id) }
            return storeNames.contains { FileIdentity.sameName(path, $0) }
        }
        let stdin = FileIdentity(descriptor: 0)
        var out: [String] = []
        // The inputs named as such, with what each is (one `stat` each):
        // files found under a folder are regular files (`walk`), so only
        // these can be a pipe.
        var named: [(path: String, id: FileIdentity?)] = []
        var unreadable: [(String, String)] = []
        for a in arguments {
            guard recursive, a != "-", FilePaths.isDirectory(a) else {
                let id = a == "-" ? stdin : FileIdentity(path: a)
                if !store.isEmpty && isStore(a, id) {
                    throw UsageError("\(a == "-" ? "standard input" : a) is the store (--db), or one of its files: it cannot be an input")
                }
                out.append(a)
                named.append((a, id))
                continue
            }
            var found: [String] = []
            var seen = Set<FileIdentity>()
            let before = unreadable.count
            walk(a.count > 1 && a.hasSuffix("/") ? String(a.dropLast()) : a, into: &found, unreadable: &unreadable, seen: &seen,
                 leavingOut: storeFiles)
            guard !found.isEmpty || unreadable.count > before else { throw UsageError("\(a): no files under this folder") }
            out += found.sorted()
        }
        var pipes: [FileIdentity: String] = [:]
        // Standard input given as `-` is read once whatever it is (a
        // terminal too): another name of it (`/dev/stdin`) is the same input.
        let stdinNamed = named.contains { $0.path == "-" }
        for (a, id) in named {
            guard let id, id.isReadOnce || (stdinNamed && id == stdin && !id.isRegularFile) else { continue }
            if let first = pipes[id] {
                throw UsageError("\(first == "-" ? "'-' (standard input)" : first) and \(a) are the same pipe: it can be read only once")
            }
            pipes[id] = a
        }
        return (out, unreadable)
    }

    /// A file or folder by device and inode: a link back up the tree is
    /// walked once, and one file under two names is known as one.
    struct FileIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
        /// A regular file (read by name, so as often as named).
        var isRegularFile: Bool { kind == S_IFREG }
        /// A FIFO or a socket: what one reader takes, another never sees.
        /// (A device such as /dev/null may be named twice.) Not part of
        /// the identity.
        var isReadOnce: Bool { kind == S_IFIFO || kind == S_IFSOCK }
        private var kind: mode_t = 0

        static func == (a: FileIdentity, b: FileIdentity) -> Bool { a.device == b.device && a.inode == b.inode }
        func hash(into h: inout Hasher) {
            h.combine(device)
            h.combine(inode)
        }

        init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }

        private init(_ st: stat) {
            self.init(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
            kind = st.st_mode & S_IFMT
        }

        /// What `path` names, links followed; nil when it does not exist.
        init?(path: String) {
            var st = stat()
            guard !path.isEmpty, stat(path, &st) == 0 else { return nil }
            self.init(st)
        }

        /// Whether `a` and `b` name one path that does not exist yet: the
        /// same file name in the same folder.
        static func sameName(_ a: String, _ b: String) -> Bool {
            func parts(_ p: String) -> (FileIdentity?, Substring) {
                let slash = p.lastIndex(of: "/")
                let folder = slash.map { p[..<$0].isEmpty ? "/" : String(p[..<$0]) } ?? "."
                return (FileIdentity(path: folder), slash.map { p[p.index(after: $0)...] } ?? Substring(p))
            }
            let (x, y) = (parts(a), parts(b))
            return x.0 != nil && x.0 == y.0 && x.1 == y.1
        }

        /// What the open descriptor `fd` is.
        init?(descriptor fd: Int32) {
            var st = stat()
            guard fstat(fd, &st) == 0 else { return nil }
            self.init(st)
        }
    }

    /// The regular files under `folder`, at any depth. Symbolic links are
    /// followed, to a file or a folder (each folder walked once, so a link
    /// loop ends); names starting with '.' are left out; a folder that
    /// cannot be read is listed in `unreadable`, never passed over.
    static func walk(_ folder: String, into found: inout [String], unreadable: inout [(String, String)], seen: inout Set<FileIdentity>,
                     leavingOut: Set<FileIdentity> = []) {
        var st = stat()
        guard stat(folder, &st) == 0 else {
            unreadable.append((folder, String(cString: strerror(errno))))
            return
        }
        guard seen.insert(FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))).inserted else { return }
        guard let dir = opendir(folder) else {
            unreadable.append((folder, String(cString: strerror(errno))))
            return
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let raw = withUnsafePointer(to: entry.pointee.d_name) { p in
                p.withMemoryRebound(to: UInt8.self, capacity: 256) { Array(UnsafeBufferPointer(start: $0, count: strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)))) }
            }
            guard raw.first != UInt8(ascii: ".") else { continue }
            // Paths travel as text: a name that is not UTF-8 cannot be opened
            // by it, and is named as such rather than as missing.
            guard let name = String(validating: raw, as: UTF8.self) else {
                unreadable.append((folder + "/" + String(decoding: raw, as: UTF8.self), "its name is not UTF-8, which mqa cannot open; rename it"))
                continue
            }
            names.append(name)
        }
        for name in names {
            let path = folder + "/" + name
            var target = stat()
            // stat, not lstat: a link stands for what it points to.
            guard stat(path, &target) == 0 else {
                unreadable.append((path, String(cString: strerror(errno))))
                continue
            }
            switch target.st_mode & S_IFMT {
            case S_IFDIR: walk(path, into: &found, unreadable: &unreadable, seen: &seen, leavingOut: leavingOut)
            case S_IFREG:
                // The store kept beside its logs is no log.
                if !leavingOut.contains(FileIdentity(device: UInt64(target.st_dev), inode: UInt64(target.st_ino))) { found.append(path) }
            default: break  // sockets, devices, FIFOs under a folder: not logs
            }
        }
    }

    static let shownRejects = 20

    static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let format: String = try args.get(Self.format)
        let inputFormat: String = try args.get(Self.inputFormat)
        let dbPath = try context.databasePath(args)
        let (paths, unreadable) = try inputs(args.positionals, recursive: try args.get(Self.recursive), store: dbPath)
        // Opened first: a bad --out (the store itself, a folder) is refused
        // before anything is ingested; the file appears only at the end.
        let out = try context.output(args)
        let existed = FileManager.default.fileExists(atPath: dbPath)
        let store = try EventStore(path: dbPath)
        let ingester = Ingester(store: store)
        ingester.inputFormat = InputFormat(rawValue: inputFormat)
        ingester.meeting = args.value(Self.meeting)
        // Advanced, for benchmarks: summarize only after the last input (as
        // before the summary worker), to compare the two side by side.
        if context.environment["MQA_SUMMARIZE_AFTER"] != nil { ingester.summarizeWhileReading = false }
        // Advanced, for crash tests and slow disks: lines per commit (the
        // resume granularity after a kill). Not a documented option.
        if let text = context.environment["MQA_COMMIT_EVERY"], let n = Int(text), n > 0 { ingester.commitEvery = n }
        let rejects = RejectTally()
        ingester.onReject = { reject in rejects.tell(reject, context) }
        ingester.onInputError = { error in context.stderr.write("Error: \(TerminalText.escaped("\(error)"))\n") }
        let progress = showProgress(of: ingester, over: paths, context)
        // Said before the files are read, and the run fails at the end:
        // what such a folder holds was asked for and is not stored.
        for (folder, why) in unreadable {
            context.stderr.write("Error: \(TerminalText.escaped(folder)): cannot read it (\(why)); what it holds is not ingested\n")
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let summary: IngestSummary
        do {
            summary = try ingester.ingest(paths: paths)
        } catch let failure as IngestFailure {
            // The store failed: say what its commits hold, never more, and
            // fail. The summaries are left stale for the next run to redo.
            progress?.finish()
            out.write(IngestReport(failure.committed, failedFiles: paths.count - ingester.committedInputs + unreadable.count).render(ReportFormat(rawValue: format) ?? .md))
            out.flush()
            context.stderr.write("Error: \(TerminalText.escaped(failure.description))\n")
            return ExitCode.failure
        }
        let ingested = DispatchTime.now().uptimeNanoseconds
        progress?.finish()
        if !existed && summary.lines == 0 && ingester.failedInputs == paths.count && paths.count + unreadable.count > 0 {
            // Nothing could be read: leave no empty store behind to be
            // mistaken for an ingest of nothing.
            // Only when it is still empty and nobody else has it open: another
            // ingest may have started on the store this run created.
            if store.removeIfUnused() {
                context.stderr.write("Error: no input could be read; no store was created at \(TerminalText.escaped(dbPath))\n")
            } else {
                context.stderr.write("Error: no input could be read; nothing was stored in \(TerminalText.escaped(dbPath))\n")
            }
            return ExitCode.failure
        }
        // The summary tables behind the named queries; a kill here only
        // leaves meetings marked stale, and the next query or ingest redoes them.
        do {
            try store.refreshSummaries { done, total in
                progress?.update(done: done, total: total, label: "summarizing meetings")
            }
        } catch let error as DatabaseError where error.isOutOfSpace {
            // The inputs are stored; only the summaries behind the reports
            // are not (a full disk at their commit): say both, and which
            // store, never a bare COMMIT error. Other failures (the store
            // removed meanwhile) say what they are, below.
            progress?.finish()
            out.write(IngestReport(summary, failedFiles: ingester.failedInputs + unreadable.count).render(ReportFormat(rawValue: format) ?? .md))
            out.flush()
            context.stderr.write("Error: \(TerminalText.escaped(dbPath)): the inputs above are stored, but the meetings' summaries "
                + "could not be (\(error)); the next command that may write the store computes them\n")
            return ExitCode.failure
        }
        progress?.finish()
        try warnAboutDumps(summary, store, context)
        debugFigures(context, started: started, ingested: ingested)
        if rejects.total > shownRejects {
            context.stderr.write("… and \(rejects.total - shownRejects) more rejected lines (`mqa query rejects` lists them all)\n")
        }
        out.write(IngestReport(summary, failedFiles: ingester.failedInputs + unreadable.count).render(ReportFormat(rawValue: format) ?? .md))
        out.flush()
        if ingester.failedInputs > 0 || !unreadable.isEmpty { return ExitCode.failure }
        return summary.rejected > 0 ? ExitCode.rejectedLines : ExitCode.success
    }

    /// The first `shownRejects` rejected lines, said as they come, and
    /// how many there were.
    final class RejectTally {
        private(set) var total = 0

        func tell(_ reject: RejectedLine, _ context: CommandContext) {
            total += 1
            if total <= IngestCommand.shownRejects {
                context.stderr.write("\(TerminalText.escaped(reject.file)):\(reject.line): \(TerminalText.escaped(reject.reason))\n")
            }
        }
    }

    /// A progress bar over the inputs' bytes, on a terminal only.
    static func showProgress(of ingester: Ingester, over paths: [String], _ context: CommandContext) -> ProgressBar? {
        guard let progress = ProgressBar.onTerminal(context) else { return nil }
        var finishedBytes = 0
        var currentPath = ""
        var lastBytes = 0
        let totalBytes = paths.reduce(0) { sum, p in
            sum + ((try? FileManager.default.attributesOfItem(atPath: p)[.size] as? Int) ?? 0)
        }
        ingester.onProgress = { bytes, _, path in
            if path != currentPath {
                finishedBytes += lastBytes
                currentPath = path
            }
            lastBytes = bytes
            progress.update(done: finishedBytes + bytes, total: totalBytes, label: path)
        }
        return progress
    }

    /// Warnings about dumps that count wrong: one browser's two downloads
    /// as two people, several dumps under one name as one.
    static func warnAboutDumps(_ summary: IngestSummary, _ store: EventStore, _ context: CommandContext) throws {
        // One browser's two downloads make two people who send the same
        // media: said once per pair of meeting and people, naming one name
        // only one sender could have (an SSRC, or a stream id as long as
        // Chrome's UUIDs); an app that gives every stream one short id is
        // no such pair.
        var told: Set<[String]> = []
        for shared in try store.sharedNames(meetings: Set(summary.connectionContexts.compactMap(\.meeting)))
        where (shared.name.hasPrefix("remote-") || shared.name.unicodeScalars.count >= 32)
            && told.insert([shared.meeting] + shared.uids).inserted {
            let who = shared.uids.map { TerminalText.escaped($0) }.joined(separator: ", ")
            context.stderr.write(
                "Warning: meeting \(TerminalText.escaped(shared.meeting)): \(who) send the same media "
                    + "(\(TerminalText.escaped(shared.name))): one browser's two downloads (its webrtc-internals and rtcstats dumps)? "
                    + "Each counts as a person; ingest one dump per browser\n")
        }
        for (meeting, uid, files) in WebRTCImport.dumpsUnderOneName(summary.connectionContexts) {
            let names = files.map { TerminalText.escaped($0) }.joined(separator: ", ")
            context.stderr.write(
                "Warning: meeting \(TerminalText.escaped(meeting)): \(files.count) dumps are named \(TerminalText.escaped(uid)) "
                    + "(\(names)) and count as one participant, named after the file: if they are different people's, "
                    + "give each dump a file name of its own (ann.txt, ben.txt) and ingest them into a new store\n")
        }
    }

    /// For benchmarks: how the wall time splits between reading the
    /// inputs and the summaries left for after them, and SQLite's memory.
    static func debugFigures(_ context: CommandContext, started: UInt64, ingested: UInt64) {
        if context.environment["MQA_DEBUG_TIMING"] != nil {
            let now = DispatchTime.now().uptimeNanoseconds
            context.stderr.write("timing: inputs \((ingested - started) / 1_000_000) ms, summaries \((now - ingested) / 1_000_000) ms\n")
        }
        if context.environment["MQA_DEBUG_MEMORY"] != nil {
            let m = Database.sqliteMemory
            context.stderr.write("sqlite memory: \(m.current / 1024) KiB now, \(m.peak / 1024) KiB peak\n")
        }
    }
}
