import Foundation

/// Keeps glibc's malloc from holding memory a small server no longer uses, without giving back memory it
/// is about to use again: at most two arenas (by default it makes one per thread in use, and each keeps the
/// memory it freed); blocks over 4 MiB (the export document) are mapped on their own and
/// go back to the system when freed (by default the threshold grows to the largest block freed, so those
/// would end up kept in the heap); and up to 8 MiB free at the top of a heap is kept. Sync pages (1–2 MB each,
/// and a copy in the response buffer) come from the heap: mapped on their own, each page would fault in fresh
/// memory (see BENCHMARKS.md, "Server round 2", item 16). (`mallopt` is looked up at run time: Swift's Glibc
/// module does not export malloc.h.) Does nothing on other C libraries.
func tuneMalloc() {
    #if os(Linux)
    typealias MalloptFunction = @convention(c) (Int32, Int32) -> Int32
    let arenaMaximum: Int32 = -8
    let mmapThreshold: Int32 = -3
    let trimThreshold: Int32 = -1  // M_ARENA_MAX, M_MMAP_THRESHOLD, M_TRIM_THRESHOLD in malloc.h
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    let mallopt = unsafeBitCast(symbol, to: MalloptFunction.self)
    _ = mallopt(arenaMaximum, 2)
    _ = mallopt(mmapThreshold, 4 << 20)
    _ = mallopt(trimThreshold, 8 << 20)
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
