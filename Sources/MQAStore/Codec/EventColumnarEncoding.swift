import MQABase
import MQAModel

/// Event chunks (`ChunkEncoding.eventsColumnar`): each payload split into
/// its fields, the fields stored as columns of dictionary indexes.
///
/// A payload's *shape* is its kind and its keys with their value types
/// (`member_media_state` with and without `opUid` are two shapes). Strings
/// (keys and values alike) go into one dictionary per chunk, after the
/// frozen `EventVocabulary`; whole string arrays (speaker snapshots, which
/// repeat) into a second one. A payload that is not a plain canonical
/// object (`CanonicalObject`) is stored whole under a "raw" shape, so any
/// bytes round-trip.
///
///     varint  count n
///     section text:
///       varint  chunk strings m; m varint lengths; the m strings' bytes
///               (string index i < vocabulary count is vocabulary word i,
///               else chunk string i − vocabulary count)
///       varint  shapes; each: byte kind, byte form (0 fields, 1 raw);
///               fields: varint field count, per field varint key string
///               index and byte type (0 string, 1 bool, 2 string array)
///       varint  arrays; each: varint length, varint string indexes
///     section timestamps: byte order (bit 0 clear: never decreasing,
///             intervals as they are; set: intervals zigzagged; bit 1: the
///             places list follows), zigzag first, then n−1 interval
///             symbols (`BucketCoding`); with bit 1, varint m and m pairs
///             (varint index − previous listed index − 1, the first from
///             −1; varint place): each event's place among its
///             millisecond's reports (`EventBlock.reportsBefore`) is 0 but
///             for those listed, in index order. Without bit 1 every place
///             is unknown (`TimedEvent.byKind`, chunks written before)
///     section columns: n varint shape indexes; then per shape, per field,
///             the values of the events of that shape in order: string and
///             array fields as varint indexes, bool fields as a bitmap of
///             ⌈count/8⌉ bytes, a raw shape as varint length and bytes
///     section raw bits of the timestamp symbols (stored)
///
/// Sections as in `SectionWriter`. Decoding rebuilds each payload's bytes
/// exactly; every index and count is checked against what it refers to.
enum EventColumnarEncoding {
    private struct Column {
        var symbols = ByteWriter()
        var bits = BitWriter()
        var count = 0
    }

