import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OakModels
import OakStore
import ServiceLifecycle

/// Live updates for an open species page: `GET /events/species/{name}?since=<position>` is a stream of server-sent
/// events with a `changed` event (its id the change-log position) whenever a change alters what the page shows (the
/// species, its descriptions and notes, the sources' names). The page's script then fetches the page again and
/// puts it in place; without the script, or the stream, the page is as it was loaded. The page holds the position
/// it was rendered at (`since`), so a change made in between is not missed; a reconnecting browser sends the last
/// id it saw (`Last-Event-ID`).
struct WebEventsController {
    let store: any CompendiumStore

    /// How often the data version is looked at (a read of memory on SQLite).
    static let interval: Duration = .milliseconds(250)
    /// A quiet stream gets a comment this often, so the connection's idle timeout and proxies keep it open.
    static let keepAlive: Duration = .seconds(15)
    /// A stream ends after this, and the browser opens another from the last id it saw: no connection is held
    /// without end, and a server shutting down ends them at once.
    static let lifetime: Duration = .seconds(300)

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.speciesEvents, use: speciesEvents)
    }

    @Sendable func speciesEvents(_ request: Request, context: OakRequestContext) async throws -> Response {
        let species = try await store.species(named: try context.pathParameter("name"))
        let name = DataChanges.bareName(species.scientificName)
        let resumed = try request.headers[HTTPField.Name("Last-Event-ID")!].map { try Self.position($0, field: "Last-Event-ID") }
        let since = try resumed ?? request.queryValues(of: .speciesEvents).string("since").map { try Self.position($0, field: "since") }
        let start: Int64
        if let since { start = since } else { start = try await store.changes(after: nil).head }
        let body = ResponseBody { [store] writer in
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
            var position = start
            var seen: DataVersion? = nil
            var quietSince = ContinuousClock.now
            let end = ContinuousClock.now + Self.lifetime
            while ContinuousClock.now < end, !Task.isShuttingDownGracefully, !Task.isCancelled {
                let version = try await store.dataVersion()
                if version != seen {
                    seen = version
                    let changes = try await store.changes(after: position)
                    position = changes.head
                    if Self.alters(changes, speciesNamed: name) {
                        try await writer.write(ByteBuffer(string: "id: \(position)\nevent: changed\ndata: \(position)\n\n"))
                        quietSince = .now
                    }
                }
                if ContinuousClock.now - quietSince >= Self.keepAlive {
                    try await writer.write(ByteBuffer(string: ": still here\n\n"))
                    quietSince = .now
                }
                try? await Task.sleep(for: Self.interval)
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream; charset=utf-8", .cacheControl: "no-store", HTTPField.Name("X-Accel-Buffering")!: "no"],
            body: body)
    }

    /// Whether changes alter a species' page: its own row, its descriptions or notes, a source (the columns show
    /// sources' names and licenses), or more than the change log can say.
    static func alters(_ changes: DataChanges, speciesNamed name: String) -> Bool {
        changes.everything || changes.unknownRows || changes.sources || changes.species.contains(name)
            || changes.speciesWithChangedRows.contains(name)
    }

    private static func position(_ text: String, field: String) throws -> Int64 {
        guard let position = Int64(text.trimmingCharacters(in: .whitespaces)), position >= 0 else {
            throw OakError.invalid(field, "must be a change-log position (a whole number) the stream gave")
        }
        return position
    }
}
