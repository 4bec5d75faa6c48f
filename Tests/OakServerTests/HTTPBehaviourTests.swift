import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import OakServer
import Testing

/// Collects every log line (message and metadata) for inspection.
final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    var all: [String] { lock.withLock { lines } }

    func append(_ line: String) { lock.withLock { lines.append(line) } }

    var logger: Logger {
        Logger(label: "test") { _ in CapturingHandler(capture: self) }
    }

    struct CapturingHandler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append("\(event.message) " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        }
    }
}

@Suite("Production HTTP behaviour")
struct HTTPBehaviourTests {
    @Test("CORS: allowed origins get headers, localhost on any port, other origins none")
    func cors() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let allowed = try await client.send(.get, "/api/v1/stats", headers: [.origin: "https://oakcompendium.org"])
            #expect(allowed.headers[.accessControlAllowOrigin] == "https://oakcompendium.org")
            let local = try await client.send(.get, "/api/v1/stats", headers: [.origin: "http://localhost:5173"])
            #expect(local.headers[.accessControlAllowOrigin] == "http://localhost:5173")
            let other = try await client.send(.get, "/api/v1/stats", headers: [.origin: "https://evil.example"])
            #expect(other.headers[.accessControlAllowOrigin] == nil)
            let sneaky = try await client.send(.get, "/api/v1/stats", headers: [.origin: "http://localhost:80.evil.example"])
            #expect(sneaky.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test("CORS preflight answers the allowed methods and headers")
    func preflight() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let response = try await client.send(
                .options, "/api/v1/notes", key: nil,
                headers: [.origin: "https://oakcompendium.com", .accessControlRequestMethod: "POST", .accessControlRequestHeaders: "Authorization"])
            #expect(response.status == .noContent)
            let methods = response.headers[.accessControlAllowMethods] ?? ""
            for method in ["GET", "POST", "PUT", "DELETE", "OPTIONS"] { #expect(methods.contains(method)) }
            let headers = response.headers[.accessControlAllowHeaders] ?? ""
            for header in ["Accept", "Authorization", "Content-Type", "X-API-Key", "X-Request-ID"] { #expect(headers.contains(header)) }
        }
    }

