#if os(Linux)
import AsyncHTTPClient
import Foundation
import OakModels

/// The Linux transport, on AsyncHTTPClient (URLSession on Linux has known hangs).
public struct AsyncHTTPClientTransport: HTTPTransport {
    private let client: HTTPClient
    /// The largest response body accepted.
    private let maxBodyBytes: Int

    /// A process-wide client that fails at once when a connection cannot be made (refused, unreachable),
    /// with a 5 s connect timeout apart from the request timeout: AsyncHTTPClient's default retries the
    /// connection until the request's whole timeout runs out, and the sync engine has its own retries.
    public static let failFastClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(5)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// Uses `failFastClient` unless a client is given.
    public init(client: HTTPClient = failFastClient, maxBodyBytes: Int = 64 << 20) {
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
