import Foundation
import Hummingbird
import Logging
import OakModels

/// Answers every error with the `{"error": {...}}` envelope; an unexpected error is logged and becomes a 500.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as OakError {
            return Self.response(for: error)
        } catch let error as any HTTPResponseError {
            let code: ErrorCode =
                switch error.status.code {
                case 404: .notFound
                case 405: .methodNotAllowed
                case 413: .payloadTooLarge
                case 415: .unsupportedMediaType
                case 400..<500: .validationError
                default: .internalError
                }
            let message = error.status.code == 404 ? "No route for \(request.method) \(request.uri.path)" : error.status.reasonPhrase
            var response = Self.response(for: OakError(code, message))
            response.status = error.status
            return response
        } catch {
            context.logger.error("Unhandled error", metadata: ["error": "\(String(reflecting: error))"])
            return Self.response(for: OakError(.internalError, "An internal error occurred"))
        }
    }

    static func response(for error: OakError) -> Response {
        let body = (try? WireJSON.encoder.encode(ErrorEnvelope(error: error))) ?? Data()
        return Response(
            status: .init(code: error.code.httpStatus),
            headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