    @Test("a 429 still carries CORS headers, so a browser can read it")
    func corsOn429() async throws {
        let env = try await TestEnvironment()
        let configuration = env.configuration(readsPerSecond: 1)
        try await env.test(configuration: configuration, rateLimiter: RateLimiter(clock: { 0 })) { client in
            try await client.send(.get, "/api/v1/stats", headers: [.origin: "https://oakcompendium.org"])
            let refused = try await client.send(.get, "/api/v1/stats", headers: [.origin: "https://oakcompendium.org"])
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.accessControlAllowOrigin] == "https://oakcompendium.org")
        }
    }

    @Test("gzip for responses over 1 KB when accepted; small responses and non-accepting clients get plain")
    func compression() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let large = try await client.send(.get, "/api/v1/species?limit=100", headers: [.acceptEncoding: "gzip, deflate"])
            #expect(large.headers[.contentEncoding] == "gzip")
            #expect(large.body.getBytes(at: large.body.readerIndex, length: 2) == [0x1f, 0x8b])
            let plain = try await client.send(.get, "/api/v1/species?limit=100")
            #expect(plain.headers[.contentEncoding] == nil)
            #expect(large.body.readableBytes < plain.body.readableBytes / 3)
            let small = try await client.send(.get, "/health", headers: [.acceptEncoding: "gzip"])
            #expect(small.headers[.contentEncoding] == nil)
            let refused = try await client.send(.get, "/api/v1/species?limit=100", headers: [.acceptEncoding: "gzip;q=0"])
            #expect(refused.headers[.contentEncoding] == nil)
        }
    }

    @Test("every response carries X-Request-ID: the client's when sane, otherwise generated")
    func requestIDs() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let generated = try await client.send(.get, "/health")
            #expect(UUID(uuidString: generated.headers[.init("X-Request-ID")!] ?? "") != nil)
            let kept = try await client.send(.get, "/api/v1/stats", headers: [.init("X-Request-ID")!: "trace-abc.123_x"])
            #expect(kept.headers[.init("X-Request-ID")!] == "trace-abc.123_x")
            let replaced = try await client.send(.get, "/nothing", headers: [.init("X-Request-ID")!: "bad id\u{7}<script>"])
            #expect(replaced.headers[.init("X-Request-ID")!] != "bad id\u{7}<script>")
            #expect(UUID(uuidString: replaced.headers[.init("X-Request-ID")!] ?? "") != nil)
        }
    }

    @Test("one structured log line per request; Authorization and X-API-Key values never appear in logs")
    func logging() async throws {
        let env = try await TestEnvironment()
        let capture = LogCapture()
        var configuration = env.configuration
        configuration.logLevel = .trace
        try await env.test(configuration: configuration, logger: capture.logger) { client in
            try await client.send(.post, "/api/v1/notes", json: #"{"scientificName": "alba"}"#, headers: [.init("X-Request-ID")!: "req-1"])
            try await client.send(.get, "/api/v1/auth/verify", key: nil, headers: [.init("X-API-Key")!: "secret-api-key-value"])
            try await client.send(.post, "/api/v1/notes", json: "{", key: "wrong-secret-key")
        }
        let lines = capture.all.filter { $0.hasPrefix("request ") }
        #expect(lines.count == 3)
        let first = try #require(lines.first { $0.contains("request_id=req-1") })
        for field in ["method=POST", "path=/api/v1/notes", "status=201", "duration_ms="] { #expect(first.contains(field), "\(first)") }
        for line in capture.all {
            #expect(!line.contains(TestEnvironment.ownerKey))
            #expect(!line.contains("secret-api-key-value"))
            #expect(!line.contains("wrong-secret-key"))
        }
    }

    @Test("security headers everywhere; Cache-Control no-store except the export")
    func securityHeaders() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            for path in ["/api/v1/species/alba", "/nothing", "/health"] {
                let response = try await client.send(.get, path)
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[.init("X-Frame-Options")!] == "DENY")
                #expect(response.headers[.contentSecurityPolicy] == "default-src 'none'")
                #expect(response.headers[.cacheControl] == "no-store")
            }
            #expect(try await client.send(.get, "/api/v1/export").headers[.cacheControl] == "public, max-age=300")
        }
    }

    @Test("request bodies over the cap answer 413 with the envelope")
    func bodyCap() async throws {
        let env = try await TestEnvironment()
        let huge = #"{"scientific_name": "big", "author": "\#(String(repeating: "x", count: 1_100_000))"}"#
        try await env.test(.live) { client in
            let response = try await client.send(.post, "/api/v1/species", json: huge)
            #expect(response.status == .contentTooLarge)
            #expect(try response.error().code == "PAYLOAD_TOO_LARGE")
        }
        #expect(try await env.count("SELECT COUNT(*) FROM oak_entries WHERE scientific_name = 'big'") == 0)
    }

    @Test("a body of undeclared length (chunked) is held to --max-body-size; a cap above the default is honored")
    func configuredBodyCap() async throws {
        let env = try await TestEnvironment()
        var small = env.configuration
        small.maxBodySize = 2_000
        try await env.test(.live, configuration: small) { client in
            let port = try #require(client.port)
            let long = #"{"scientific_name": "chunked", "author": "\#(String(repeating: "x", count: 3_000))"}"#
            let refused = try await RawConnection.offPool { try RawConnection.chunkedPost(port: port, path: "/api/v1/species", json: long) }
            #expect(refused.hasPrefix("HTTP/1.1 413"))
            #expect(refused.contains("PAYLOAD_TOO_LARGE"))
            let accepted = try await RawConnection.offPool {
                try RawConnection.chunkedPost(port: port, path: "/api/v1/species", json: #"{"scientific_name": "chunked-small"}"#)
            }
            #expect(accepted.hasPrefix("HTTP/1.1 201"))
        }
        #expect(try await env.count("SELECT COUNT(*) FROM oak_entries WHERE scientific_name LIKE 'chunked%'") == 1)

        var large = env.configuration
        large.maxBodySize = 2 << 20
        try await env.test(.live, configuration: large) { client in
            let huge = #"{"scientific_name": "big", "author": "\#(String(repeating: "x", count: 1_100_000))"}"#
            let response = try await client.send(.post, "/api/v1/species", json: huge)
            // Read whole and judged on its content, not refused for its size.
            #expect(response.status == .badRequest)
            #expect(try response.error().code == "VALIDATION_ERROR")
        }
    }

    @Test("unsupported content types answer 415, unknown routes 404 and wrong methods 405, all with the envelope")
    func hostileInput() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            let xml = try await client.send(
                .post, "/api/v1/species", json: "<species/>", headers: [.contentType: "application/xml"])
            #expect(xml.status == .unsupportedMediaType)
            #expect(try xml.error().code == "UNSUPPORTED_MEDIA_TYPE")
            let unknown = try await client.send(.get, "/api/v2/species")
            #expect(unknown.status == .notFound)
            #expect(try unknown.error().code == "NOT_FOUND")
            let wrongMethod = try await client.send(.delete, "/api/v1/stats")
            #expect(wrongMethod.status == .methodNotAllowed)
            #expect(try wrongMethod.error().code == "METHOD_NOT_ALLOWED")
            #expect(wrongMethod.headers[.allow] == "GET")
            let wrongOnItem = try await client.send(.post, "/api/v1/species/alba")
            #expect(wrongOnItem.status == .methodNotAllowed)
            #expect(wrongOnItem.headers[.allow]?.contains("PUT") == true)
        }
    }

    @Test("Allow names the methods of the route that serves the path: species/search is not species/{name}")
    func allowIsPerRoute() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            for method in [HTTPRequest.Method.options, .delete, .put] {
                let search = try await client.send(method, "/api/v1/species/search?q=alba")
                #expect(search.status == .methodNotAllowed)
                #expect(search.headers[.allow] == "GET")
            }
            let item = try await client.send(.options, "/api/v1/species/alba")
            #expect(item.headers[.allow] == "DELETE, GET, PATCH, PUT")
            #expect(try await client.send(.get, "/api/v1/species/alba").status == .ok)
        }
    }

    @Test("slow or abandoned connections time out")
    func idleTimeout() async throws {
        let env = try await TestEnvironment()
        var configuration = env.configuration
        configuration.idleTimeout = .seconds(1)
        let app = buildApplication(configuration: configuration, store: env.store)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            // Send half a request, then nothing: the server must close the connection.
            let closed = try await RawConnection.offPool { try RawConnection.sendsPartialRequestAndWaitsForClose(port: port, waitingAtMost: 10) }
            #expect(closed)
        }
    }

    @Test("metrics: request counts and latency by route and status, and database pool gauges")
    func metrics() async throws {
        let env = try await TestEnvironment()
        try await env.test { client in
            try await client.send(.get, "/api/v1/species/alba")
            try await client.send(.get, "/api/v1/species/nothing")
            let response = try await client.send(.get, "/metrics")
            #expect(response.status == .ok)
            let text = String(buffer: response.body)
            #expect(text.contains(#"oak_http_requests_total{method="GET",route="/api/v1/species/{name}",status="200"} 1"#))
            #expect(text.contains(#"oak_http_requests_total{method="GET",route="/api/v1/species/{name}",status="404"} 1"#))
            #expect(text.contains("oak_http_request_duration_seconds_bucket"))
            #expect(text.contains(env.backend == .sqlite ? "oak_db_max_readers 4" : "oak_db_max_readers 2"))
            #expect(text.contains("oak_db_reads_in_flight"))
            #expect(text.contains("oak_response_cache_bytes"))
        }
    }
}

