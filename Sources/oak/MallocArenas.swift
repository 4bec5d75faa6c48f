import Foundation

/// Asks glibc for at most two malloc arenas. By default it makes one per thread in use, and each keeps the
/// memory it freed, which multiplies a small server's resident memory. (`mallopt` is looked up at run time:
/// Swift's Glibc module does not export malloc.h.) Does nothing on other C libraries.
func limitMallocArenas() {
    #if os(Linux)
    typealias MalloptFunction = @convention(c) (Int32, Int32) -> Int32
    let arenaMaximum: Int32 = -8  // M_ARENA_MAX in malloc.h
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    _ = unsafeBitCast(symbol, to: MalloptFunction.self)(arenaMaximum, 2)
    #endif
}
