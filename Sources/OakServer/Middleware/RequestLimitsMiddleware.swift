import HTTPTypes
import Hummingbird
import NIOCore
import OakModels

/// Rejects bodies larger than the cap (413) and bodies that are not JSON (415; the pages' forms post form data) before any
/// work is done. A body
/// whose length is not declared (chunked) is read here, up to the cap, so the cap holds for it too.
struct RequestLimitsMiddleware: RouterMiddleware {
    let maxBodySize: Int

    func handle(_ request: Request, context: OakRequestContext, next: (Request, OakRequestContext) async throws -> Response)
        async throws -> Response
    {
        let tooLarge = OakError(.payloadTooLarge, "The request body is larger than \(maxBodySize) bytes")
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maxBodySize {
            throw tooLarge
        }
        guard [.post, .put, .patch].contains(request.method) else { return try await next(request, context) }
        if let type = request.headers[.contentType], !Self.isJSON(type), request.headers[.contentLength] != "0",
            !(WebEditController.takesForms(request.uri.path) && WebEditController.isForm(type))
        {
            throw OakError(.unsupportedMediaType, "Send the body as application/json, not \(type)")
        }
        var request = request
        if request.headers[.contentLength] == nil {
            do {
                _ = try await request.collectBody(upTo: maxBodySize)
            } catch is NIOTooManyBytesError {
                throw tooLarge
            }
        }
        return try await next(request, context)
    }

    static func isJSON(_ contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";").first?.trimmingWhitespace.lowercased() ?? ""
        return mediaType == "application/json" || mediaType.hasSuffix("+json")
    }
}