    /// With `sharing`, also gives the block as decoding the chunk would
    /// (`decode`): equal (kind, payload) pairs held once, numbered in order
    /// of first appearance, as `seen` numbers them here.
    @discardableResult
    static func encode(_ block: EventBlock, sections: SectionWriter, into out: inout [UInt8],
                       sharing: Bool = false) throws -> SharedEventBlock? {
        let n = block.ts.count
        var shared: SharedEventBlock?
        if sharing {
            var made = SharedEventBlock()
            made.ts = block.ts
            made.kinds = block.kinds
            made.reportsBefore = block.reportsBefore
            made.payloadIndex.reserveCapacity(n)
            shared = made
        }
        var header = ByteWriter()
        header.varint(UInt64(n))
        out += header.bytes

        var strings = EventVocabulary.interner
        var shapes = ByteInterner()
        var arrays = ByteInterner()
        var shapeColumn = ByteWriter(capacity: n)
        var columns: [[Column]] = []
        var object = CanonicalObject()
        var key = ByteWriter(capacity: 64)
        var arrayKey = ByteWriter(capacity: 64)
        // A client repeats its payloads (the same speakers, stream status,
        // tier): each distinct (kind, payload) is parsed and its strings
        // interned once, and a repeat reuses its shape and value indexes.
        // Interning again would give the same indexes, so the bytes written
        // are the same either way.
        var seen = ByteInterner()
        var shapeTypes: [[CanonicalObject.ValueType]] = []
        var shapeRaw: [Bool] = []
        var seenShape: [Int] = []
        var seenValues: [UInt64] = []
        var seenValueStart: [Int] = [0]
        var keyed = [UInt8](repeating: 0, count: 256)
        for i in 0..<n {
            block.withPayload(i) { p in
                if p.count + 1 > keyed.count { keyed = [UInt8](repeating: 0, count: 2 * (p.count + 1)) }
                let id = keyed.withUnsafeMutableBytes { k in
                    k[0] = block.kinds[i]
                    if p.count > 0 { (k.baseAddress! + 1).copyMemory(from: p.baseAddress!, byteCount: p.count) }
                    return seen.intern(UnsafeRawBufferPointer(rebasing: k[0..<p.count + 1]))
                }
                shared?.payloadIndex.append(Int32(id))
                if id == seenShape.count {
                    shared?.payloads.append(Array(UnsafeBufferPointer(start: p.baseAddress?.assumingMemoryBound(to: UInt8.self), count: p.count)))
                    // First time: parse it, and remember its shape and values.
                    let parsed = object.parse(p)
                    key.bytes.removeAll(keepingCapacity: true)
                    key.byte(block.kinds[i])
                    if parsed {
                        key.byte(0)
                        key.varint(UInt64(object.fields.count))
                        for f in object.fields {
                            key.varint(UInt64(strings.intern(UnsafeRawBufferPointer(rebasing: p[f.key]))))
                            key.byte(f.type.rawValue)
                        }
                    } else {
                        key.byte(1)
                    }
                    let shape = shapes.intern(key.bytes)
                    if shape == columns.count {
                        columns.append([Column](repeating: Column(), count: parsed ? object.fields.count : 1))
                        shapeTypes.append(parsed ? object.fields.map(\.type) : [])
                        shapeRaw.append(!parsed)
                    }
                    seenShape.append(shape)
                    if parsed {
                        for f in object.fields {
                            switch f.type {
                            case .string:
                                seenValues.append(UInt64(strings.intern(UnsafeRawBufferPointer(rebasing: p[f.value]))))
                            case .bool:
                                seenValues.append(f.flag ? 1 : 0)
                            case .strings:
                                arrayKey.bytes.removeAll(keepingCapacity: true)
                                arrayKey.varint(UInt64(f.items.count))
                                for item in f.items {
                                    arrayKey.varint(UInt64(strings.intern(UnsafeRawBufferPointer(rebasing: p[object.items[item]]))))
                                }
                                seenValues.append(UInt64(arrays.intern(arrayKey.bytes)))
                            }
                        }
                    }
                    seenValueStart.append(seenValues.count)
                }
                let shape = seenShape[id]
                shapeColumn.varint(UInt64(shape))
                guard !shapeRaw[shape] else {
                    columns[shape][0].symbols.varint(UInt64(p.count))
                    columns[shape][0].symbols.bytes.append(contentsOf: p)
                    return
                }
                let types = shapeTypes[shape]
                let first = seenValueStart[id]
                for j in types.indices {
                    let value = seenValues[first + j]
                    switch types[j] {
                    case .string, .strings: columns[shape][j].symbols.varint(value)
                    case .bool: columns[shape][j].bits.write(value != 0)
                    }
                }
            }
        }

        var text = ByteWriter(capacity: 1024)
        let vocabulary = EventVocabulary.words.count
        text.varint(UInt64(strings.count - vocabulary))
        for i in vocabulary..<strings.count { text.varint(UInt64(strings.entry(i).count)) }
        for i in vocabulary..<strings.count { text.bytes += strings.entry(i) }
        text.varint(UInt64(shapes.count))
        for i in 0..<shapes.count { text.bytes += shapes.entry(i) }
        text.varint(UInt64(arrays.count))
        for i in 0..<arrays.count { text.bytes += arrays.entry(i) }
        try sections.append(text.bytes, to: &out)

        var bits = BitWriter()
        var symbols: [UInt8] = []
        symbols.reserveCapacity(n + 16)
        encodeTimestamps(block.ts, symbols: &symbols, bits: &bits)
        encodePlaces(block.reportsBefore, symbols: &symbols)
        try sections.append(symbols, to: &out)

        // A bool column writes only bits and any other column only symbols,
        // so each column's two parts together are whichever it wrote.
        var values = shapeColumn.bytes
        for shape in columns.indices {
            for j in columns[shape].indices {
                values += columns[shape][j].symbols.bytes
                values += columns[shape][j].bits.finish()
            }
        }
        try sections.append(values, to: &out)
        try sections.append(bits.finish(), to: &out, compressible: false)
        return shared
    }

