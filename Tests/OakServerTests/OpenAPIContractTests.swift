import Foundation
import Hummingbird
import HummingbirdTesting
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

    @Test("the served document is OpenAPI 3.1 and names exactly the registered routes")
    func documentMatchesRoutes() async throws {
        let env = try await TestEnvironment()
        let registered = Set(
            buildRouter(configuration: env.configuration, store: env.store).routes
                .filter { $0.method != .head && $0.method != .options }
                .map { "\($0.method.rawValue) \($0.path.description)" })
        let document = try await Self.servedDocument(env)
        #expect((document["openapi"] as? String)?.hasPrefix("3.1") == true)
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let documented = Set(
            paths.flatMap { path, operations in
                operations.keys.filter(Self.methods.contains).map { "\($0.uppercased()) \(path)" }
            })
        let undocumented = registered.subtracting(documented).sorted()
        let phantom = documented.subtracting(registered).sorted()
        #expect(undocumented.isEmpty, "routes missing from openapi.json: \(undocumented)")
        #expect(phantom.isEmpty, "openapi.json names routes that do not exist: \(phantom)")
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
