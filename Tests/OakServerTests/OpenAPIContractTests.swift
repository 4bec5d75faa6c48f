import Foundation
import Hummingbird
import HummingbirdTesting
import OakModels
import OakServer
import Testing

@Suite("OpenAPI contract")
struct OpenAPIContractTests {
    static let methods: Set<String> = ["get", "post", "put", "patch", "delete"]

    /// The document as `GET /api/v1/openapi.json` serves it.
    static func servedDocument(_ env: TestEnvironment) async throws -> [String: Any] {
        let response = try await env.test { client in try await client.send(.get, "/api/v1/openapi.json") }
        #expect(response.status == .ok)
        return try response.object()
    }

    @Test("the router registers exactly the routes of the catalogue (APIRoute.all), each once")
    func routerMatchesCatalogue() async throws {
        let env = try await TestEnvironment()
        let registered = buildRouter(configuration: env.configuration, store: env.store).routes
            .filter { $0.method != .head && $0.method != .options }
            .map { "\($0.method.rawValue) \($0.path.description)" }
        let described = APIRoute.all.map(\.description)
        #expect(Set(described).count == described.count, "APIRoute.all names a route twice")
        #expect(Set(registered).count == registered.count, "a route is registered twice")
        let undescribed = Set(registered).subtracting(described).sorted()
        let unregistered = Set(described).subtracting(registered).sorted()
        #expect(undescribed.isEmpty, "routes the router registers that are not in APIRoute.all: \(undescribed)")
        #expect(unregistered.isEmpty, "routes of APIRoute.all the router does not register: \(unregistered)")
    }

    @Test("the served document is OpenAPI 3.1 and names exactly the routes of the catalogue, with their parameters")
    func documentMatchesCatalogue() async throws {
        let env = try await TestEnvironment()
        let document = try await Self.servedDocument(env)
        #expect((document["openapi"] as? String)?.hasPrefix("3.1") == true)
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let documented = Set(
            paths.flatMap { path, operations in
                operations.keys.filter(Self.methods.contains).map { "\($0.uppercased()) \(path)" }
            })
        let described = Set(APIRoute.all.map(\.description))
        let undocumented = described.subtracting(documented).sorted()
        let undescribed = documented.subtracting(described).sorted()
        #expect(undocumented.isEmpty, "routes of APIRoute.all missing from openapi.json: \(undocumented)")
        #expect(undescribed.isEmpty, "openapi.json names routes APIRoute.all does not describe: \(undescribed)")

        let components = (document["components"] as? [String: Any])?["parameters"] as? [String: [String: Any]] ?? [:]
        /// A parameter as written, or the one its `$ref` names.
        func resolved(_ parameter: [String: Any]) throws -> [String: Any] {
            guard let reference = parameter["$ref"] as? String else { return parameter }
            let name = try #require(reference.split(separator: "/").last.map(String.init))
            return try #require(components[name], "\(reference) is not in components.parameters")
        }
        for route in APIRoute.all {
            guard let operations = paths[route.path], let operation = operations[route.method.rawValue.lowercased()] as? [String: Any]
            else { continue }
            // Parameters of the path item apply to each of its operations.
            let declared = try ((operations["parameters"] as? [[String: Any]] ?? []) + (operation["parameters"] as? [[String: Any]] ?? []))
                .map(resolved)
            func names(in place: String) -> [String] {
                declared.filter { $0["in"] as? String == place }.compactMap { $0["name"] as? String }
            }
            #expect(names(in: "path").sorted() == route.pathParameters.sorted(), "\(route): path parameters")
            #expect(names(in: "query").sorted() == route.query.sorted(), "\(route): query parameters")
        }
    }

    @Test(
        "the query parameters each GET route's handler reads are the ones its description lists: asked with none, and with a text to search for, no handler looks up another name"
    )
    func handlersReadTheDescribedQueryNames() async throws {
        // A look-up of a name the route's description does not list stops a debug build (`QueryValues`): with no
        // parameters, each handler looks up every name it reads, but a search's, which first needs its text.
        let env = try await TestEnvironment()
        let samples = ["name": "alba", "level": "section"]
        try await env.test { client in
            // The live updates' answer is a stream that stays open; its `since` is read in WebLiveUpdatesTests.
            for route in APIRoute.all where route.method == .get && !route.query.isEmpty && route != .speciesEvents {
                let path = route.path(filledWith: route.pathParameters.map { samples[$0] ?? "1" })
                for query in ["", route.query.contains("q") ? "?q=alba" : nil].compactMap(\.self) {
                    let response = try await client.send(.get, path + query)
                    #expect(response.status.code < 500, "\(route)\(query): \(response.status)")
                }
            }
        }
    }

    @Test("every documented operation describes its responses, and writes declare their security")
    func operationsAreDescribed() async throws {
        let env = try await TestEnvironment()
        let document = try await Self.servedDocument(env)
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        for (path, operations) in paths {
            for (method, value) in operations where Self.methods.contains(method) {
                let operation = try #require(value as? [String: Any])
                #expect((operation["responses"] as? [String: Any])?.isEmpty == false, "\(method) \(path) has no responses")
                if method != "get", path != "/api/v1/auth/verify" {
                    #expect(operation["security"] != nil || document["security"] != nil, "\(method) \(path) declares no security")
                }
            }
        }
    }
}
