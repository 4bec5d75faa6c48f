import Foundation
import HTTPTypes
import Hummingbird
import OakModels
import OakWeb

/// Signing in and out of the pages: an API key (the owner's, or a token's) is exchanged for a session cookie
/// (`WebViewers.cookie`); the key itself is never sent back or kept in the browser.
struct WebSessionController {
    let pages: WebPages
    let viewers: WebViewers
    let authenticator: Authenticator

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.signInForm, use: signInForm)
        group.on(.signIn, use: signIn)
        group.on(.signOut, use: signOut)
    }

    @Sendable func signInForm(_ request: Request, context: OakRequestContext) async throws -> Response {
        let next = Self.localPath(request.queryValues(of: .signInForm).string("next"))
        return WebController.html(pages.signIn(next: next, error: nil, for: try await viewers.pageRequest(request)))
    }

    @Sendable func signIn(_ request: Request, context: OakRequestContext) async throws -> Response {
        let visit = PageRequest(path: APIRoute.signIn.path, viewer: nil)
        guard WebEditController.isSameOrigin(request) else {
            return WebController.html(pages.problem(title: "Not allowed", message: WebEditController.crossSiteMessage, for: visit), status: .forbidden)
        }
        let form = try await WebEditController.formValues(request)
        let next = Self.localPath(form["next"])
        let key = (form["key"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        var refusal = "Enter an API key."
        if !key.isEmpty {
            let caller: APIToken?
            do {
                caller = try await authenticator.caller(of: key)
            } catch let error as OakError where error.code == .unauthorized {
                caller = nil
            }
            if let caller {
                let session = viewers.sessions.start(tokenName: caller == Authenticator.owner ? nil : caller.name)
                return Response(status: .seeOther, headers: [.location: next, .setCookie: viewers.cookie(session, for: request), .cacheControl: "no-store"])
            }
            refusal = "That key is not valid."
        }
        return WebController.html(pages.signIn(next: next, error: refusal, for: visit), status: key.isEmpty ? .badRequest : .unauthorized)
    }

    @Sendable func signOut(_ request: Request, context: OakRequestContext) async throws -> Response {
        guard WebEditController.isSameOrigin(request) else {
            let visit = PageRequest(path: APIRoute.signOut.path, viewer: nil)
            return WebController.html(pages.problem(title: "Not allowed", message: WebEditController.crossSiteMessage, for: visit), status: .forbidden)
        }
        // Ending the session asks for its form token, so another site cannot sign the owner out.
        if let signedIn = try await viewers.signedIn(request) {
            let form = try await WebEditController.formValues(request)
            guard viewers.sessions.acceptsFormToken(form["csrf"] ?? "", for: signedIn.session) else {
                return WebEditController.expiredForm(pages, viewers, request)
            }
        }
        return Response(status: .seeOther, headers: [.location: "/", .setCookie: viewers.endingCookie(for: request), .cacheControl: "no-store"])
    }

    /// A page of this site to go to after signing in: a path of this server only (`/…`, not `//host`), else `/`.
    static func localPath(_ text: String?) -> String {
        guard let text, text.hasPrefix("/"), !text.hasPrefix("//"), !text.contains("\\"), !text.contains(where: \.isNewline) else { return "/" }
        return text
    }
}
