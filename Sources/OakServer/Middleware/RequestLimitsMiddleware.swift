import HTTPTypes
import Hummingbird
import OakModels

/// Rejects bodies larger than the cap (413) and bodies that are not JSON (415) before any work is done.
struct RequestLimitsMiddleware: RouterMiddleware {
    let maxBodySize: Int

    func handle(_ request: Request, context: OakRequestContext, next: (Request, OakRequestContext) async throws -> Response)
        async throws -> Response
    {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maxBodySize {
            throw OakError(.payloadTooLarge, "The request body is larger than \(maxBodySize) bytes")
        }
        if [.post, .put, .patch].contains(request.method), let type = request.headers[.contentType],
            !Self.isJSON(type), request.headers[.contentLength] != "0"
        {
            throw OakError(.unsupportedMediaType, "Send the body as application/json, not \(type)")
        }
        return try await next(request, context)
    }

    static func isJSON(_ contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return mediaType == "application/json" || mediaType.hasSuffix("+json")
    }
}