    static func encodeTimestamps(_ ts: [Int64], symbols: inout [UInt8], bits: inout BitWriter) {
        var sorted = true
        for i in ts.indices.dropFirst() where ts[i] < ts[i - 1] { sorted = false; break }
        var w = ByteWriter()
        w.byte(sorted ? 0 : 1)
        if let first = ts.first { w.signed(first) }
        symbols += w.bytes
        ts.withUnsafeBufferPointer { t in
            BucketCoding.write(count: max(t.count - 1, 0), symbols: &symbols, bits: &bits) { i in
                let d = t[i + 1] &- t[i]
                return sorted ? UInt64(bitPattern: d) : BucketCoding.zigzag(d)
            }
        }
    }

    /// The places list of the timestamp section: with bit 1 of the order
    /// byte, each event's place is 0 unless listed. A block of unknown
    /// places only (`TimedEvent.byKind`, an old chunk's events) writes no
    /// list and the bytes it did before places existed.
    static func encodePlaces(_ places: [UInt32], symbols: inout [UInt8]) {
        guard places.contains(where: { $0 != TimedEvent.byKind }) else { return }
        symbols[0] |= 2
        var listed = 0
        for p in places where p != 0 { listed += 1 }
        var w = ByteWriter()
        w.varint(UInt64(listed))
        var previous = -1
        for (i, p) in places.enumerated() where p != 0 {
            w.varint(UInt64(i - previous - 1))
            w.varint(UInt64(p))
            previous = i
        }
        symbols += w.bytes
    }

    /// Reads the places list that `encodePlaces` wrote after the timestamps
    /// (all `byKind` for an `order` byte without bit 1).
    static func decodePlaces(_ s: inout ByteReader, order: UInt8, count n: Int) throws -> [UInt32] {
        guard order & 2 != 0 else { return [UInt32](repeating: TimedEvent.byKind, count: n) }
        var places = [UInt32](repeating: 0, count: n)
        let listed = try s.varint()
        guard listed <= UInt64(n) else { throw CorruptData("implausible count of placed events \(listed)") }
        var i = -1
        for _ in 0..<listed {
            let gap = try s.varint()
            guard gap < UInt64(n - 1 - i) else { throw CorruptData("placed event index out of range") }
            i += Int(gap) + 1
            let place = try s.varint()
            guard place > 0, place <= UInt64(UInt32.max) else { throw CorruptData("implausible place \(place)") }
            places[i] = UInt32(place)
        }
        return places
    }

    // MARK: Decoding

    /// The dictionaries of a chunk, flat: rendering thousands of payloads
    /// from nested arrays spent more time in reference counting than in
    /// copying bytes.
    private struct Dictionaries {
        /// String i is `stringBytes[stringStarts[i]..<stringStarts[i + 1]]`.
        var stringBytes: [UInt8] = EventVocabulary.interner.storage
        var stringStarts: [Int] = EventVocabulary.interner.starts
        var stringCount: Int { stringStarts.count - 1 }
        /// Shape s: kind, raw flag, fields `fieldStart[s]..<fieldStart[s + 1]`.
        var kinds: [UInt8] = []
        var raw: [Bool] = []
        var fieldStart: [Int] = [0]
        var fieldKeys: [Int] = []
        var fieldTypes: [CanonicalObject.ValueType] = []
        /// Array a is `arrayItems[arrayStarts[a]..<arrayStarts[a + 1]]`.
        var arrayItems: [Int] = []
        var arrayStarts: [Int] = [0]
        var shapeCount: Int { kinds.count }
        var arrayCount: Int { arrayStarts.count - 1 }

