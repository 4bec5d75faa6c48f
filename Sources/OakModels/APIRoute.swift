import Foundation

/// One route the server answers: its method, its path template and the names of its parameters. The catalogue
/// below (`APIRoute.all`) is the one description of the HTTP interface: the server registers every route from it
/// (`OakServer`'s controllers), the client builds its URLs from it (`OakClient`), the fast path and the response
/// cache take their paths from it, and tests hold `openapi.json` and the server's router to it, both ways.
///
/// It describes every route, not only `/api/v1`: the service routes at the root (`/`, `/docs`, `/health`,
/// `/metrics`) and the pages for browsers (`/species/{name}`, the forms, the live updates) are registered the same
/// way and are in `openapi.json` too.
///
/// To add a route: describe it here (a `static let`, and in `all`), register it in its controller
/// (`group.on(.yourRoute, use: handler)`), and document it in `Sources/OakServer/Resources/openapi.json` with the
/// same path and query parameters; the tests say what is missing where.
public struct APIRoute: Hashable, Sendable, CustomStringConvertible {
    public enum Method: String, Hashable, Sendable, CaseIterable {
        case get = "GET"
        case post = "POST"
        case put = "PUT"
        case patch = "PATCH"
        case delete = "DELETE"
    }

    /// A segment of a path template: literal text, or a parameter (`{name}`).
    public enum Segment: Hashable, Sendable {
        case literal(String)
        case parameter(String)
    }

    public let method: Method
    /// The path template, as OpenAPI and Hummingbird write it: `/api/v1/species/{name}/sources/{sourceId}`.
    public let path: String
    /// The names of the query parameters the route reads (headers are not described here).
    public let query: [String]
    /// The template's segments, in order.
    public let segments: [Segment]

    public init(_ method: Method, _ path: String, query: [String] = []) {
        precondition(path.hasPrefix("/"), "a route's path starts with /: \(path)")
        self.method = method
        self.path = path
        self.query = query
        self.segments = path.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
    }

    /// The names of the path parameters, in order (`["name", "sourceId"]`).
    public var pathParameters: [String] {
        segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    /// `GET /api/v1/species/{name}`.
    public var description: String { "\(method.rawValue) \(path)" }

    // MARK: Paths

    /// The root of the v1 API, under which its routes are.
    public static let apiRoot = "/api/v1"

    /// The path with `values` in place of the parameters, in order, each percent-encoded as one segment
    /// (by `encode`; by default `encodedSegment`, as the client sends them):
    /// `APIRoute.speciesSource.path(filledWith: ["× bebbiana", "3"])` is `/api/v1/species/%C3%97%20bebbiana/sources/3`.
    public func path(filledWith values: [String], encodedBy encode: (String) -> String = APIRoute.encodedSegment) -> String {
        precondition(values.count == pathParameters.count, "\(self) takes \(pathParameters.count) values, not \(values.count)")
        guard !values.isEmpty else { return path }
        var values = values.makeIterator()
        var result = ""
        for segment in segments {
            switch segment {
            case .literal(let text): result += "/" + text
            case .parameter: result += "/" + encode(values.next()!)
            }
        }
        return result
    }

    /// `path(filledWith:)` with the values as arguments: `APIRoute.species.path("alba")`.
    public func path(_ values: String...) -> String {
        path(filledWith: values)
    }

    /// The characters a path segment keeps as they are (RFC 3986's unreserved ones); every other is percent-encoded.
    private static let segmentAllowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))

    /// A value percent-encoded as one path segment (a `/` in it too), as the client has always sent it.
    public static func encodedSegment(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: segmentAllowed) ?? value
    }

    /// The values of the path parameters in `path` (still percent-encoded, as sent), when `path` is exactly this
    /// route's path with a non-empty segment in place of each parameter; else nil. A route with literal segments
    /// where another has a parameter (`/api/v1/species/search` beside `/api/v1/species/{name}`) wins in the
    /// router: a caller that matches the one with the parameter checks the other itself.
    public func parameterValues(in path: String) -> [Substring]? {
        guard !segments.isEmpty else { return path == "/" ? [] : nil }
        var rest = path[...]
        var values: [Substring] = []
        for segment in segments {
            guard rest.utf8.first == UInt8(ascii: "/") else { return nil }
            rest = rest.dropFirst()
            let end = rest.utf8.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
            let part = rest[..<end]
            switch segment {
            case .literal(let text):
                guard part.utf8.elementsEqual(text.utf8) else { return nil }
            case .parameter:
                guard !part.isEmpty else { return nil }
                values.append(part)
            }
            rest = rest[end...]
        }
        return rest.isEmpty ? values : nil
    }

    /// Whether `path` is this route's (see `parameterValues(in:)`).
    public func matches(_ path: String) -> Bool {
        parameterValues(in: path) != nil
    }
}

// MARK: The catalogue

extension APIRoute {
    private static let pageQuery = ["limit", "offset"]

    // The service, at the root (and health under the API too).