/// Bare TCP connections, for what the test clients cannot send: incomplete requests, chunked bodies.
/// Their calls block: run them through `offPool`.
enum RawConnection {
    /// Runs blocking socket work on a thread of its own. On the cooperative pool it would hold one of the few
    /// threads the server in this process answers on: two such waits at once left the server no thread at all.
    static func offPool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// A socket connected to 127.0.0.1:`port`, or nil; the caller closes it.
    static func connected(port: Int) -> Int32? {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Connects, sends an incomplete request and reports whether the server closed the connection within `seconds`.
    static func sendsPartialRequestAndWaitsForClose(port: Int, waitingAtMost seconds: Int) throws -> Bool {
        guard let descriptor = connected(port: port) else { return false }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let partial = Array("GET /api/v1/species HTTP/1.1\r\nHost: localhost\r\n".utf8)
        _ = partial.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return true }  // orderly close by the server
            if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }  // reset counts as closed; a timeout does not
        }
    }

    /// Sends `request` (one or several pipelined requests, the last closing the connection) in one write and
    /// returns everything the server sent, and whether it closed the connection within `seconds`.
    static func exchange(port: Int, _ request: String, waitingAtMost seconds: Int = 10) throws -> (text: String, closed: Bool) {
        guard let descriptor = connected(port: port) else { throw POSIXError(.ECONNREFUSED) }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == bytes.count else { throw POSIXError(.EIO) }
        return readUntilClosed(descriptor)
    }

    /// What arrives until the server closes the connection (`closed`) or a read times out.
    private static func readUntilClosed(_ descriptor: Int32) -> (text: String, closed: Bool) {
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        var closed = false
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count == 0 { closed = true }
            guard count > 0 else { break }
            response += chunk[0..<count]
        }
        return (String(decoding: response, as: UTF8.self), closed)
    }

    /// Sends a POST with a chunked body (no Content-Length) and returns the raw response.
    static func chunkedPost(port: Int, path: String, json: String) throws -> String {
        guard let descriptor = connected(port: port) else { throw POSIXError(.ECONNREFUSED) }
        defer { close(descriptor) }
        let request =
            "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(TestEnvironment.ownerKey)\r\n"
            + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            + String(json.utf8.count, radix: 16) + "\r\n" + json + "\r\n0\r\n\r\n"
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + sent, $0.count - sent, 0) }
            guard count > 0 else { break }  // the server may answer 413 and close before reading everything
            sent += count
        }
        return readUntilClosed(descriptor).text
    }
}