        init(_ bytes: UnsafeRawBufferPointer) throws {
            var t = ByteReader(bytes)
            let m = try t.varint()
            guard m <= UInt64(bytes.count) else { throw CorruptData("implausible string count \(m)") }
            var lengths: [Int] = []
            for _ in 0..<m {
                let length = try t.varint()
                guard length <= UInt64(bytes.count) else { throw CorruptData("implausible string length") }
                lengths.append(Int(length))
            }
            for length in lengths {
                guard length <= bytes.count - t.position else { throw CorruptData("string runs past the dictionary") }
                stringBytes += bytes[t.position..<t.position + length]
                stringStarts.append(stringBytes.count)
                t.position += length
            }
            let shapes = try t.varint()
            guard shapes <= UInt64(bytes.count) else { throw CorruptData("implausible shape count") }
            for _ in 0..<shapes {
                kinds.append(try t.byte())
                switch try t.byte() {
                case 0:
                    raw.append(false)
                    let fields = try t.varint()
                    guard fields <= UInt64(bytes.count) else { throw CorruptData("implausible field count") }
                    for _ in 0..<fields {
                        let key = try t.varint()
                        guard key < UInt64(stringCount) else { throw CorruptData("key index \(key) out of range") }
                        guard let type = CanonicalObject.ValueType(rawValue: try t.byte()) else {
                            throw CorruptData("unknown field type")
                        }
                        fieldKeys.append(Int(key))
                        fieldTypes.append(type)
                    }
                case 1:
                    raw.append(true)
                    // One pseudo-field: the payloads stored whole.
                    fieldKeys.append(0)
                    fieldTypes.append(.string)
                case let form: throw CorruptData("unknown shape form \(form)")
                }
                fieldStart.append(fieldKeys.count)
            }
            let arrays = try t.varint()
            guard arrays <= UInt64(bytes.count) else { throw CorruptData("implausible array count") }
            for _ in 0..<arrays {
                let length = try t.varint()
                guard length <= UInt64(bytes.count) else { throw CorruptData("implausible array length") }
                for _ in 0..<length {
                    let index = try t.varint()
                    guard index < UInt64(stringCount) else { throw CorruptData("array item \(index) out of range") }
                    arrayItems.append(Int(index))
                }
                arrayStarts.append(arrayItems.count)
            }
            guard t.isAtEnd else { throw CorruptData("trailing bytes after the dictionaries") }
        }
    }

    /// Byte fragments a payload is concatenated from: each string quoted,
    /// each array rendered, `true`, `false`, and per shape the literal text
    /// around its values (`{"publisher":`, `,"track":`, …, `}`). Rendering
    /// an event is then one memcpy per piece into a payload of known size;
    /// appending byte by byte cost twice the old codec's decoding time.
    private struct Fragments {
        var bytes: [UInt8] = []
        var starts: [Int] = [0]

        /// Ends the fragment being appended to `bytes`; returns its id.
        mutating func close() -> Int {
            starts.append(bytes.count)
            return starts.count - 2
        }

        mutating func quoted(_ s: ArraySlice<UInt8>) {
            bytes.append(UInt8(ascii: "\""))
            bytes += s
            bytes.append(UInt8(ascii: "\""))
        }
    }

    static func decode(_ body: UnsafeRawBufferPointer, sections reader: SectionReader) throws -> SharedEventBlock {
        var sections = reader
        var r = ByteReader(body)
        let count = try r.varint()
        let text = try sections.next(&r)
        let tsSection = try sections.next(&r)
        let valueSection = try sections.next(&r)
        let rawBits = try sections.next(&r)
        guard r.isAtEnd else { throw CorruptData("trailing bytes after the last section") }
        // Every event takes at least one byte: its shape index.
        guard count <= UInt64(valueSection.count) else { throw CorruptData("implausible event count \(count)") }
        let n = Int(count)
        let d = try text.withUnsafeBytes { try Dictionaries($0) }

        var block = SharedEventBlock()
        (block.ts, block.reportsBefore) = try tsSection.withUnsafeBytes { tsBytes in
            try rawBits.withUnsafeBytes { raw in
                var bits = BitReader(raw)
                var s = ByteReader(tsBytes)
                let ts = try decodeTimestamps(&s, count: n, bits: &bits)
                let places = try decodePlaces(&s, order: tsBytes.first ?? 0, count: n)
                guard s.isAtEnd else { throw CorruptData("trailing bytes after the timestamps") }
                guard bits.isAtEnd else { throw CorruptData("raw bits left over") }
                return (ts, places)
            }
        }
        let fragments = FragmentTable(d)
        let columns = try valueSection.withUnsafeBytes { try ValueColumns($0, d, events: n, fragments) }
        block.kinds = columns.shapeOf.map { d.kinds[$0] }
        render(columns, fragments, d, events: n, into: &block)
        return block
    }

