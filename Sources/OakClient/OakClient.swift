import Foundation
import OakModels

/// Where the client connects and how.
public struct OakClientConfiguration: Sendable {
    /// The server's root, e.g. `https://oaks.example.org`.
    public var baseURL: URL
    /// The API key; sent on writes only.
    public var apiKey: String?
    /// How long one request may take.
    public var timeout: Duration
    public var transport: any HTTPTransport

    public init(baseURL: URL, apiKey: String? = nil, timeout: Duration = .seconds(30), transport: any HTTPTransport = makeDefaultTransport()) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.timeout = timeout
        self.transport = transport
    }
}

/// A typed async client for the Oak Compendium v1 API. Every failure is an `OakClientError`.
public struct OakClient: Sendable {
    public let configuration: OakClientConfiguration

    public init(configuration: OakClientConfiguration) {
        self.configuration = configuration
    }

    /// HTTP methods that read; every other method writes and carries the key.
    private static let readMethods: Set<String> = ["GET", "HEAD", "OPTIONS"]
    private static let pathAllowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))

    /// The URL of `/api/v1/<segments>` (or `/<segments>` when `api` is false), each segment percent-encoded.
    func url(_ segments: [String], query: [String: String?] = [:], api: Bool = true) -> URL {
        let encoded = segments.map { $0.addingPercentEncoding(withAllowedCharacters: Self.pathAllowed) ?? $0 }
        var root = configuration.baseURL.absoluteString
        while root.hasSuffix("/") { root.removeLast() }
        var components = URLComponents(string: root + (api ? "/api/v1/" : "/") + encoded.joined(separator: "/"))!
        let items = query.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        if !items.isEmpty { components.queryItems = items.sorted { $0.name < $1.name } }
        return components.url!
    }

    /// Sends a request and returns the response when its status is 2xx or listed in `accepting`.
    func send(
        _ method: String, _ url: URL, body: (any Encodable)? = nil, headers: [String: String] = [:],
        sendKey: Bool? = nil, accepting: Set<Int> = []
    ) async throws(OakClientError) -> TransportResponse {
        var headers = headers
        headers["Accept"] = "application/json"
        if sendKey ?? !Self.readMethods.contains(method), let key = configuration.apiKey {
            headers["Authorization"] = "Bearer \(key)"
        }
        var request = TransportRequest(method: method, url: url, headers: headers, timeout: configuration.timeout)
        if let body {
            do {
                request.body = try JSONEncoder().encode(body)
            } catch {
                throw .invalidResponse(status: 0, underlying: error)
            }
            request.headers["Content-Type"] = "application/json"
        }
        let response: TransportResponse
        do {
            response = try await configuration.transport.send(request)
        } catch {
            throw .transport(error)
        }
        guard (200..<300).contains(response.status) || accepting.contains(response.status) else {
            let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: response.body)
            let error = envelope?.error ?? OakError(Self.code(for: response.status), "HTTP \(response.status)")
            throw .server(status: response.status, error: error, retryAfter: RetryAfter.parse(response.headers["retry-after"]))
        }
        return response
    }

    /// Sends a request and decodes its JSON answer.
    func call<Response: Decodable>(
        _ method: String, _ url: URL, body: (any Encodable)? = nil, headers: [String: String] = [:],
        as type: Response.Type = Response.self
    ) async throws(OakClientError) -> Response {
        let response = try await send(method, url, body: body, headers: headers)
        do {
            return try JSONDecoder().decode(Response.self, from: response.body)
        } catch {
            throw .invalidResponse(status: response.status, underlying: error)
        }
    }

    /// The error code matching a status, for error answers without an envelope.
    private static func code(for status: Int) -> ErrorCode {
        ErrorCode.allCases.first { $0.httpStatus == status } ?? .internalError
    }
}
