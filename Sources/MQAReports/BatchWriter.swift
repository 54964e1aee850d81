import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MQABase
import MQAModel
import MQAAnalysis
import MQAStore

/// Writes batch output (`mqa report meeting --all --out DIR`): one report
/// file per meeting plus an index, all inside one directory; in HTML a
/// site, with a page per track in `DIR/tracks/` (see `SitePages`).
///
/// Nothing can be written outside the directory: file names come from
/// `SafeFileName` (no `/`, never `..`), every file is opened relative to a
/// descriptor of the directory (`openat`), and with `O_NOFOLLOW`, so a
/// symlink planted in the directory under one of our names is refused
/// rather than followed.
///
/// `@unchecked Sendable`: `files` and `used` change only on the caller's
/// thread; the threads of `write(pages:)` read the open descriptors and
/// take locks for the rest.
public final class BatchWriter: @unchecked Sendable {
    public let directory: String
    public let format: ReportFormat
    private let dirFD: Int32
    /// `DIR/tracks`, opened when the first track page is written.
    private var tracksFD: Int32 = -1
    /// Meeting id → file name, in writing order.
    public private(set) var files: [(meeting: String, file: String)] = []
    private var used: Set<String> = []
    private let folderLock = NSLock()
    /// Threads writing a batch's pages; more syncs in flight share more
    /// journal commits (the work is waiting, not computing).
    static let lanes = 8
    /// The folder of the track pages, relative to the directory.
    public static let tracksFolder = "tracks"

