import Foundation
import OakModels
import OakTestBasics
import OakTestSupport
import Testing

/// The built `oak` binary, run as a user runs it.
struct OakBinary {
    /// The `oak` executable beside the test bundle (both are build products).
    static var url: URL {
        get throws { try url(of: "oak") }
    }

    /// An executable of the package (`oak`, `oak-bench`, `oak-simulate`) beside the test bundle.
    static func url(of name: String) throws -> URL {
        let products = Bundle.main.bundleURL.deletingLastPathComponent()
        let candidates = [products, Bundle.main.bundleURL].map { $0.appendingPathComponent(name) }
        return try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }, "no \(name) binary in \(products.path)")
    }

    struct Outcome {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs `oak` (or another of the package's executables) with `arguments` in a throwaway HOME (and
    /// `environment`), waiting at most `timeout`.
    static func run(
        _ arguments: [String], home: URL, environment: [String: String] = [:], timeout: Duration = .seconds(30), binary: String = "oak"
    ) async throws -> Outcome {
        try await run(executable: try url(of: binary), arguments, home: home, environment: environment, timeout: timeout)
    }

    /// Runs a bash `script` with the `oak` executable as `$0` and `arguments` as `$1`…, as `run` runs `oak`.
    static func runInShell(_ script: String, _ arguments: [String], home: URL, timeout: Duration = .seconds(30)) async throws -> Outcome {
        try await run(executable: URL(fileURLWithPath: "/bin/bash"), ["-c", script, try url.path] + arguments, home: home, timeout: timeout)
    }

    private static func run(
        executable: URL, _ arguments: [String], home: URL, environment: [String: String] = [:], timeout: Duration
    ) async throws -> Outcome {
        let (output, error) = (Pipe(), Pipe())
        let process = try SpawnedProcess(
            executable: executable, arguments: arguments,
            environment: ["HOME": home.path, "PATH": "/usr/bin:/bin"].merging(environment) { _, new in new }, directory: home,
            output: output.fileHandleForWriting.fileDescriptor, error: error.fileHandleForWriting.fileDescriptor)
        // Only the child writes now: its exit ends the text.
        try output.fileHandleForWriting.close()
        try error.fileHandleForWriting.close()
        // Read while the process runs: a child writing more than a pipe holds (64 KiB) waits for a reader.
        let (outputText, errorText) = (PipeText(output), PipeText(error))
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now > deadline {
                process.terminate()
                Issue.record("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not finish in \(timeout)")
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus,
            output: outputText.wait(), error: errorText.wait())
    }
}

/// A new empty directory to use as HOME and working directory.
func temporaryHome() -> URL { temporaryDirectory("oak-home") }

@Suite("The oak binary")
struct BinaryTests {
    @Test("every command's help reads in paragraphs: no sentence of its description broken in the middle of a line")
    func helpReadsInParagraphs() async throws {
        let home = temporaryHome()
        let top = try await OakBinary.run(["--help"], home: home)
        #expect(top.status == 0)
        let commands = Self.subcommands(in: top.output)
        #expect(commands.contains("migrate") && commands.contains("serve"))
        for command in commands {
            let help = try await OakBinary.run([command, "--help"], home: home)
            #expect(help.status == 0, "oak \(command) --help")
            var pages = [(command, help.output)]
            for sub in Self.subcommands(in: help.output) {
                pages.append(("\(command) \(sub)", try await OakBinary.run([command, sub, "--help"], home: home).output))
            }
            for (name, page) in pages {
                // The text above USAGE: the help wraps a paragraph's lines near 80 columns, so a short line followed
                // by more of the same paragraph is a break written into the text.
                let description = page.components(separatedBy: "USAGE:")[0].components(separatedBy: "\n")
                for (line, next) in zip(description, description.dropFirst())
                where !line.isEmpty && !next.isEmpty && !line.hasPrefix(" ") && !next.hasPrefix(" ") && !line.hasSuffix(":") {
                    #expect(line.count >= 60, "oak \(name) --help breaks a sentence after \"\(line)\"")
                }
                for line in Self.linesBrokenMidSentence(page) {
                    Issue.record("oak \(name) --help breaks a sentence after \"\(line)\"")
                }
            }
        }
    }

    /// The lines of a help page after which a sentence goes on although its next word would have fit: ArgumentParser
    /// fills each line of a paragraph (the overview, the discussion, an argument's, option's or subcommand's help)
    /// to under 80 columns, so such a break is a newline written inside a paragraph of the text. A line that ends a
    /// sentence, a clause or a list item (`.`, `:`, `;`, `!`, `?`) may be followed by anything; a sentence goes on
    /// when the next line of the same paragraph starts in lower case. Above USAGE a paragraph is at the left margin
    /// (indented lines there are examples); below it, an entry's help goes on in the column it started in.
    static func linesBrokenMidSentence(_ page: String, width: Int = 80) -> [String] {
        func indentation(_ line: Substring) -> Int { line.prefix { $0 == " " }.count }
        /// Where a line's paragraph is: an entry's help column (after the name and its gap), or its indentation.
        func column(_ line: Substring) -> Int {
            let indent = indentation(line)
            let text = line.dropFirst(indent)
            guard let gap = text.range(of: "  ") else { return indent }
            return indent + text.distance(from: text.startIndex, to: gap.lowerBound) + text[gap.lowerBound...].prefix { $0 == " " }.count
        }
        var broken: [String] = []
        var (inProse, inUsage) = (true, false)
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false)
        for (line, next) in zip(lines, lines.dropFirst()) {
            if line.hasPrefix("USAGE:") { (inProse, inUsage) = (false, true) }
            guard let last = line.last(where: { $0 != " " }) else {
                inUsage = false
                continue
            }
            guard !inUsage, !".:;!?".contains(last) else { continue }
            let indent = indentation(next)
            let rest = next.dropFirst(indent)
            guard let first = rest.first, first.isLowercase, let word = rest.split(separator: " ").first else { continue }
            let sameParagraph = inProse ? indentation(line) == 0 && indent == 0 : indent == column(line)
            if sameParagraph && line.count + 1 + word.count < width { broken.append(String(line)) }
        }
        return broken
    }

    @Test("the check for sentences broken mid-line finds a written-in break, in a paragraph and in an option's help")
    func brokenSentenceCheck() {
        let page = """
            OVERVIEW: Copy a whole database from a SQLite file into PostgreSQL, or back.

            Stop the servers of both databases first. A SQLite source is brought to the
            current schema in place,
            as oak serve would.

            Examples:
              oak migrate --from oak_compendium.db --to postgres://oak@db.example.org/oak
              oak migrate --from postgres://oak@db.example.org/oak --to restored.db

            USAGE: oak migrate --from <from> --to <to> [--force]
              oak sees this as usage

            OPTIONS:
              --from <from>           The database to copy: a SQLite file, or a postgres://
                                      URL of a database server, which must be
                                      running.
              --to <to>               Where to
                                      copy it.
              --force                 Replace whatever the target holds.
            """
        #expect(
            Self.linesBrokenMidSentence(page) == [
                "current schema in place,", "                          URL of a database server, which must be",
                "  --to <to>               Where to",
            ])
    }

    /// The subcommands a help page lists.
    static func subcommands(in help: String) -> [String] {
        guard let list = help.components(separatedBy: "SUBCOMMANDS:").dropFirst().first else { return [] }
        return list.components(separatedBy: "\n").compactMap { line in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first else { return nil }
            return name.hasPrefix("-") || name == "See" ? nil : String(name)
        }
    }

    @Test("5 oak version prints the API version and the oldest client it supports")
    func version() async throws {
        let outcome = try await OakBinary.run(["version"], home: temporaryHome())
        #expect(outcome.status == 0)
        #expect(outcome.output.contains("API version: \(VersionInfo.current.api)"))
        #expect(outcome.output.contains("Minimum client version: \(VersionInfo.current.minClient)"))
    }

    @Test("oak version with a profile shows the server's versions; a server that needs a newer client gets a warning; --skip-version-check asks nothing")
    func versionAgainstServer() async throws {
        let (home, path) = try await starterDatabase()
        let server = try await ServerProcess(database: path, home: home)
        let live = try await OakBinary.run(["version"], home: home, environment: ["OAK_API_URL": server.url])
        #expect(live.status == 0, "\(live.error)")
        #expect(live.output.contains("Server \(server.url): API version \(VersionInfo.current.api), minimum client version \(VersionInfo.current.minClient)"))
        #expect(live.error.isEmpty)

        let future = try ServerSocket()
        defer { future.close() }
        future.answerOnce(json: #"{"status":"ok","version":{"api":"9.0.0","min_client":"9.0.0"}}"#)
        let old = try await OakBinary.run(["version"], home: home, environment: ["OAK_API_URL": "http://127.0.0.1:\(future.port)"])
        #expect(old.status == 0, "\(old.error)")
        #expect(old.error.contains("warning: this oak (\(VersionInfo.current.api)) is older than the oldest client the server supports (9.0.0)"))

        let skipped = try await OakBinary.run(["version", "--skip-version-check"], home: home, environment: ["OAK_API_URL": "http://127.0.0.1:9"])
        #expect(skipped.status == 0)
        #expect(!skipped.output.contains("Server"))
        let down = try await OakBinary.run(["version"], home: home, environment: ["OAK_API_URL": "http://127.0.0.1:9"])
        #expect(down.status == 5)
        #expect(down.output.contains("API version: \(VersionInfo.current.api)"), "the client's own version still prints")
    }

    @Test("slow clients: oak serve raises its open-file soft limit to the hard limit at start")
    func fileDescriptorLimit() async throws {
        let (home, path) = try await starterDatabase()
        let port = try ServerSocket.freePort()
        // Started as a shell with a low soft limit starts it.
        let process = try SpawnedProcess(
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", "ulimit -Sn 256 && exec \"$0\" serve --port \(port) --db \"$1\" --no-daily-backup", try OakBinary.url.path, path],
            environment: ["HOME": home.path, "OAK_API_KEY": "fd-limit-test-key-0123456789"])
        defer { process.terminate() }
        var limits = ""
        for _ in 0..<200 {
            // The limits are read once the server is listening (the limit is raised before that).
            if (try? ServerSocket.connect(port: port)) == true {
                limits = try String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        #expect(numbers.count == 2 && numbers[0] == numbers[1] && numbers[0] > 256, "\(line)")
    }

    @Test("front door: oak serve on a busy port says so in one line with a --port hint, and exits 1 without touching the database")
    func busyPort() async throws {
        let home = temporaryHome()
        // Hold a port the way another server would.
        let holder = try ServerSocket()
        defer { holder.close() }
        let outcome = try await OakBinary.run(["serve", "--port", String(holder.port), "--db", "busy.db"], home: home)
        #expect(outcome.status == 1)
        let lines = outcome.error.split(separator: "\n")
        #expect(lines.count == 1, "\(outcome.error)")
        #expect(lines.first?.contains("already in use") == true)
        #expect(lines.first?.contains("--port") == true)
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("busy.db").path))
    }
}

/// A listening TCP socket on a free loopback port.
final class ServerSocket {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        try #require(bound == 0 && listen(descriptor, 1) == 0, "cannot listen on loopback")
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// A loopback port free a moment ago (another socket may take it before the caller binds it).
    static func freePort() throws -> Int {
        let socket = try ServerSocket()
        defer { socket.close() }
        return socket.port
    }

    /// Whether something accepts connections on the loopback port.
    static func connect(port: Int) throws -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { _ = Glibc.close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Answers the next connection with `body` as a 200 JSON response, on a background thread.
    func answerOnce(json body: String) {
        let descriptor = descriptor
        Thread.detachNewThread {
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { return }
            var request = [UInt8](repeating: 0, count: 4096)
            _ = read(connection, &request, request.count)
            let response = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            _ = response.withCString { write(connection, $0, strlen($0)) }
            _ = Glibc.close(connection)
        }
    }

    func close() {
        _ = Glibc.close(descriptor)
    }
}
