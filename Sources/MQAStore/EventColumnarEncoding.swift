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
///     section timestamps: byte order (0: never decreasing, intervals as
///             they are; 1: intervals zigzagged), zigzag first, then n−1
///             interval symbols (`BucketCoding`)
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

    static func encode(_ block: EventBlock, sections: SectionWriter, into out: inout [UInt8]) throws {
        let n = block.ts.count
        var header = ByteWriter()
        header.varint(UInt64(n))
        out += header.bytes

        var strings = ByteInterner()
        for word in EventVocabulary.bytes { _ = strings.intern(word) }
        var shapes = ByteInterner()
        var arrays = ByteInterner()
        var shapeColumn = ByteWriter(capacity: n)
        var columns: [[Column]] = []
        var object = CanonicalObject()
        var key = ByteWriter(capacity: 64)
        var arrayKey = ByteWriter(capacity: 64)
        for i in 0..<n {
            block.payloads[i].withUnsafeBytes { p in
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
                }
                shapeColumn.varint(UInt64(shape))
                guard parsed else {
                    columns[shape][0].symbols.varint(UInt64(p.count))
                    columns[shape][0].symbols.bytes.append(contentsOf: p)
                    return
                }
                for (j, f) in object.fields.enumerated() {
                    switch f.type {
                    case .string:
                        let index = strings.intern(UnsafeRawBufferPointer(rebasing: p[f.value]))
                        columns[shape][j].symbols.varint(UInt64(index))
                    case .bool:
                        columns[shape][j].bits.write(f.flag)
                    case .strings:
                        arrayKey.bytes.removeAll(keepingCapacity: true)
                        arrayKey.varint(UInt64(f.items.count))
                        for item in f.items {
                            arrayKey.varint(UInt64(strings.intern(UnsafeRawBufferPointer(rebasing: p[object.items[item]]))))
                        }
                        columns[shape][j].symbols.varint(UInt64(arrays.intern(arrayKey.bytes)))
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
        try sections.append(symbols, to: &out)

        var values = shapeColumn.bytes
        for shape in 0..<columns.count {
            let isBool = shapeTypes(shapes.entry(shape))
            for j in columns[shape].indices {
                if isBool[j] { values += columns[shape][j].bits.finish() } else { values += columns[shape][j].symbols.bytes }
            }
        }
        try sections.append(values, to: &out)
        try sections.append(bits.finish(), to: &out, compressible: false)
    }

    /// Which fields of an encoded shape are bools.
    private static func shapeTypes(_ shape: ArraySlice<UInt8>) -> [Bool] {
        Array(shape).withUnsafeBytes { bytes in
            var r = ByteReader(bytes)
            // Written by `encode` just now: it cannot be malformed.
            guard (try? r.byte()) != nil, (try? r.byte()) == 0, let count = try? r.varint() else { return [false] }
            return (0..<Int(count)).map { _ in
                _ = try? r.varint()
                return (try? r.byte()) == CanonicalObject.ValueType.bool.rawValue
            }
        }
    }

    static func encodeTimestamps(_ ts: [Int64], symbols: inout [UInt8], bits: inout BitWriter) {
        var sorted = true
        for i in ts.indices.dropFirst() where ts[i] < ts[i - 1] { sorted = false; break }
        var w = ByteWriter()
        w.byte(sorted ? 0 : 1)
        if let first = ts.first { w.signed(first) }
        symbols += w.bytes
        for i in ts.indices.dropFirst() {
            let d = ts[i] &- ts[i - 1]
            BucketCoding.write(sorted ? UInt64(bitPattern: d) : BucketCoding.zigzag(d), symbols: &symbols, bits: &bits)
        }
    }

    // MARK: Decoding

    private struct Shape {
        var kind: UInt8
        var raw: Bool
        var keys: [Int] = []
        var types: [CanonicalObject.ValueType] = []
    }

    static func decode(_ body: UnsafeRawBufferPointer, sections: SectionReader) throws -> EventBlock {
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

        // The dictionaries.
        var strings: [[UInt8]] = EventVocabulary.bytes
        var shapes: [Shape] = []
        var arrays: [[Int]] = []
        try text.withUnsafeBytes { bytes in
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
                strings.append(Array(bytes[t.position..<t.position + length]))
                t.position += length
            }
            let shapeCount = try t.varint()
            guard shapeCount <= UInt64(bytes.count) else { throw CorruptData("implausible shape count") }
            for _ in 0..<shapeCount {
                var shape = Shape(kind: try t.byte(), raw: false)
                switch try t.byte() {
                case 0:
                    let fields = try t.varint()
                    guard fields <= UInt64(bytes.count) else { throw CorruptData("implausible field count") }
                    for _ in 0..<fields {
                        let key = try t.varint()
                        guard key < UInt64(strings.count) else { throw CorruptData("key index \(key) out of range") }
                        guard let type = CanonicalObject.ValueType(rawValue: try t.byte()) else {
                            throw CorruptData("unknown field type")
                        }
                        shape.keys.append(Int(key))
                        shape.types.append(type)
                    }
                case 1: shape.raw = true
                case let form: throw CorruptData("unknown shape form \(form)")
                }
                shapes.append(shape)
            }
            let arrayCount = try t.varint()
            guard arrayCount <= UInt64(bytes.count) else { throw CorruptData("implausible array count") }
            for _ in 0..<arrayCount {
                let length = try t.varint()
                guard length <= UInt64(bytes.count) else { throw CorruptData("implausible array length") }
                var items: [Int] = []
                for _ in 0..<length {
                    let index = try t.varint()
                    guard index < UInt64(strings.count) else { throw CorruptData("array item \(index) out of range") }
                    items.append(Int(index))
                }
                arrays.append(items)
            }
            guard t.isAtEnd else { throw CorruptData("trailing bytes after the dictionaries") }
        }

        var block = EventBlock()
        block.ts = try tsSection.withUnsafeBytes { tsBytes in
            try rawBits.withUnsafeBytes { raw in
                var bits = BitReader(raw)
                var s = ByteReader(tsBytes)
                let ts = try decodeTimestamps(&s, count: n, bits: &bits)
                guard s.isAtEnd else { throw CorruptData("trailing bytes after the timestamps") }
                guard bits.isAtEnd else { throw CorruptData("raw bits left over") }
                return ts
            }
        }

        try valueSection.withUnsafeBytes { bytes in
            var v = ByteReader(bytes)
            var shapeOf: [Int] = []
            shapeOf.reserveCapacity(n)
            var perShape = [Int](repeating: 0, count: shapes.count)
            for _ in 0..<n {
                let shape = try v.varint()
                guard shape < UInt64(shapes.count) else { throw CorruptData("shape index \(shape) out of range") }
                shapeOf.append(Int(shape))
                perShape[Int(shape)] += 1
            }
            // values[shape][field][k]: the k-th event of that shape.
            var values: [[[Int]]] = []
            var raws: [[UInt8]] = []
            for (s, shape) in shapes.enumerated() {
                let c = perShape[s]
                if shape.raw {
                    var column: [Int] = []
                    for _ in 0..<c {
                        let length = try v.varint()
                        guard length <= UInt64(bytes.count - v.position) else { throw CorruptData("raw payload runs past the chunk") }
                        column.append(raws.count)
                        raws.append(Array(bytes[v.position..<v.position + Int(length)]))
                        v.position += Int(length)
                    }
                    values.append([column])
                    continue
                }
                var fields: [[Int]] = []
                for type in shape.types {
                    var column: [Int] = []
                    column.reserveCapacity(c)
                    switch type {
                    case .bool:
                        let size = (c + 7) / 8
                        guard size <= bytes.count - v.position else { throw CorruptData("bool column runs past the chunk") }
                        var bits = BitReader(UnsafeRawBufferPointer(rebasing: bytes[v.position..<v.position + size]))
                        for _ in 0..<c { column.append(try bits.read() ? 1 : 0) }
                        guard bits.isAtEnd else { throw CorruptData("bool column has stray bits") }
                        v.position += size
                    case .string, .strings:
                        let limit = type == .string ? strings.count : arrays.count
                        for _ in 0..<c {
                            let index = try v.varint()
                            guard index < UInt64(limit) else { throw CorruptData("value index \(index) out of range") }
                            column.append(Int(index))
                        }
                    }
                    fields.append(column)
                }
                values.append(fields)
            }
            guard v.isAtEnd else { throw CorruptData("trailing bytes after the columns") }

            var next = [Int](repeating: 0, count: shapes.count)
            block.kinds.reserveCapacity(n)
            block.payloads.reserveCapacity(n)
            for i in 0..<n {
                let s = shapeOf[i]
                let shape = shapes[s]
                let k = next[s]
                next[s] += 1
                block.kinds.append(shape.kind)
                if shape.raw {
                    block.payloads.append(raws[values[s][0][k]])
                    continue
                }
                var out: [UInt8] = [UInt8(ascii: "{")]
                for (j, type) in shape.types.enumerated() {
                    if j > 0 { out.append(UInt8(ascii: ",")) }
                    quoted(strings[shape.keys[j]], &out)
                    out.append(UInt8(ascii: ":"))
                    let value = values[s][j][k]
                    switch type {
                    case .string: quoted(strings[value], &out)
                    case .bool: out += value == 1 ? Array("true".utf8) : Array("false".utf8)
                    case .strings:
                        out.append(UInt8(ascii: "["))
                        for (e, item) in arrays[value].enumerated() {
                            if e > 0 { out.append(UInt8(ascii: ",")) }
                            quoted(strings[item], &out)
                        }
                        out.append(UInt8(ascii: "]"))
                    }
                }
                out.append(UInt8(ascii: "}"))
                block.payloads.append(out)
            }
        }
        return block
    }

    @inline(__always)
    private static func quoted(_ s: [UInt8], _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        out += s
        out.append(UInt8(ascii: "\""))
    }

    static func decodeTimestamps(_ s: inout ByteReader, count n: Int, bits: inout BitReader) throws -> [Int64] {
        let order = try s.byte()
        guard order <= 1 else { throw CorruptData("unknown timestamp order \(order)") }
        var ts = [Int64]()
        ts.reserveCapacity(n)
        guard n > 0 else { return ts }
        var t = try s.signed()
        ts.append(t)
        for _ in 1..<n {
            let u = try BucketCoding.read(&s, bits: &bits)
            t = t &+ (order == 0 ? Int64(bitPattern: u) : BucketCoding.unzigzag(u))
            ts.append(t)
        }
        return ts
    }
}
