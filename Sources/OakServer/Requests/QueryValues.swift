import Hummingbird
import HummingbirdCore
import OakModels

/// A request's query parameters, percent-decoded, with the typed look-ups the routes share, for the route that
/// reads them. Every name looked up must be one the route's description lists (`APIRoute.query`): a debug build
/// (the tests) stops at a look-up of any other, so the names the handlers read, the catalogue, the client's URLs and
/// `openapi.json` (held to the catalogue by `OpenAPIContractTests`) cannot drift apart.
struct QueryValues {
    private let parameters: FlatDictionary<Substring, Substring>
    /// The route whose query this is.
    let route: APIRoute

    init(_ parameters: FlatDictionary<Substring, Substring>, of route: APIRoute) {
        self.parameters = parameters
        self.route = route
    }

    /// A parameter's text.
    func string(_ name: String) -> String? {
        parameters[described(name)].map(String.init)
    }

    /// `name` as a key, once it is known to be one of the route's parameters.
    private func described(_ name: String, unlisted: Bool = false) -> Substring {
        assert(unlisted || route.query.contains(name), "\(route) reads the query parameter \(name), which its description (APIRoute) does not list")
        return name[...]
    }

    /// An integer parameter; a non-integer answers 400. `unlisted`: a name the route need not list (see `pageBounds`).
    func int(_ name: String, unlisted: Bool = false) throws -> Int? {
        guard let text = try typed(name, unlisted: unlisted) else { return nil }
        guard let value = Int(text) else { throw OakError.invalid(name, "must be an integer") }
        return value
    }

    /// A boolean parameter (`true`/`false`, `1`/`0`, `yes`/`no`); anything else answers 400.
    func bool(_ name: String) throws -> Bool? {
        guard let text = try typed(name)?.lowercased() else { return nil }
        switch text {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw OakError.invalid(name, "must be true or false")
        }
    }

    /// A number's or a flag's text; nil when absent or empty. Given more than once (`limit=1&limit=2`) it has no
    /// one value, and answers 400 rather than taking the first.
    private func typed(_ name: String, unlisted: Bool = false) throws -> Substring? {
        let values = parameters[values: described(name, unlisted: unlisted)]
        if values.count > 1 { throw OakError.invalid(name, "must be given once") }
        guard let text = values.first, !text.isEmpty else { return nil }
        return text
    }

    /// `limit` and `offset`: limit defaults to 50 and is clamped to the maximum; both must be in range.
    func pageBounds() throws -> (limit: Int, offset: Int) {
        var validator = Validator()
        let limit = try int("limit") ?? Pagination.defaultLimit
        // The searches (`search`, `searchSpecies`) list no `offset`, since they answer one page, yet check one as
        // every page does: a negative or non-integer one answers 400.
        let offset = try int("offset", unlisted: true) ?? 0
        if limit < 1 { validator.fail("limit", "must be at least 1") }
        if offset < 0 { validator.fail("offset", "must not be negative") }
        try validator.check()
        return (min(limit, Pagination.maxLimit), offset)
    }
}

extension Request {
    /// The query parameters of `route`, parsed once for any number of look-ups (each read of `uri.queryParameters`
    /// parses the whole query again).
    func queryValues(of route: APIRoute) -> QueryValues {
        QueryValues(uri.queryParameters, of: route)
    }
}
