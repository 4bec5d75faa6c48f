#if canImport(AsyncHTTPClient)
import AsyncHTTPClient
import Foundation
import OakModels

/// The Linux transport, on AsyncHTTPClient (URLSession on Linux has known hangs).
public struct AsyncHTTPClientTransport: HTTPTransport {
    private let client: HTTPClient
    /// The largest response body accepted.
    private let maxBodyBytes: Int

    /// Uses the shared client unless one is given.
    public init(client: HTTPClient = .shared, maxBodyBytes: Int = 64 << 20) {
        self.client = client
        self.maxBodyBytes = maxBodyBytes
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = .init(rawValue: request.method)
        for (name, value) in request.headers {
            outgoing.headers.add(name: name, value: value)
        }
        if let body = request.body {
            outgoing.body = .bytes(body)
        }
        let response = try await client.execute(outgoing, timeout: .milliseconds(Int64(request.timeout.inSeconds * 1000)))
        let body = try await response.body.collect(upTo: maxBodyBytes)
        var headers: [String: String] = [:]
        for (name, value) in response.headers {
            headers[name.lowercased()] = value
        }
        return TransportResponse(status: Int(response.status.code), headers: headers, body: Data(body.readableBytesView))
    }
}
#endif
