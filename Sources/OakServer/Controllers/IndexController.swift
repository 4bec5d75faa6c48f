import Foundation
import Hummingbird
import OakModels
import OakWeb

/// `/` (what this server is, and where to go next) and `/docs` (every route of the API, read from the
/// OpenAPI document, as a page a person can read).
struct IndexController {
    /// The pages, when the server serves them: then a browser asking for `/` gets the landing page.
    let web: WebController?

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.index, use: index)
        group.on(.docs, use: docs)
    }

    struct ServiceIndex: Codable, Sendable {
        var name: String
        var version: VersionInfo
        var links: [String: String]
    }

    /// The landing page for a browser (its `Accept` names `text/html`), else what this server is, as JSON.
    @Sendable func index(_ request: Request, context: OakRequestContext) async throws -> Response {
        // One URL, two kinds of answer: caches keep them apart by the request's `Accept`.
        if let web, WebController.wantsPage(request) {
            var page = try await web.home(request, context: context)
            page.headers[.vary] = "Accept"
            return page
        }
        var response = try JSONResponse(
            body: ServiceIndex(
                name: "Oak Compendium", version: .current,
                links: [
                    "api": APIRoute.apiRoot, "openapi": APIRoute.openAPIDocument.path, "docs": APIRoute.docs.path,
                    "health": APIRoute.health.path,
                ])
        ).response(from: request, context: context)
        if web != nil { response.headers[.vary] = "Accept" }
        return response
    }

    @Sendable func docs(_ request: Request, context: OakRequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: Self.page)))
    }

    /// The routes of the OpenAPI document as an HTML page, grouped by path.
    static let page: String = {
        let document = (try? JSONSerialization.jsonObject(with: OpenAPIController.document)) as? [String: Any] ?? [:]
        let paths = document["paths"] as? [String: [String: Any]] ?? [:]
        var rows = ""
        for path in paths.keys.sorted() {
            for method in ["get", "post", "put", "patch", "delete"] {
                guard let operation = paths[path]?[method] as? [String: Any] else { continue }
                let summary = operation["summary"] as? String ?? ""
                rows +=
                    "<tr><td><code>\(method.uppercased())</code></td><td><code>\(WebText.escaped(path))</code></td><td>\(WebText.escaped(summary))</td></tr>\n"
            }
        }
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Oak Compendium API</title>
            <style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
            td{padding:.2rem .6rem;vertical-align:top}tr:nth-child(even){background:#f4f1ea}</style></head>
            <body><h1>Oak Compendium API \(VersionInfo.current.api)</h1>
            <p>Reads are public; writes need <code>Authorization: Bearer &lt;key&gt;</code>. Every error is
            <code>{"error": {"code", "message", "details"}}</code>. The full contract, with every field, is the
            <a href="/api/v1/openapi.json">OpenAPI document</a>.</p>
            <table>\(rows)</table></body></html>
            """
    }()
}
