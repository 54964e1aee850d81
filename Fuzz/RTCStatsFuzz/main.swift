// libFuzzer target for the rtcstats importer (JSONScanner's walking API,
// delta decoding, the connection converter), built by Fuzz/run.sh. Input:
// the bytes of a dump. Property: see fuzzImport in ImportFuzzSupport.swift.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTCStats(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzImport(data, size, .rtcstats)
    return 0
}
