import MQAStore

extension WebRTCImport {
    /// Dumps of one ingest that became one participant only because their
    /// files have one name: a dump's person is named after its file when
    /// the dump names nobody, and Chrome saves every dump as
    /// `webrtc_internals_dump.txt`, so two people's dumps kept in folders
    /// of their own meet as one person whose reports interleave. The spec
    /// names the person after the file, so they stay one; the caller warns.
    ///
    /// - Returns: per meeting and name (sorted), the files (in ingest order),
    ///   where two files or more share them.
    public static func dumpsUnderOneName(_ contexts: [ConnectionContext]) -> [(meeting: String, uid: String, files: [String])] {
        var files: [[String]: [String]] = [:]
        for c in contexts {
            guard let meeting = c.meeting, let uid = c.uid, uid == baseName(c.file) else { continue }
            if files[[meeting, uid], default: []].contains(c.file) { continue }
            files[[meeting, uid], default: []].append(c.file)
        }
        return files.filter { $0.value.count > 1 }
            .map { (meeting: $0.key[0], uid: $0.key[1], files: $0.value) }
            .sorted { ($0.meeting, $0.uid) < ($1.meeting, $1.uid) }
    }
}