    /// What this server is, as JSON; the landing page for a browser.
    public static let index = APIRoute(.get, "/")
    /// Every route of the API as a page (read from `openapi.json`).
    public static let docs = APIRoute(.get, "/docs")
    /// Liveness (`HealthStatus`).
    public static let health = APIRoute(.get, "/health")
    /// Readiness: the database answers (`HealthStatus`).
    public static let healthReady = APIRoute(.get, "/health/ready")
    public static let apiHealth = APIRoute(.get, apiRoot + "/health")
    public static let apiHealthReady = APIRoute(.get, apiRoot + "/health/ready")
    /// Prometheus exposition.
    public static let metrics = APIRoute(.get, "/metrics")
    /// The OpenAPI document.
    public static let openAPIDocument = APIRoute(.get, apiRoot + "/openapi.json")

    // Species.

    public static let listSpecies = APIRoute(
        .get, apiRoot + "/species",
        query: pageQuery + ["subgenus", "section", "subsection", "complex", "hybrid", "is_hybrid", "source_id", "sourceId"])
    public static let createSpecies = APIRoute(.post, apiRoot + "/species")
    public static let searchSpecies = APIRoute(.get, apiRoot + "/species/search", query: ["q", "limit"])
    /// A species' record (held in memory: `SpeciesRecords`, and the fast path).
    public static let species = APIRoute(.get, apiRoot + "/species/{name}")
    public static let updateSpecies = APIRoute(.put, apiRoot + "/species/{name}")
    public static let patchSpecies = APIRoute(.patch, apiRoot + "/species/{name}")
    public static let deleteSpecies = APIRoute(.delete, apiRoot + "/species/{name}")
    /// A species with all of its source data.
    public static let speciesFull = APIRoute(.get, apiRoot + "/species/{name}/full")

    // A species' data per source.

    public static let speciesSources = APIRoute(.get, apiRoot + "/species/{name}/sources")
    public static let createSpeciesSource = APIRoute(.post, apiRoot + "/species/{name}/sources")
    public static let speciesSource = APIRoute(.get, apiRoot + "/species/{name}/sources/{sourceId}")
    public static let updateSpeciesSource = APIRoute(.put, apiRoot + "/species/{name}/sources/{sourceId}")
    public static let patchSpeciesSource = APIRoute(.patch, apiRoot + "/species/{name}/sources/{sourceId}")
    public static let deleteSpeciesSource = APIRoute(.delete, apiRoot + "/species/{name}/sources/{sourceId}")

    // Taxa.

    public static let listTaxa = APIRoute(.get, apiRoot + "/taxa", query: ["level", "parent"] + pageQuery)
    public static let createTaxon = APIRoute(.post, apiRoot + "/taxa")
    public static let listTaxaAtLevel = APIRoute(.get, apiRoot + "/taxa/{level}", query: ["parent"] + pageQuery)
    public static let taxon = APIRoute(.get, apiRoot + "/taxa/{level}/{name}")
    public static let updateTaxon = APIRoute(.put, apiRoot + "/taxa/{level}/{name}")
    public static let patchTaxon = APIRoute(.patch, apiRoot + "/taxa/{level}/{name}")
    public static let deleteTaxon = APIRoute(.delete, apiRoot + "/taxa/{level}/{name}")

    // Sources.

    public static let listSources = APIRoute(.get, apiRoot + "/sources")
    public static let createSource = APIRoute(.post, apiRoot + "/sources")
    public static let source = APIRoute(.get, apiRoot + "/sources/{id}")
    public static let updateSource = APIRoute(.put, apiRoot + "/sources/{id}")
    public static let patchSource = APIRoute(.patch, apiRoot + "/sources/{id}")
    public static let deleteSource = APIRoute(.delete, apiRoot + "/sources/{id}")

    // Across the catalog.

    /// Species, taxa and sources matching a text (made from memory on the fast path when it can be).
    public static let search = APIRoute(.get, apiRoot + "/search", query: ["q", "limit"])
    public static let stats = APIRoute(.get, apiRoot + "/stats")
    /// The denormalized export (`If-None-Match` answers 304).
    public static let export = APIRoute(.get, apiRoot + "/export")

    // Notes.

    public static let listNotes = APIRoute(.get, apiRoot + "/notes", query: ["species", "sourceId", "source_id"])
    public static let createNote = APIRoute(.post, apiRoot + "/notes")
    public static let note = APIRoute(.get, apiRoot + "/notes/{id}")
    public static let updateNote = APIRoute(.put, apiRoot + "/notes/{id}")
    public static let patchNote = APIRoute(.patch, apiRoot + "/notes/{id}")
    public static let deleteNote = APIRoute(.delete, apiRoot + "/notes/{id}")

    // Sync, keys, backups.

    public static let pull = APIRoute(.get, apiRoot + "/sync/pull", query: ["since", "limit", "entities"])
    /// The older name of `pull`.
    public static let changes = APIRoute(.get, apiRoot + "/sync/changes", query: ["since", "limit", "entities"])
    public static let push = APIRoute(.post, apiRoot + "/sync/push")
    /// Whether a key is valid and what it may do.
    public static let verifyKey = APIRoute(.get, apiRoot + "/auth/verify")
    public static let backup = APIRoute(.post, apiRoot + "/backup")

