import Foundation

/// An HTTP request as the client hands it to a transport.
public struct TransportRequest: Sendable {
    public var method: String
    public var url: URL
    /// Header fields; names are compared case-insensitively by servers.
    public var headers: [String: String]
    public var body: Data?
    /// How long the whole exchange may take.
    public var timeout: Duration

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: Duration) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// An HTTP response as a transport returns it.
public struct TransportResponse: Sendable {
    public var status: Int
    /// Header fields with lowercased names.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }
}

/// Sends HTTP requests. One implementation per platform; tests wrap one to inject faults.
/// A transport throws only when no response arrived (connection failure, timeout, cancellation).
public protocol HTTPTransport: Sendable {
    func send(_ request: TransportRequest) async throws -> TransportResponse
}

/// The transport for the current platform: URLSession on Apple platforms, AsyncHTTPClient on Linux. Chosen by
/// platform, as Package.swift links AsyncHTTPClient (Linux only), not by `canImport`, which a build for iOS in Xcode
/// can satisfy with a module built for another platform.
public func makeDefaultTransport() -> any HTTPTransport {
    #if os(Linux)
    AsyncHTTPClientTransport()
    #else
    URLSessionTransport()
    #endif
}
