// libFuzzer target for the webrtc-internals importer (the document walk,
// `values` strings, sample alignment, the connection converter), built by
// Fuzz/run.sh. Property: see fuzzImport in ImportFuzzSupport.swift.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInternals(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzImport(data, size, .webrtcInternals)
    return 0
}
