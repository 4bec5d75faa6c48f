import Foundation
import HTTPTypes
import Hummingbird
import OakModels
import OakStore
import OakWeb

/// The compendium's pages for browsers (`OakWeb`): the landing page (`/`, when the browser asks for HTML; see
/// `IndexController`), search, species, the taxonomy, taxa, sources, and the stylesheet. A page is answered like
/// any cacheable read (`ResponseCacheMiddleware`: kept until the data changes, with an ETag, and gzip-compressed for
/// clients that take it), except to a signed-in browser, whose pages carry its edit links and form token; a
/// record that does not exist is a 404 page, not JSON. The forms are `WebEditController`'s.
struct WebController {
    let store: any CompendiumStore
    let pages: WebPages
    let viewers: WebViewers

    /// The pages load only their own stylesheet and script, and the script asks only this server: nothing inline,
    /// no frame, no other site.
    static let contentSecurityPolicy =
        "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    /// The paths the pages answer under (for the response cache): a page's path of one literal segment
    /// (`/search`), and the folders of the others (`/species/`, `/assets/`), as `APIRoute.pages` describes them.
    static func isPage(_ path: String) -> Bool {
        pagePaths.contains(path) || pageFolders.contains { path.hasPrefix($0) }
    }

    private static let pagePaths: [String] = APIRoute.pages.filter { $0.segments.count == 1 }.map(\.path)
    private static let pageFolders: [String] = {
        var folders: [String] = []
        for route in APIRoute.pages where route.segments.count > 1 {
            guard case .literal(let folder) = route.segments[0], !folders.contains("/\(folder)/") else { continue }
            folders.append("/\(folder)/")
        }
        return folders
    }()

    func addRoutes(to group: RouterGroup<OakRequestContext>) {
        group.on(.searchPage, use: search)
        group.on(.speciesPage, use: species)
        group.on(.taxonomyPage, use: taxonomy)
        group.on(.taxonPage, use: taxon)
        group.on(.sourcesPage, use: sources)
        group.on(.sourcePage, use: source)
        group.on(.stylesheet, use: stylesheet)
        group.on(.script, use: script)
        group.on(.icon, use: icon)
    }

    /// Whether a request asks for a page rather than JSON: its `Accept` names `text/html` (browsers do; `curl`
    /// and the API's clients do not).
    static func wantsPage(_ request: Request) -> Bool {
        guard let accept = request.headers[.accept] else { return false }
        return accept.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.first?.lowercased() == "text/html" else { return false }
            return !parts.dropFirst().contains { $0.replacingOccurrences(of: " ", with: "") == "q=0" }
        }
    }

    @Sendable func home(_ request: Request, context: OakRequestContext) async throws -> Response {
        try await page(request) { try await pages.home(store.stats(), for: $0) }
    }

    @Sendable func search(_ request: Request, context: OakRequestContext) async throws -> Response {
        let query = (request.queryValues(of: .searchPage).string("q") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return try await page(request) { visit in
            let result =
                query.isEmpty
                ? CatalogSearchResult(query: "", species: [], taxa: [], sources: [])
                : try await store.search(query: query, limit: Pagination.defaultLimit)
            return pages.search(result, for: visit)
        }
    }

    @Sendable func species(_ request: Request, context: OakRequestContext) async throws -> Response {
        try await page(request) { visit in
            // The change-log position first: a change made while the page is read is then sent to it live.
            let position = try await store.changes(after: nil).head
            let full = try await store.speciesFull(named: try context.pathParameter("name"))
            return pages.species(full, sources: try await store.listSources(), since: position, for: visit)
        }
    }

    @Sendable func taxonomy(_ request: Request, context: OakRequestContext) async throws -> Response {
        try await page(request) { pages.taxonomy(try await store.listTaxa(level: nil, parent: nil, limit: nil, offset: 0).data, for: $0) }
    }

    @Sendable func taxon(_ request: Request, context: OakRequestContext) async throws -> Response {
        try await page(request) { visit in
            let level = try TaxonLevel.parse(try context.pathParameter("level"))
            let taxon = try await store.taxon(level: level, name: try context.pathParameter("name"))
            var filter = SpeciesFilter()
            switch level {
            case .subgenus: filter.subgenus = taxon.name
            case .section: filter.section = taxon.name
            case .subsection: filter.subsection = taxon.name
            case .complex: filter.complex = taxon.name
            }
            return pages.taxon(taxon, species: try await allSpecies(filter), for: visit)
        }
    }

    @Sendable func sources(_ request: Request, context: OakRequestContext) async throws -> Response {
        try await page(request) { pages.sources(try await store.listSources(), for: $0) }
    }

    @Sendable func source(_ request: Request, context: OakRequestContext) async throws -> Response {
        try await page(request) { visit in
            let source = try await store.source(id: try context.pathInt("id"))
            return pages.source(source, species: try await allSpecies(SpeciesFilter(sourceId: source.id)), for: visit)
        }
    }

    @Sendable func stylesheet(_ request: Request, context: OakRequestContext) async throws -> Response {
        Self.asset(pages.stylesheet, type: "text/css; charset=utf-8")
    }

    @Sendable func script(_ request: Request, context: OakRequestContext) async throws -> Response {
        Self.asset(pages.script, type: "text/javascript; charset=utf-8")
    }

    @Sendable func icon(_ request: Request, context: OakRequestContext) async throws -> Response {
        Self.asset(pages.icon, type: "image/svg+xml")
    }

    /// A file the pages load; `no-cache`, as a page: a browser asks again with its ETag after an upgrade changed it.
    private static func asset(_ data: Data, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Every species the filter admits, a page of the store's at a time.
    private func allSpecies(_ filter: SpeciesFilter) async throws -> [Species] {
        var species: [Species] = []
        while true {
            let page = try await store.listSpecies(filter: filter, limit: Pagination.maxLimit, offset: species.count)
            species += page.data
            if !page.pagination.hasMore || page.data.isEmpty { return species }
        }
    }

    /// A page as HTML, or the page of the error the store gave (a record that is not there is a 404 page).
    private func page(_ request: Request, _ render: (PageRequest) async throws -> String) async throws -> Response {
        let visit = try await viewers.pageRequest(request)
        do {
            return Self.html(try await render(visit))
        } catch let error as OakError where error.code.httpStatus < 500 {
            return problem(error, for: visit)
        }
    }

    /// The page of an error a client can mend (a 4xx), with its status.
    func problem(_ error: OakError, for visit: PageRequest) -> Response {
        let title =
            switch error.code {
            case .notFound: "Not found"
            case .forbidden, .unauthorized: "Not allowed"
            default: "Cannot show this page"
            }
        return Self.html(pages.problem(title: title, message: error.message, for: visit), status: HTTPResponse.Status(code: error.code.httpStatus))
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        // `no-cache`: a browser keeps the page and asks again with its ETag, which the server answers with a 304.
        Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8", .contentSecurityPolicy: contentSecurityPolicy, .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