    // The pages for browsers (`WebController`).

    public static let searchPage = APIRoute(.get, "/search", query: ["q"])
    public static let speciesPage = APIRoute(.get, "/species/{name}")
    public static let taxonomyPage = APIRoute(.get, "/taxonomy")
    public static let taxonPage = APIRoute(.get, "/taxa/{level}/{name}")
    public static let sourcesPage = APIRoute(.get, "/sources")
    public static let sourcePage = APIRoute(.get, "/sources/{id}")
    public static let stylesheet = APIRoute(.get, "/assets/oak.css")
    public static let script = APIRoute(.get, "/assets/oak.js")
    public static let icon = APIRoute(.get, "/assets/oak.svg")

    // Signing in and out (`WebSessionController`).

    public static let signInForm = APIRoute(.get, "/sign-in", query: ["next"])
    public static let signIn = APIRoute(.post, "/sign-in")
    public static let signOut = APIRoute(.post, "/sign-out")

    // The edit forms (`WebEditController`): each is shown (GET) and submitted (POST) at one path.

    public static let speciesForm = APIRoute(.get, "/edit/species/{name}")
    public static let submitSpeciesForm = APIRoute(.post, "/edit/species/{name}")
    public static let newSpeciesForm = APIRoute(.get, "/new/species")
    public static let submitNewSpeciesForm = APIRoute(.post, "/new/species")
    public static let descriptionForm = APIRoute(.get, "/edit/species/{name}/sources/{id}")
    public static let submitDescriptionForm = APIRoute(.post, "/edit/species/{name}/sources/{id}")
    public static let newDescriptionForm = APIRoute(.get, "/new/species/{name}/description")
    public static let submitNewDescriptionForm = APIRoute(.post, "/new/species/{name}/description")
    public static let notesForm = APIRoute(.get, "/edit/species/{name}/notes")
    public static let submitNotesForm = APIRoute(.post, "/edit/species/{name}/notes")
    public static let sourceForm = APIRoute(.get, "/edit/sources/{id}")
    public static let submitSourceForm = APIRoute(.post, "/edit/sources/{id}")
    public static let newSourceForm = APIRoute(.get, "/new/source")
    public static let submitNewSourceForm = APIRoute(.post, "/new/source")
    public static let taxonForm = APIRoute(.get, "/edit/taxa/{level}/{name}")
    public static let submitTaxonForm = APIRoute(.post, "/edit/taxa/{level}/{name}")
    public static let newTaxonForm = APIRoute(.get, "/new/taxon")
    public static let submitNewTaxonForm = APIRoute(.post, "/new/taxon")

    // Live updates (`WebEventsController`).

    /// Server-sent events for an open species page.
    public static let speciesEvents = APIRoute(.get, "/events/species/{name}", query: ["since"])

    /// The pages a browser reads (`WebController`), answered like any cacheable read.
    public static let pages: [APIRoute] = [
        searchPage, speciesPage, taxonomyPage, taxonPage, sourcesPage, sourcePage, stylesheet, script, icon,
    ]

    /// Every route the server answers.
    public static let all: [APIRoute] =
        [index, docs, health, healthReady, apiHealth, apiHealthReady, metrics, openAPIDocument]
        + [listSpecies, createSpecies, searchSpecies, species, updateSpecies, patchSpecies, deleteSpecies, speciesFull]
        + [speciesSources, createSpeciesSource, speciesSource, updateSpeciesSource, patchSpeciesSource, deleteSpeciesSource]
        + [listTaxa, createTaxon, listTaxaAtLevel, taxon, updateTaxon, patchTaxon, deleteTaxon]
        + [listSources, createSource, source, updateSource, patchSource, deleteSource]
        + [search, stats, export]
        + [listNotes, createNote, note, updateNote, patchNote, deleteNote]
        + [pull, changes, push, verifyKey, backup]
        + pages + [signInForm, signIn, signOut]
        + forms
        + [speciesEvents]

    /// The edit forms (`WebEditController`), shown and submitted.
    public static let forms: [APIRoute] = [
        speciesForm, submitSpeciesForm, newSpeciesForm, submitNewSpeciesForm, descriptionForm, submitDescriptionForm,
        newDescriptionForm, submitNewDescriptionForm, notesForm, submitNotesForm, sourceForm, submitSourceForm, newSourceForm,
        submitNewSourceForm, taxonForm, submitTaxonForm, newTaxonForm, submitNewTaxonForm,
    ]

    /// The pages' files (`WebController`).
    public static let assets: [APIRoute] = [stylesheet, script, icon]

    /// The folders `routes` lie in, as path prefixes (`/edit/` and `/new/` for `forms`): a path under one of them
    /// belongs to those routes even where it matches none of them.
    public static func folders(of routes: [APIRoute]) -> Set<String> {
        Set(routes.compactMap { route in route.path.split(separator: "/").first.map { "/\($0)/" } })
    }
}
