import NIOCore

/// A built export document: the change-log version it shows, its body and its ETag.
package protocol BuiltExport: Sendable {
    var version: Int64 { get }
    var body: ByteBuffer { get }
    var etag: String { get }
}

/// The export of the newest change-log version seen; a build for a newer version is shared by everyone who
/// asks while it runs, and starts from the last one built. A document nobody asked for a while is let go
/// (`release(ifIdleFor:)`): the next request builds it again from the database.
package actor ExportCache<Layout: BuiltExport> {
    private var version: Int64 = -1
    private var build: Task<Layout, any Error>?
    private var latest: Layout?
    private var lastAsked = ContinuousClock.now

    package init() {}

    /// Lets the document go when nobody asked for it for `idle`; true when one was held.
    package func release(ifIdleFor idle: Duration) -> Bool {
        guard build != nil, ContinuousClock.now - lastAsked >= idle else { return false }
        build = nil
        latest = nil
        version = -1
        return true
    }

    package func snapshot(
        at version: Int64, building: @escaping @Sendable (_ previous: Layout?) async throws -> Layout
    ) async throws -> ExportSnapshot {
        lastAsked = .now
        if build == nil || version > self.version {
            self.version = version
            let previous = latest
            build = Task { try await building(previous) }
        }
        let current = build!
        do {
            let layout = try await current.value
            if layout.version > latest?.version ?? -1 { latest = layout }
            return ExportSnapshot(body: layout.body, etag: layout.etag)
        } catch {
            // A failed build is not kept: the next request tries again.
            if version == self.version { build = nil }
            throw error
        }
    }
}