    /// Every fragment a chunk's payloads are made of (`Fragments`), and
    /// where each shape's literal pieces begin.
    private struct FragmentTable {
        var f = Fragments()
        /// Shape s's literal pieces are fragments pieceStart[s] ... + its field count.
        var pieceStart: [Int] = []
        var trueFragment = 0
        var falseFragment = 0

        init(_ d: Dictionaries) {
            // Fragment ids: strings 0..<S, arrays S..<S+A, then true and false.
            f.bytes.reserveCapacity(d.stringBytes.count * 2 + 64)
            func string(_ i: Int) -> ArraySlice<UInt8> { d.stringBytes[d.stringStarts[i]..<d.stringStarts[i + 1]] }
            for i in 0..<d.stringCount {
                f.quoted(string(i))
                _ = f.close()
            }
            for a in 0..<d.arrayCount {
                f.bytes.append(UInt8(ascii: "["))
                for e in d.arrayStarts[a]..<d.arrayStarts[a + 1] {
                    if e > d.arrayStarts[a] { f.bytes.append(UInt8(ascii: ",")) }
                    f.quoted(string(d.arrayItems[e]))
                }
                f.bytes.append(UInt8(ascii: "]"))
                _ = f.close()
            }
            f.bytes += "true".utf8
            trueFragment = f.close()
            f.bytes += "false".utf8
            falseFragment = f.close()
            for s in 0..<d.shapeCount {
                pieceStart.append(f.starts.count - 1)
                guard !d.raw[s] else { continue }
                let fields = d.fieldStart[s]..<d.fieldStart[s + 1]
                for field in fields {
                    f.bytes.append(field == fields.lowerBound ? UInt8(ascii: "{") : UInt8(ascii: ","))
                    f.quoted(string(d.fieldKeys[field]))
                    f.bytes.append(UInt8(ascii: ":"))
                    _ = f.close()
                }
                if fields.isEmpty { f.bytes.append(UInt8(ascii: "{")) }
                f.bytes.append(UInt8(ascii: "}"))
                _ = f.close()
            }
        }
    }

    /// The value section read: each event's shape, and every field's
    /// column as fragment ids (the k-th value of field `field` is
    /// values[columnStart[field] + k]; a raw shape's, an index into raws).
    private struct ValueColumns {
        var shapeOf: [Int] = []
        var values: [Int] = []
        var columnStart: [Int]
        var raws: [[UInt8]] = []

