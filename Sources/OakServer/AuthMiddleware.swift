import Foundation
import HTTPTypes
import Hummingbird
import OakModels

/// Reads are public; every write needs the owner key as `Authorization: Bearer <key>` or `X-API-Key`.
struct AuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let ownerKey: String

    static var readMethods: Set<HTTPRequest.Method> { [.get, .head, .options] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard !Self.readMethods.contains(request.method) else { return try await next(request, context) }
        guard let presented = Self.presentedKey(request) else {
            throw OakError(.unauthorized, "This request needs an API key: send 'Authorization: Bearer <key>'")
        }
        guard constantTimeEquals(presented, ownerKey) else {
            throw OakError(.unauthorized, "The API key is not valid")
        }
        return try await next(request, context)
    }

    /// The key a request presents, from `Authorization: Bearer` or `X-API-Key`.
    static func presentedKey(_ request: Request) -> String? {
        if let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        if let name = HTTPField.Name("X-API-Key"), let key = request.headers[name], !key.isEmpty {
            return key
        }
        return nil
    }
}

/// Compares two secrets in time that depends only on their lengths.
func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
    let left = Array(lhs.utf8)
    let right = Array(rhs.utf8)
    var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
    for index in 0..<max(left.count, right.count) {
        let a = index < left.count ? left[index] : 0
        let b = index < right.count ? right[index] : 0
        difference |= a ^ b
    }
    return difference == 0
}
