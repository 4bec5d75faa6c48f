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

    /// The URL of a route (`APIRoute`) with `values` in place of its path parameters, in order, each
    /// percent-encoded as one segment, and the query parameters that have a value (sorted by name).
    func url(_ route: APIRoute, _ values: [String] = [], query: [String: String?] = [:]) -> URL {
        assert(Set(query.keys).isSubset(of: route.query), "\(route) does not read the query parameters \(Set(query.keys).subtracting(route.query))")
        var root = configuration.baseURL.absoluteString
        while root.hasSuffix("/") { root.removeLast() }
        var components = URLComponents(string: root + route.path(filledWith: values))!
        let items = query.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        if !items.isEmpty { components.queryItems = items.sorted { $0.name < $1.name } }
        return components.url!
    }

    /// Sends a request to a route (its method, and its URL from `url`) and returns the response when its status is
    /// 2xx or listed in `accepting`.
    func send(
        _ route: APIRoute, _ values: [String] = [], query: [String: String?] = [:], body: (any Encodable)? = nil,
        headers: [String: String] = [:], sendKey: Bool? = nil, accepting: Set<Int> = []
    ) async throws(OakClientError) -> TransportResponse {
        let (method, url) = (route.method.rawValue, url(route, values, query: query))
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

    /// Sends a request to a route (see `send`) and decodes its JSON answer.
    func call<Response: Decodable>(
        _ route: APIRoute, _ values: [String] = [], query: [String: String?] = [:], body: (any Encodable)? = nil,
        headers: [String: String] = [:], as type: Response.Type = Response.self
    ) async throws(OakClientError) -> Response {
        let response = try await send(route, values, query: query, body: body, headers: headers)
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
