import CCrypto

/// SHA-256 through OpenSSL's libcrypto (SHA-NI where the CPU has it).
///
/// The content identity of an ingested input: a 64-bit fingerprint was
/// collided in minutes, and a collision makes ingest skip a different file
/// as "already ingested", so the identity must be cryptographic.
/// `snapshot()` gives the digest of what was hashed so far without
/// ending the stream: the resume point of a file is checked that way.
public final class SHA256 {
    private let context: OpaquePointer

    public init() {
        context = EVP_MD_CTX_new()!
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
    }

    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest of everything hashed so far; hashing can go on.
    public func snapshot() -> [UInt8] {
        let copy = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(copy) }
        EVP_MD_CTX_copy_ex(copy, context)
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        digest.withUnsafeMutableBufferPointer { _ = EVP_DigestFinal_ex(copy, $0.baseAddress, &length) }
        return digest
    }

    /// The digest as it is stored: `sha256:` and 64 lowercase hex digits.
    public func snapshotText() -> String { SHA256.text(snapshot()) }

    public static func text(_ digest: [UInt8]) -> String {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out = Array("sha256:".utf8)
        for b in digest {
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The digest of `bytes`.
    public static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let h = SHA256()
        h.update(bytes)
        return h.snapshot()
    }
}