        init(_ bytes: UnsafeRawBufferPointer, _ d: Dictionaries, events n: Int, _ fragments: FragmentTable) throws {
            columnStart = [Int](repeating: 0, count: d.fieldKeys.count)
            let (trueFragment, falseFragment) = (fragments.trueFragment, fragments.falseFragment)
            var v = ByteReader(bytes)
            shapeOf.reserveCapacity(n)
            var perShape = [Int](repeating: 0, count: d.shapeCount)
            for _ in 0..<n {
                let shape = try v.varint()
                guard shape < UInt64(d.shapeCount) else { throw CorruptData("shape index \(shape) out of range") }
                shapeOf.append(Int(shape))
                perShape[Int(shape)] += 1
            }
            values.reserveCapacity(n * 2)
            for s in 0..<d.shapeCount {
                let c = perShape[s]
                for field in d.fieldStart[s]..<d.fieldStart[s + 1] {
                    columnStart[field] = values.count
                    if d.raw[s] {
                        for _ in 0..<c {
                            let length = try v.varint()
                            guard length <= UInt64(bytes.count - v.position) else { throw CorruptData("raw payload runs past the chunk") }
                            values.append(raws.count)
                            raws.append(Array(bytes[v.position..<v.position + Int(length)]))
                            v.position += Int(length)
                        }
                        continue
                    }
                    switch d.fieldTypes[field] {
                    case .bool:
                        let size = (c + 7) / 8
                        guard size <= bytes.count - v.position else { throw CorruptData("bool column runs past the chunk") }
                        var bits = BitReader(UnsafeRawBufferPointer(rebasing: bytes[v.position..<v.position + size]))
                        for _ in 0..<c { values.append(try bits.read() ? trueFragment : falseFragment) }
                        guard bits.isAtEnd else { throw CorruptData("bool column has stray bits") }
                        v.position += size
                    case .string:
                        for _ in 0..<c {
                            let index = try v.varint()
                            guard index < UInt64(d.stringCount) else { throw CorruptData("string index \(index) out of range") }
                            values.append(Int(index))
                        }
                    case .strings:
                        for _ in 0..<c {
                            let index = try v.varint()
                            guard index < UInt64(d.arrayCount) else { throw CorruptData("array index \(index) out of range") }
                            values.append(d.stringCount + Int(index))
                        }
                    }
                }
            }
            guard v.isAtEnd else { throw CorruptData("trailing bytes after the columns") }
        }
    }

