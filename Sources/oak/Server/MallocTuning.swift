import Foundation

/// Keeps glibc's malloc from holding memory a small server no longer uses: at most two arenas (by default it
/// makes one per thread in use, and each keeps the memory it freed), and a fixed threshold of 256 KiB above
/// which blocks are mapped on their own and go back to the system when freed (by default the threshold
/// grows to the largest block freed, so large response buffers end up kept in the heap). (`mallopt` is
/// looked up at run time: Swift's Glibc module does not export malloc.h.) Does nothing on other C libraries.
func tuneMalloc() {
    #if os(Linux)
    typealias MalloptFunction = @convention(c) (Int32, Int32) -> Int32
    let arenaMaximum: Int32 = -8, mmapThreshold: Int32 = -3  // M_ARENA_MAX, M_MMAP_THRESHOLD in malloc.h
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    let mallopt = unsafeBitCast(symbol, to: MalloptFunction.self)
    _ = mallopt(arenaMaximum, 2)
    _ = mallopt(mmapThreshold, 256 << 10)
    #endif
}
