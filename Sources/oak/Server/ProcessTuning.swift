import Foundation

/// Keeps glibc's malloc from holding memory a small server no longer uses: at most two arenas (by default it
/// makes one per thread in use, and each keeps the memory it freed), and a fixed threshold of 256 KiB above
/// which blocks are mapped on their own and go back to the system when freed (by default the threshold
/// grows to the largest block freed, so large response buffers end up kept in the heap). (`mallopt` is
/// looked up at run time: Swift's Glibc module does not export malloc.h.) Does nothing on other C libraries.
func tuneMalloc() {
    #if os(Linux)
    typealias MalloptFunction = @convention(c) (Int32, Int32) -> Int32
    let arenaMaximum: Int32 = -8
    let mmapThreshold: Int32 = -3  // M_ARENA_MAX, M_MMAP_THRESHOLD in malloc.h
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    let mallopt = unsafeBitCast(symbol, to: MalloptFunction.self)
    _ = mallopt(arenaMaximum, 2)
    _ = mallopt(mmapThreshold, 256 << 10)
    #endif
}

/// Raises the soft limit on open files to the hard limit, so the server can hold as many connections as
/// the system allows it (shells often start processes with a soft limit of 1,024). Returns the limit now
/// in force, nil if it cannot be read.
@discardableResult
func raiseFileDescriptorLimit() -> UInt64? {
    #if os(Linux)
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
    if limit.rlim_cur < limit.rlim_max {
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
    }
    return UInt64(limit.rlim_cur)
    #else
    return nil
    #endif
}
