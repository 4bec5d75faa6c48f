import AsyncHTTPClient
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import OakModels
import OakServer
import Testing

/// Live updates of an open species page (`WebEventsController`): its stream of server-sent events, read over a real
/// socket as a browser's `EventSource` reads it. The browser test (`scripts/browser-tests`) sees the page change.
@Suite("Web live updates")
struct WebLiveUpdatesTests {
    @Test("an open species page is told when its notes or descriptions change, and not when another species changes")
    func changedEvents() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            let port = try #require(client.port)
            try await EventStream.reading("http://127.0.0.1:\(port)/events/species/alba") { stream in
                try await stream.waitFor("retry: 2000\n\n")
                try await client.send(.put, "/api/v1/species/rubra", json: #"{"author": "Elsewhere"}"#)
                // A change the page shows after one it does not: the first event is the page's own.
                try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba", "fields": {"leaf": "Lobed."}}"#)
                let first = try await stream.waitFor("event: changed\n")
                #expect(first.components(separatedBy: "event: changed").count == 2)
                // A new source (the page lists sources' names), then its description of the species.
                let source = try await client.send(.post, "/api/v1/sources", json: #"{"source_type": "book", "name": "Live Oaks"}"#)
                let id = try #require(try source.object()["id"] as? Int)
                try await stream.waitFor(occurrences: 2, of: "event: changed\n")
                let described = try await client.send(.post, "/api/v1/species/alba/sources", json: #"{"source_id": \#(id), "bark": "Pale."}"#)
                #expect(described.status == .created)
                try await stream.waitFor(occurrences: 3, of: "event: changed\n")
            }
        }
    }

    @Test(
        "a page's stream starts where the page was rendered: a change made before the stream opened is sent at once; a bad position is a 400, an unknown species a 404"
    )
    func startsWhereThePageWasRendered() async throws {
        let env = try await TestEnvironment()
        try await env.test(.live) { client in
            let port = try #require(client.port)
            let page = String(buffer: try await client.send(.get, "/species/alba", key: nil, headers: WebBrowser.headers).body)
            let live = try #require(page.firstMatch(of: /data-live="(\/events\/species\/alba\?since=\d+)"/)).1
            try await client.send(.put, "/api/v1/species/alba", json: #"{"author": "Changed before the stream"}"#)
            try await EventStream.reading("http://127.0.0.1:\(port)\(live)") { stream in
                let text = try await stream.waitFor("event: changed\n")
                let id = try #require(text.firstMatch(of: /id: (\d+)\n/)).1
                #expect(Int(id)! > Int(live.split(separator: "=").last!)!)
            }
            #expect(try await client.send(.get, "/events/species/alba?since=soon", key: nil).status == .badRequest)
            #expect(try await client.send(.get, "/events/species/nonesuch", key: nil).status == .notFound)
        }
    }
}

/// A stream of server-sent events, read as it arrives.
final class EventStream: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""

    /// Opens `url`, runs `body` while the stream is read, then closes it.
    static func reading(_ url: String, _ body: (EventStream) async throws -> Void) async throws {
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            let response = try await http.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "content-type") == "text/event-stream; charset=utf-8")
            let stream = EventStream()
            let reader = Task {
                for try await chunk in response.body { stream.append(String(buffer: chunk)) }
            }
            defer { reader.cancel() }
            try await body(stream)
        } catch {
            try await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    private func append(_ chunk: String) { lock.withLock { text += chunk } }

    /// Waits (up to 10 s) until the stream holds `pattern` `occurrences` times, and answers what it holds.
    @discardableResult
    func waitFor(occurrences: Int = 1, of pattern: String) async throws -> String {
        for _ in 0..<200 {
            let now = lock.withLock { text }
            if now.components(separatedBy: pattern).count - 1 >= occurrences { return now }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the stream never held \(occurrences) × \(pattern.debugDescription): \(lock.withLock { text }.debugDescription)")
        throw CancellationError()
    }

    @discardableResult
    func waitFor(_ pattern: String) async throws -> String { try await waitFor(occurrences: 1, of: pattern) }
}
