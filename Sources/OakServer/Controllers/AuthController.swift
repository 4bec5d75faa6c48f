import Foundation
import Hummingbird
import OakModels

/// `/api/v1/auth/verify`: tells a client whether its key is valid and what it may do.
struct AuthController {
    let authenticator: Authenticator

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.verifyKey, use: verify)
    }

    @Sendable func verify(_ request: Request, context: OakRequestContext) async throws -> JSONResponse<VerifiedKey> {
        guard let caller = try await authenticator.caller(of: request) else {
            throw OakError(.unauthorized, "Send a key as 'Authorization: Bearer <key>' or 'X-API-Key'")
        }
        return JSONResponse(body: VerifiedKey(name: caller.name, abilities: caller.abilities))
    }
}