    /// Renders each event's payload from its fragments into `block`:
    /// each distinct (kind, payload) once, events pointing at it.
    private static func render(_ columns: ValueColumns, _ fragments: FragmentTable, _ d: Dictionaries, events n: Int,
                               into block: inout SharedEventBlock) {
        let (shapeOf, values, columnStart, raws) = (columns.shapeOf, columns.values, columns.columnStart, columns.raws)
        let (f, pieceStart) = (fragments.f, fragments.pieceStart)
        block.payloadIndex.reserveCapacity(n)
        // Each payload is rendered after its kind byte into `scratch` and
        // looked up there: only a (kind, payload) not seen before becomes
        // an array of its own.
        var distinct = ByteInterner()
        var next = [Int](repeating: 0, count: d.shapeCount)
        let fieldStart = d.fieldStart
        let raw = d.raw
        var scratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 256)
        defer { scratch.deallocate() }
        func reserve(_ length: Int) {
            if length > scratch.count {
                scratch.deallocate()
                scratch = .allocate(capacity: length * 2)
            }
        }
        // An event whose shape and field values (fragment ids) were met
        // before has the payload they rendered to: found by those ids, it
        // is neither rendered nor looked up by its bytes again (three in
        // four events of a client repeat one; decoding spent most of its
        // time rendering and hashing them).
        var seen = TupleTable(events: n)
        f.bytes.withUnsafeBufferPointer { fragmentBytes in
            f.starts.withUnsafeBufferPointer { starts in
                values.withUnsafeBufferPointer { values in
                    for i in 0..<n {
                        let s = shapeOf[i]
                        let k = next[s]
                        next[s] += 1
                        let fields = fieldStart[s]..<fieldStart[s + 1]
                        var key: (UInt64, UInt64, UInt64)?
                        if !raw[s] && fields.count <= 4 {
                            var ids: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
                            withUnsafeMutableBytes(of: &ids) { out in
                                let words = out.bindMemory(to: UInt64.self)
                                for (j, field) in fields.enumerated() { words[j] = UInt64(values[columnStart[field] + k]) + 1 }
                            }
                            let tuple = (UInt64(s) | ids.0 << 32, ids.1 | ids.2 << 32, ids.3)
                            if let index = seen.find(tuple) {
                                block.payloadIndex.append(index)
                                continue
                            }
                            key = tuple
                        }
                        var length: Int
                        if raw[s] {
                            let payload = raws[values[columnStart[fields.lowerBound] + k]]
                            length = payload.count
                            reserve(length + 1)
                            payload.withUnsafeBufferPointer {
                                if length > 0 { scratch.baseAddress!.advanced(by: 1).update(from: $0.baseAddress!, count: length) }
                            }
                        } else {
                            // Pieces: literal 0, value 0, literal 1, …, value m−1, literal m.
                            let literal = pieceStart[s]
                            length = starts[literal + fields.count + 1] - starts[literal]
                            for field in fields {
                                let id = values[columnStart[field] + k]
                                length += starts[id + 1] - starts[id]
                            }
                            reserve(length + 1)
                            var p = scratch.baseAddress! + 1
                            func copy(_ id: Int) {
                                let start = starts[id]
                                let size = starts[id + 1] - start
                                p.update(from: fragmentBytes.baseAddress! + start, count: size)
                                p += size
                            }
                            for (j, field) in fields.enumerated() {
                                copy(literal + j)
                                copy(values[columnStart[field] + k])
                            }
                            copy(literal + fields.count)
                        }
                        scratch[0] = d.kinds[s]
                        let index = distinct.intern(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: scratch[0..<length + 1])))
                        if index == block.payloads.count {
                            // Array(_: UnsafeBufferPointer) allocates through a specialized
                            // path; [UInt8](unsafeUninitializedCapacity:) looked up generic
                            // metadata on every call (a third of decoding time).
                            block.payloads.append(Array(UnsafeBufferPointer(rebasing: scratch[1..<length + 1])))
                        }
                        block.payloadIndex.append(Int32(index))
                        if let key { seen.insert(key, Int32(index)) }
                    }
                }
            }
        }
    }

    /// Payload indexes by (shape, up to four fragment ids, each plus one so
    /// that none is 0) packed in three words: an open-addressing table
    /// sized for a chunk's events, so it never fills.
    private struct TupleTable {
        private var keys: [(UInt64, UInt64, UInt64)]
        private var indexes: [Int32]
        private let mask: Int

        init(events: Int) {
            var size = 16
            while size < 2 * events { size *= 2 }
            keys = Array(repeating: (0, 0, 0), count: size)
            indexes = Array(repeating: -1, count: size)
            mask = size - 1
        }

        @inline(__always)
        private func slot(_ k: (UInt64, UInt64, UInt64)) -> Int {
            let h = (k.0 &* 0x9E37_79B9_7F4A_7C15) ^ (k.1 &* 0xC2B2_AE3D_27D4_EB4F) ^ (k.2 &* 0x1656_67B1_9E37_79F9)
            return Int(truncatingIfNeeded: h >> 32) & mask
        }

        func find(_ k: (UInt64, UInt64, UInt64)) -> Int32? {
            var i = slot(k)
            while indexes[i] >= 0 {
                if keys[i] == k { return indexes[i] }
                i = (i + 1) & mask
            }
            return nil
        }

        mutating func insert(_ k: (UInt64, UInt64, UInt64), _ index: Int32) {
            var i = slot(k)
            while indexes[i] >= 0 {
                if keys[i] == k { return }
                i = (i + 1) & mask
            }
            keys[i] = k
            indexes[i] = index
        }
    }

    static func decodeTimestamps(_ s: inout ByteReader, count n: Int, bits: inout BitReader) throws -> [Int64] {
        let order = try s.byte()
        guard order <= 3 else { throw CorruptData("unknown timestamp order \(order)") }
        var ts = [Int64]()
        ts.reserveCapacity(n)
        guard n > 0 else { return ts }
        var t = try s.signed()
        ts.append(t)
        for symbol in try BucketCoding.take(n - 1, from: &s) {
            let u = try BucketCoding.value(of: symbol, bits: &bits)
            t = t &+ (order & 1 == 0 ? Int64(bitPattern: u) : BucketCoding.unzigzag(u))
            ts.append(t)
        }
        return ts
    }
}
