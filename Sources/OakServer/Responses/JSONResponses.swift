import Foundation
import Hummingbird
import OakModels

/// A JSON response with a status code.
struct JSONResponse<Body: Encodable & Sendable>: ResponseGenerator {
    var status: HTTPResponse.Status = .ok
    var body: Body

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try WireJSON.encoder.encode(body, from: request, context: context)
        response.status = status
        return response
    }
}

extension Response {
    /// A response whose body is JSON already encoded.
    static func json(_ body: ByteBuffer, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }
}
