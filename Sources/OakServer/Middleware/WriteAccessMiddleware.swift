import HTTPTypes
import Hummingbird
import OakModels
import OakStore

/// Resolves the caller of a request: the owner key (every ability) or a named token.
struct Authenticator: Sendable {
    let ownerKey: String
    let tokens: any TokenRepository

    /// The owner, as a token with every ability.
    static let owner = APIToken(name: "owner", abilities: [.admin], createdAt: .distantPast)

    /// The caller, or nil when the request presents no key; a key that matches nothing is a 401.
    func caller(of request: Request) async throws -> APIToken? {
        guard let key = Self.presentedKey(request) else { return nil }
        return try await caller(of: key)
    }

    /// The caller a key belongs to; a key that matches nothing is a 401.
    func caller(of key: String) async throws -> APIToken {
        if constantTimeEquals(key, ownerKey) { return Self.owner }
        guard let token = try await tokens.authenticate(secret: key) else {
            throw OakError(.unauthorized, "The API key is not valid")
        }
        return token
    }

    /// The key a request presents, from `Authorization: Bearer` or `X-API-Key`.
    static func presentedKey(_ request: Request) -> String? {
        if let authorization = request.headers[.authorization] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return String(parts[1].trimmingWhitespace) }
        }
        if let key = request.headers[.apiKey], !key.isEmpty { return key }
        return nil
    }
}

/// Reads are public; a write needs a valid key (401) whose token has `ability` (403).
struct WriteAccessMiddleware: RouterMiddleware {
    let ability: Ability
    let authenticator: Authenticator

    func handle(_ request: Request, context: OakRequestContext, next: (Request, OakRequestContext) async throws -> Response)
        async throws -> Response
    {
        guard ![.get, .head, .options].contains(request.method) else { return try await next(request, context) }
        guard let caller = try await authenticator.caller(of: request) else {
            throw OakError(.unauthorized, "This request needs an API key: send 'Authorization: Bearer <key>'")
        }
        guard caller.allows(ability) else {
            throw OakError(
                .forbidden, "The token '\(caller.name)' lacks the '\(ability.rawValue)' ability",
                details: ["required_ability": .string(ability.rawValue)])
        }
        return try await next(request, context)
    }
}