    /// Creates `directory` (and its parents) when missing.
    public init(directory: String, format: ReportFormat) throws {
        self.directory = directory
        self.format = format
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw ReportError.cannotWrite(path: directory, reason: "cannot create the directory")
        }
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw ReportError.cannotWrite(path: directory, reason: String(cString: strerror(errno))) }
        dirFD = fd
    }

    deinit {
        close(dirFD)
        if tracksFD >= 0 { close(tracksFD) }
    }

    /// The file name a meeting's report gets (unique within this batch).
    public func fileName(for meeting: String) -> String {
        var name = SafeFileName.make(for: meeting, extension: format.fileExtension)
        var n = 2
        while used.contains(name) {  // a 32-bit hash collision: vanishingly rare, still handled
            name = SafeFileName.make(for: meeting + "#\(n)", extension: format.fileExtension)
            n += 1
        }
        return name
    }

    /// Takes the file name of a meeting's report before it is rendered (a
    /// site's pages link each other by name); `write(rendered:meeting:name:)`
    /// writes it.
    public func reserve(_ meeting: String) -> String {
        let name = fileName(for: meeting)
        used.insert(name)
        return name
    }

    /// Takes the name of a track page, `tracks/<safe name>.html`, unique
    /// within the batch.
    public func reserveTrack(meeting: String, track: String) -> String {
        var name = SafeFileName.make(for: meeting + "\u{0}" + track, extension: format.fileExtension)
        var n = 2
        while used.contains(BatchWriter.tracksFolder + "/" + name) {
            name = SafeFileName.make(for: meeting + "\u{0}" + track + "#\(n)", extension: format.fileExtension)
            n += 1
        }
        used.insert(BatchWriter.tracksFolder + "/" + name)
        return BatchWriter.tracksFolder + "/" + name
    }

    /// A rendered page of a site under a reserved name: a meeting's page
    /// (`meeting` set) or a track page (`tracks/…`).
    public struct Page: Sendable {
        public var name: String
        public var text: String
        public var meeting: String?

        public init(name: String, text: String, meeting: String? = nil) {
            self.name = name
            self.text = text
            self.meeting = meeting
        }
    }

    /// Writes pages from several threads at once and returns each page's
    /// error (nil: written). Every file is still synced before its rename;
    /// concurrent syncs share the file system's journal commits, so a
    /// site's thousands of small files do not cost a commit each (2,000
    /// files of 20 kB here: 6.5 s one by one, 0.3 s from 8 threads).
    /// Meeting pages written join `files`, in the order given.
    public func write(pages: [Page]) -> [Error?] {
        // Opened once before the threads start; should it fail, each track
        // page's `writeTrack` fails with the reason, and the meeting pages
        // are written all the same.
        if pages.contains(where: { $0.meeting == nil }) { try? openTracksFolder() }
        let results = ConcurrentSlots<Error>(count: pages.count)
        // Threads of our own: the work waits on syncs, and Dispatch's
        // concurrentPerform runs only as many at once as there are cores.
        let done = DispatchGroup()
        for lane in 0..<min(pages.count, BatchWriter.lanes) {
            done.enter()
            Thread {
                for k in stride(from: lane, to: pages.count, by: BatchWriter.lanes) {
                    let page = pages[k]
                    do {
                        if page.meeting != nil {
                            try self.writeFile(page.name, page.text)
                        } else {
                            try self.writeTrack(rendered: page.text, name: page.name)
                        }
                    } catch {
                        results.set(k, error)
                    }
                }
                done.leave()
            }.start()
        }
        done.wait()
        for (k, page) in pages.enumerated() where results.get(k) == nil {
            if let meeting = page.meeting { files.append((meeting, page.name)) }
        }
        return (0..<pages.count).map(results.get)
    }

    /// Writes a track page under a name from `reserveTrack`.
    public func writeTrack(rendered text: String, name: String) throws {
        let prefix = BatchWriter.tracksFolder + "/"
        guard name.hasPrefix(prefix) else { throw ReportError.unsafePath("track page \"\(name)\"") }
        try openTracksFolder()
        try writeFile(String(name.dropFirst(prefix.count)), text, in: tracksFD, shown: directory + "/" + name)
    }

    /// Opens `DIR/tracks` (creating it), never through a link planted
    /// under its name.
    private func openTracksFolder() throws {
        folderLock.lock()
        defer { folderLock.unlock() }
        guard tracksFD < 0 else { return }
        if mkdirat(dirFD, BatchWriter.tracksFolder, 0o755) != 0 && errno != EEXIST {
            throw ReportError.cannotWrite(path: directory + "/" + BatchWriter.tracksFolder, reason: String(cString: strerror(errno)))
        }
        let fd = openat(dirFD, BatchWriter.tracksFolder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            throw ReportError.cannotWrite(path: directory + "/" + BatchWriter.tracksFolder, reason: "not a folder of its own (a link?)")
        }
        tracksFD = fd
    }

    /// Writes one meeting's report; returns its file name.
    @discardableResult
    public func write(_ report: MeetingReport) throws -> String {
        try write(rendered: report.render(format), meeting: report.header.meeting)
    }

    /// Writes a rendered meeting report (lets callers render in parallel).
    @discardableResult
    public func write(rendered text: String, meeting: String) throws -> String {
        let name = fileName(for: meeting)
        try writeFile(name, text)
        used.insert(name)
        files.append((meeting, name))
        return name
    }

    /// Writes the index: the fleet ranking of the written meetings, linking
    /// each file: `index.html`/`index.md`, or `index.json`/`index.csv`
    /// with a `file` field.
    @discardableResult
    public func writeIndex(_ entries: [FleetEntry], display: TimeDisplay = TimeDisplay(), config: TierConfig = TierConfig(),
                           participants: ParticipantIndex? = nil, sitePages: [(title: String, file: String)] = []) throws -> String {
        let map = Dictionary(files.map { ($0.meeting, $0.file) }, uniquingKeysWith: { a, _ in a })
        var fleet = FleetReport(entries: entries, files: map)
        fleet.display = display
        fleet.config = config
        fleet.sitePages = sitePages
        if let participants, format == .html {
            try writeFile(ParticipantIndex.fileName, participants.html)
            fleet.participantsPage = ParticipantIndex.fileName
        }
        let name = "index.\(format.fileExtension)"
        try writeFile(name, fleet.render(format))
        return name
    }

    /// Writes a fleet-wide page of the site (`cohorts.html`, `trends.html`)
    /// beside the index. Meeting pages always carry a hash suffix, so such
    /// a name is never one of theirs.
    public func writeSitePage(_ name: String, _ text: String) throws {
        guard !used.contains(name) else { throw ReportError.unsafePath("\(name) twice") }
        used.insert(name)
        try writeFile(name, text)
    }

    /// Writes `text` to a new temporary file in the directory and renames
    /// it over `name`: a link planted under that name (symbolic or hard) is
    /// replaced, never written through, and a failed write leaves no short
    /// file behind.
    private func writeFile(_ name: String, _ text: String, in folder: Int32? = nil, shown: String? = nil) throws {
        try writeFile(name, in: folder, shown: shown) { file in
            var bytes = text
            try bytes.withUTF8 { try file.write(UnsafeRawBufferPointer($0)) }
            try file.commit()
        }
    }

    /// Writes a meeting's page under a name from `reserve` as `write`
    /// gives it, piece by piece: a page of a 2,000-viewer meeting is
    /// 171 MB, never held whole. A failure (of the writes, or the one
    /// `write` puts on the sink) leaves no file. The page joins `files`.
    public func writeStreaming(_ name: String, meeting: String, _ write: (OutputSink) -> Void) throws {
        try writeFile(name, in: nil, shown: nil) { file in
            let sink = OutputSink(file: file)
            write(sink)
            try sink.close()
        }
        files.append((meeting, name))
    }

    /// Makes the new temporary file that becomes `name` (as `writeFile`
    /// above) and hands it to `fill`, which writes and commits it.
    private func writeFile(_ name: String, in folder: Int32?, shown: String?, _ fill: (AtomicFile) throws -> Void) throws {
        guard !name.contains("/"), name != ".", name != "..", !name.isEmpty else {
            throw ReportError.unsafePath("file name \"\(name)\"")
        }
        let dirFD = folder ?? self.dirFD
        let path = shown ?? directory + "/" + name
        var st = stat()
        if fstatat(dirFD, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) != S_IFREG && (st.st_mode & S_IFMT) != S_IFLNK {
            throw ReportError.cannotWrite(path: path, reason: "something other than a file is in the way")
        }
        do {
            try fill(try AtomicFile(directoryFD: dirFD, name: name, displayPath: path, replaceSpecial: true))
        } catch let error as OutputError {
            throw ReportError.cannotWrite(path: path, reason: error.reason)
        }
    }
}
