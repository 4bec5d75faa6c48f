import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `oak serve` configured as a container or a service manager configures it: by environment variables.
@Suite("Deploying oak serve")
struct DeploymentTests {
    /// Sends a read with an `X-Forwarded-For` header, as a proxy in front would.
    private func readThroughProxy(_ server: ServerProcess, forwardedFor client: String) async throws -> Int {
        var request = URLRequest(url: URL(string: "\(server.url)/api/v1/species/alba")!)
        request.setValue(client, forHTTPHeaderField: "X-Forwarded-For")
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    /// The server's output once it has written a line containing `text` (waits up to 5 s).
    private func output(_ log: URL, containing text: String) async throws -> String {
        var content = ""
        for _ in 0..<100 {
            content = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if content.contains(text) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return content
    }

    @Test("deploying: OAK_HOST and OAK_TRUST_PROXY set the bind address and the client IP from the proxy, as --host and --trust-proxy do")
    func environmentConfiguresHostAndProxy() async throws {
        let (home, path) = try await starterDatabase()
        let log = home.appendingPathComponent("serve.log")
        let server = try await ServerProcess(
            database: path, home: home, log: log, environment: ["OAK_HOST": "0.0.0.0", "OAK_TRUST_PROXY": "true"])
        defer { server.stop() }
        #expect(try await readThroughProxy(server, forwardedFor: "203.0.113.7") == 200)
        let content = try await output(log, containing: "client=203.0.113.7")
        #expect(content.contains("on http://0.0.0.0:\(server.port)/api/v1"), "\(content)")
        #expect(content.contains("client=203.0.113.7"), "\(content)")
    }

    @Test("deploying: without a trusted proxy, X-Forwarded-For is ignored and the socket's address is the client")
    func untrustedProxyHeaderIgnored() async throws {
        let (home, path) = try await starterDatabase()
        let log = home.appendingPathComponent("serve.log")
        let server = try await ServerProcess(database: path, home: home, log: log, environment: ["OAK_TRUST_PROXY": "false"])
        defer { server.stop() }
        #expect(try await readThroughProxy(server, forwardedFor: "203.0.113.7") == 200)
        let content = try await output(log, containing: "path=/api/v1/species/alba")
        #expect(content.contains("on http://127.0.0.1:\(server.port)/api/v1"), "\(content)")
        #expect(content.contains("client=127.0.0.1"), "\(content)")
        #expect(!content.contains("203.0.113.7"))
    }

    @Test("deploying: an OAK_TRUST_PROXY that is not true or false is refused with the variable named (exit 64), before anything starts")
    func unreadableTrustProxyRefused() async throws {
        let home = temporaryHome()
        let outcome = try await OakBinary.run(
            ["serve", "--db", "never.db", "--port", "0"], home: home, environment: ["OAK_TRUST_PROXY": "maybe"])
        #expect(outcome.status == 64)
        #expect(outcome.error.contains("OAK_TRUST_PROXY must be true or false, not 'maybe'"), "\(outcome.error)")
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("never.db").path))
    }

    @Test(
        "deploying: a DATABASE_URL that is not a postgres:// URL is a usage error (exit 64), and an unreachable database one line naming it (exit 1); no file is made"
    )
    func databaseURLRefusals() async throws {
        let home = temporaryHome()
        let malformed = try await OakBinary.run(["serve", "--port", "0"], home: home, environment: ["DATABASE_URL": "mysql://oak@db/oak"])
        #expect(malformed.status == 64)
        #expect(malformed.error.contains("--database-url is not a postgres:// URL"), "\(malformed.error)")
        let unreachable = try await OakBinary.run(
            ["serve", "--port", "0", "--database-url", "postgres://oak:secret@127.0.0.1:1/oak"], home: home)
        #expect(unreachable.status == 1)
        #expect(unreachable.error.contains("error: cannot open the PostgreSQL database at postgres://oak:***@127.0.0.1:1/oak"), "\(unreachable.error)")
        #expect(!unreachable.error.contains("secret"))
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("oak_compendium.db").path))
    }
}
