import Foundation
import HTTPTypes
import Hummingbird
import OakModels
import OakStore
import OakWeb

/// Who a browser's request comes from: the session its cookie holds (`WebSessions`), checked against the keys the
/// server knows now. A token's session lasts only while the token does, and has the token's current abilities.
struct WebViewers: Sendable {
    let sessions: WebSessions
    let tokens: any TokenRepository
    /// Whether `X-Forwarded-Proto` is believed (the server is behind a proxy the owner trusts).
    let trustProxy: Bool

    /// A signed-in request's session and the abilities it has now.
    struct SignedIn {
        let session: WebSession
        let allows: @Sendable (Ability) -> Bool
    }

    /// Whether a request carries a session cookie at all (valid or not): its pages are made for it alone, never
    /// kept in or answered from the shared cache.
    static func carriesSession(_ fields: HTTPFields) -> Bool {
        fields[values: .cookie].contains { WebSessions.cookieValue(inCookieHeader: $0) != nil }
    }

    /// The request's session, when its cookie holds a current one whose key is still valid.
    func signedIn(_ request: Request) async throws -> SignedIn? {
        guard let value = request.headers[values: .cookie].lazy.compactMap(WebSessions.cookieValue(inCookieHeader:)).first,
            let session = sessions.session(cookieValue: value)
        else { return nil }
        guard let name = session.tokenName else { return SignedIn(session: session, allows: { _ in true }) }
        guard let token = try await tokens.listTokens().first(where: { $0.name == name }) else { return nil }
        return SignedIn(session: session, allows: { token.allows($0) })
    }

    /// What the pages need to know of the request.
    func pageRequest(_ request: Request) async throws -> PageRequest {
        pageRequest(request, signedIn: try await signedIn(request))
    }

    func pageRequest(_ request: Request, signedIn: SignedIn?) -> PageRequest {
        PageRequest(
            path: request.uri.description,
            viewer: signedIn.map { Viewer(name: $0.session.displayName, formToken: sessions.formToken(for: $0.session), abilities: $0.allows) })
    }

    /// The `Set-Cookie` value that keeps a session in the browser: only sent to this server, never readable by a
    /// script, never sent with a request another site starts, and only over TLS when the request came over it.
    func cookie(_ session: WebSession, for request: Request) -> String {
        "\(WebSessions.cookieName)=\(sessions.cookieValue(session)); Path=/; Max-Age=\(Int(WebSessions.lifetime)); HttpOnly; SameSite=Strict"
            + (overTLS(request) ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that ends the session in the browser.
    func endingCookie(for request: Request) -> String {
        "\(WebSessions.cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (overTLS(request) ? "; Secure" : "")
    }

    private func overTLS(_ request: Request) -> Bool {
        trustProxy && request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
    }
}
