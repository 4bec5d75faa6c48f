import CompressNIO
import HTTPTypes
import Hummingbird
import OakModels

/// gzip for responses over 1 KB when the client accepts it; small responses go out plain.
struct CompressionMiddleware: RouterMiddleware {
    /// Bodies up to this many bytes go out plain.
    static let minimumSize = 1024

    func handle(_ request: Request, context: OakRequestContext, next: (Request, OakRequestContext) async throws -> Response)
        async throws -> Response
    {
        var response = try await next(request, context)
        guard Self.compresses(response.headers, length: response.body.contentLength, acceptEncoding: request.headers[.acceptEncoding])
        else { return response }
        response.body = ResponseBody(byteBuffer: try Self.gzip(try await BodyCollector.collect(response.body), headers: &response.headers))
        return response
    }

    /// Whether an answer with these fields and body length goes out gzipped to a client sending `acceptEncoding`.
    static func compresses(_ headers: HTTPFields, length: Int?, acceptEncoding: String?) -> Bool {
        guard let length, length > minimumSize, headers[.contentEncoding] == nil else { return false }
        return acceptsGzip(acceptEncoding)
    }

    /// A body gzipped, with the fields that say so set in `headers`.
    static func gzip(_ plain: ByteBuffer, headers: inout HTTPFields) throws -> ByteBuffer {
        var plain = plain
        let compressed = try plain.compress(with: .gzip())
        headers[.contentEncoding] = "gzip"
        headers[.contentLength] = String(compressed.readableBytes)
        headers[values: .vary].append("Accept-Encoding")
        return compressed
    }

    /// Whether `Accept-Encoding` lists gzip without `q=0`.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingWhitespace.lowercased() }
            return (parts.first == "gzip" || parts.first == "*") && !parts.dropFirst().contains { $0 == "q=0" || $0 == "q=0.0" }
        }
    }
}

/// Collects a response body into one buffer.
final class BodyCollector: ResponseBodyWriter, @unchecked Sendable {
    var buffer = ByteBuffer()

    static func collect(_ body: ResponseBody) async throws -> ByteBuffer {
        let collector = BodyCollector()
        try await body.write(collector)
        return collector.buffer
    }

    func write(_ buffer: ByteBuffer) async throws {
        // A body of one buffer (the usual case) is kept as it is, not copied.
        guard self.buffer.readableBytes > 0 else {
            self.buffer = buffer
            return
        }
        var buffer = buffer
        self.buffer.writeBuffer(&buffer)
    }

    func write(contentsOf buffers: some Sequence<ByteBuffer>) async throws {
        for buffer in buffers { try await write(buffer) }
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
