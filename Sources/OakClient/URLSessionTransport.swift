#if !os(Linux)
import Foundation
import OakModels
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Apple-platform transport, on URLSession.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    public init(session: URLSession = .shared) {
        self.session = session
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var outgoing = URLRequest(url: request.url)
        outgoing.httpMethod = request.method
        outgoing.httpBody = request.body
        outgoing.timeoutInterval = request.timeout.inSeconds
        for (name, value) in request.headers {
            outgoing.setValue(value, forHTTPHeaderField: name)
        }
        let (data, response) = try await session.data(for: outgoing)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return TransportResponse(status: http.statusCode, headers: headers, body: data)
    }
}
#endif
