import ArgumentParser
import Hummingbird

/// `oak-bench baseline`: the floor of the HTTP stack, one route answering a constant body, no middleware.
struct BenchBaselineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Serve a constant JSON body at /api/v1/species/alba with a bare Hummingbird router.",
        shouldDisplay: false
    )

    @Option(help: "Port to listen on.")
    var port = 8089

    @Option(help: "Size of the constant body in bytes (match GET /api/v1/species/alba).")
    var bodySize = 500

    func run() async throws {
        guard bodySize >= 2 else { throw ValidationError("--body-size must be at least 2") }
        let body = ByteBuffer(string: "\"" + String(repeating: "x", count: bodySize - 2) + "\"")
        let router = Router()
        router.get("api/v1/species/alba") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
        try await app.runService()
    }
}
